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

  topic: {
    /**
     * The semantic part of the topic score; the rest is the overlap of key terms. The semantic part
     * is the grant's semantic relevance scaled from 0 at the embedder's floor to 1 at its upper
     * reference (lambdas/core/search/relevance.ts).
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
