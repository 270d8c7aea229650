import { daysBetween } from '../dates';
import type { StateCode } from '../geo';
import { APPLICANT_TYPES, type ApplicantType, type Grant } from '../records';
import type { ApplicantLocation } from './applicant-location';
import type { MatchProfile } from './match-request';
import { MATCH_SCORING } from './scoring-config';

/**
 * The non-topical components of a match: who may apply, where, how big the award is against the
 * applicant's budget, and how soon it closes. Each returns its score in [0, 1] and the facts the
 * reason cites, so a reason can only say what the score was computed from.
 */

const { eligibility: ELIGIBILITY, awardSize: AWARD_SIZE, deadline: DEADLINE } = MATCH_SCORING;

/** The applicant type a profile implies: the one given, or nonprofit when it says it holds 501(c)(3) status. */
export function applicantTypeOf(profile: MatchProfile): ApplicantType | undefined {
  return profile.applicantType ?? (profile.is501c3 === true ? 'nonprofit' : undefined);
}

export type ApplicantFact =
  /** The grant lists the applicant's type. */
  | { kind: 'confirmed'; type: ApplicantType; everyType: boolean }
  /** The grant does not say who may apply. */
  | { kind: 'unknown' }
  /** The profile gives no type; the grant lists these. */
  | { kind: 'type_not_given'; types: ApplicantType[]; everyType: boolean };

/** Only for grants restricted to 501(c)(3) nonprofits (others have no 501(c)(3) fact). */
export type Charity501c3Fact = 'holds' | 'not_stated';

export type GeographyFact =
  | { kind: 'national' }
  | { kind: 'in_state'; states: StateCode[] }
  /** A state-specific grant for an applicant whose location is unknown. */
  | { kind: 'state_unconfirmed'; states: StateCode[] };

export interface EligibilityFit {
  score: number;
  applicants: ApplicantFact;
  charity501c3: Charity501c3Fact | null;
  geography: GeographyFact;
}

/**
 * Soft eligibility of a grant that passed the hard filters (its listed types include the
 * applicant's or are unknown; it is national or for one of the applicant's states).
 */
export function eligibilityFit(grant: Grant, profile: MatchProfile, location: ApplicantLocation): EligibilityFit {
  const type = applicantTypeOf(profile);
  const everyType = grant.eligible_applicants.length === APPLICANT_TYPES.length;
  let applicants: ApplicantFact;
  let score: number;
  if (grant.eligible_applicants.length === 0) {
    applicants = { kind: 'unknown' };
    score = ELIGIBILITY.unknownApplicantTypes;
  } else if (type && grant.eligible_applicants.includes(type)) {
    applicants = { kind: 'confirmed', type, everyType };
    score = ELIGIBILITY.confirmed;
  } else {
    applicants = { kind: 'type_not_given', types: [...grant.eligible_applicants], everyType };
    score = everyType ? ELIGIBILITY.confirmed : ELIGIBILITY.applicantTypeNotGiven;
  }

  let charity501c3: Charity501c3Fact | null = null;
  if (grant.requires_501c3 === true && (type === 'nonprofit' || type === undefined) && grant.eligible_applicants.includes('nonprofit')) {
    charity501c3 = profile.is501c3 === true ? 'holds' : 'not_stated';
    if (charity501c3 === 'not_stated') score *= ELIGIBILITY.unconfirmed501c3;
  }

  let geography: GeographyFact;
  if (grant.states.length === 0) {
    geography = { kind: 'national' };
    score *= ELIGIBILITY.national;
  } else if (location.kind === 'states') {
    geography = { kind: 'in_state', states: grant.states.filter((state) => location.states.includes(state)) };
    score *= ELIGIBILITY.inApplicantState;
  } else {
    geography = { kind: 'state_unconfirmed', states: [...grant.states] };
    score *= ELIGIBILITY.stateGrantUnknownLocation;
  }
  return { score, applicants, charity501c3, geography };
}

export interface AwardSizeFit {
  score: number;
  /** The published award range (either end may be missing). */
  amountMin: number | null;
  amountMax: number | null;
  /** Set when a budget was given and an amount is published: the band and the award range as shares of the budget. */
  budget?: { usd: number; band: 'below' | 'within' | 'above'; lowShare: number; highShare: number };
}

/**
 * Award size against the annual budget: awards between 5% and 50% of it fit best (a grant big
 * enough to matter, small enough to manage); the score drops by lossPerDecade for each factor
 * of ten outside that band. A published range counts by its point nearest the band.
 */
export function awardSizeFit(grant: Grant, budgetUsd: number | undefined): AwardSizeFit {
  const amountMin = grant.amount_min && grant.amount_min > 0 ? grant.amount_min : null;
  const amountMax = grant.amount_max && grant.amount_max > 0 ? grant.amount_max : null;
  const low = amountMin ?? amountMax;
  const high = amountMax ?? amountMin;
  if (budgetUsd === undefined || low === null || high === null) return { score: AWARD_SIZE.unknown, amountMin, amountMax };
  const from = AWARD_SIZE.bestShare.from * budgetUsd;
  const to = AWARD_SIZE.bestShare.to * budgetUsd;
  const shares = { lowShare: low / budgetUsd, highShare: high / budgetUsd };
  if (high < from) {
    const score = Math.max(AWARD_SIZE.minimum, 1 - AWARD_SIZE.lossPerDecade * Math.log10(from / high));
    return { score, amountMin, amountMax, budget: { usd: budgetUsd, band: 'below', ...shares } };
  }
  if (low > to) {
    const score = Math.max(AWARD_SIZE.minimum, 1 - AWARD_SIZE.lossPerDecade * Math.log10(low / to));
    return { score, amountMin, amountMax, budget: { usd: budgetUsd, band: 'above', ...shares } };
  }
  return { score: 1, amountMin, amountMax, budget: { usd: budgetUsd, band: 'within', ...shares } };
}

export interface DeadlineFit {
  score: number;
  date: string | null;
  /** Whole days from today to the deadline; null without one. */
  daysLeft: number | null;
}

/** A deadline at least comfortableDays away scores 1; sooner ones less, down to `today` on the day. */
export function deadlineFit(grant: Grant, today: string): DeadlineFit {
  if (!grant.deadline_date) return { score: DEADLINE.none, date: null, daysLeft: null };
  const daysLeft = daysBetween(today, grant.deadline_date);
  const score = daysLeft >= DEADLINE.comfortableDays ? 1 : DEADLINE.today + (1 - DEADLINE.today) * Math.max(0, daysLeft) / DEADLINE.comfortableDays;
  return { score, date: grant.deadline_date, daysLeft };
}
