/**
 * Every number grant matching scores with, in one place; docs/matching.md explains each one and
 * `npm run eval:match` measures them. A match score is
 *
 *   100 × (topic × weights.topic + eligibility × weights.eligibility
 *          + award_size × weights.award_size + deadline × weights.deadline)
 *
 * with each component in [0, 1]. Hard eligibility (a grant the applicant may not apply for, one
 * for another state, one that is not open) is never scored: those grants are filtered out first.
 */
export const MATCH_SCORING = {
  weights: { topic: 0.6, eligibility: 0.2, award_size: 0.12, deadline: 0.08 },

  /** How many of the nearest open, eligible grants (by embedding) are scored in full. */
  candidateWindow: 300,
  /**
   * Candidates may sit this far below the embedder's search floor (relevance.ts): a mission is a
   * paragraph, not a query, and its cosines with the grants it fits are lower than a short query's
   * with its answers. The cut-off, not this floor, decides what is a match.
   */
  candidateFloorDrop: 0.1,

  /**
   * The honest cut-off: a grant whose topic evidence (topic-fit.ts: the lesser of the semantic
   * part and the overlap read against overlapAtPar) is under minEvidence is no match, however
   * eligible, so a profile with no real fit in the catalogue gets fewer matches or none, and
   * meta.note says so. Calibrated by `npm run eval:match` on 14 profiles written to have no fit in
   * ../shared/data (bench/match-eval/no-fit-calibration.json), by the rule the search floor uses:
   * 0.005 above the best evidence any of them reaches, rounded up to 0.001; 10 more, written at the
   * same time, are held out to test it. Calibrated for bge-small-en-v1.5-q; other embedders' cosines
   * shift the semantic part, so recalibrate with the same command.
   */
  cutoff: { minEvidence: 0.25, overlapAtPar: 2 / 3 },

  topic: {
    /**
     * The semantic part of the topic score; the rest is the overlap of key terms. The semantic part
     * is the grant's cosine scaled from 0 at the candidate floor (the embedder's floor less
     * candidateFloorDrop) to 1 at its upper reference (lambdas/core/search/relevance.ts).
     */
    semanticShare: 0.5,
    /** Added to the topic score for each focus keyword the grant mentions, up to the cap. */
    focusKeywordBoost: 0.15,
    focusKeywordBoostCap: 0.35,
    /** Key-term overlap reads the title, the categories and this much of the description. */
    descriptionChars: 4_000,
    /** A term found in the title or categories counts fully; one found only in the description counts this much. */
    descriptionOnlyWeight: 0.6,
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
