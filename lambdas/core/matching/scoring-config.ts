/**
 * Every number grant matching scores with, in one place; docs/matching.md explains each one and
 * `npm run eval:match` measures them. A match score is
 *
 *   100 × topic × (1 − practicalShare + practicalShare × practical)
 *   practical = eligibility × 0.5 + award_size × 0.3 + deadline × 0.2   (practicalWeights)
 *
 * with each component in [0, 1]: the topic decides the order, and what the applicant can do about
 * it (how sure its eligibility is, the award's size, the time left) moves a score by at most
 * practicalShare of itself. As a sum the practical parts outweighed the topic's spread, which is
 * narrow: an unrelated grant open to everyone outranked the grant a mission was written for.
 * Hard eligibility (a grant the applicant may not apply for, one for another state, one that is
 * not open) is never scored: those grants are filtered out first.
 */
export const MATCH_SCORING = {
  practicalShare: 0.2,
  practicalWeights: { eligibility: 0.5, award_size: 0.3, deadline: 0.2 },

  /** How many of the nearest open, eligible grants (by embedding) are scored in full. */
  candidateWindow: 300,

  /**
   * The honest cut-off, on topic evidence (topic-fit.ts: the lesser of the semantic part and the
   * lexical part read against lexicalAtPar), calibrated by `npm run eval:match` on 14 profiles
   * written to have no fit in ../shared/data (bench/match-eval/no-fit-calibration.json); 10 more,
   * written at the same time, are held out to test it. Two levels:
   *
   * - strongEvidence: a profile gets matches only if some candidate reaches it: 0.005 above the
   *   best evidence any calibration profile reaches (rounded up to 0.001), so a profile with no
   *   real fit gets none, and meta.note says so.
   * - minEvidence: a profile that has a strong match also gets the other candidates that reach
   *   this: the median of the calibration profiles' best evidence (rounded up to 0.001), so no
   *   returned grant is weaker than what a typical profile with no fit finds nearest.
   *
   * Calibrated for bge-small-en-v1.5-q; other embedders' cosines shift the semantic part, so
   * recalibrate with the same command.
   */
  cutoff: { strongEvidence: 0.279, minEvidence: 0.12, lexicalAtPar: 0.1 },

  topic: {
    /**
     * The semantic part of the topic score, as hybrid search weighs it (lambdas/core/search/fusion.ts);
     * the rest is the grant's BM25 for the profile's key terms against the best candidate's. The
     * semantic part is the grant's cosine scaled from 0 at the candidate floor (the embedder's
     * profileFloor) to 1 at its upper reference (lambdas/core/search/relevance.ts).
     */
    semanticShare: 0.7,
    /** Added to the topic score for each focus keyword the grant mentions, up to the cap. */
    focusKeywordBoost: 0.1,
    focusKeywordBoostCap: 0.35,
    /** Lexical matching reads the title, the categories and this much of the description. */
    descriptionChars: 4_000,
    /** A reason cites terms by weight: one found only in the description weighs this much of one in the title or categories. */
    citedDescriptionWeight: 0.6,
  },

  eligibility: {
    /** The grant names the applicant's type (or is open to every type). */
    confirmed: 1,
    /** The grant does not say who may apply: neutral, with lower confidence. */
    unknownApplicantTypes: 0.6,
    /** The profile gives no applicant type and the grant is restricted to some types. */
    applicantTypeNotGiven: 0.6,
    /** The listing's text names a narrower group than the applicant's type ("state governments only"). */
    narrowerGroup: 0.6,
    /** The grant is for 501(c)(3) nonprofits and the nonprofit did not say whether it is one. */
    unconfirmed501c3: 0.8,
    /** A grant for the applicant's own state(s). */
    inApplicantState: 1,
    /** A national grant: open everywhere, competing with the whole country. */
    national: 0.9,
    /** A state-specific grant when the applicant's location is unknown. */
    stateGrantUnknownLocation: 0.4,
  },

  awardSize: {
    /** Awards between these shares of the annual budget fit best (score 1). */
    bestShare: { from: 0.05, to: 0.5 },
    /** Lost for each factor of ten the award lies outside that band. */
    lossPerDecade: 0.45,
    minimum: 0.1,
    /** No budget given, or no award amount published. */
    unknown: 0.5,
  },

  deadline: {
    /** Days of preparation a good application needs; sooner deadlines score less. */
    comfortableDays: 14,
    /** The score of a deadline today; it rises linearly to 1 at comfortableDays. */
    today: 0.3,
    /** No deadline published (rolling or open-ended). */
    none: 0.8,
  },
} as const;

export type MatchScoring = typeof MATCH_SCORING;
