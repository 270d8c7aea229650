import { daysBetween } from '../dates';
import type { StateCode } from '../geo';
import { APPLICANT_TYPES, type ApplicantType, type EligibilityEvidence, type Grant } from '../records';
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
export type Charity501c3Fact = 'holds' | 'not_stated' | 'lacks';

/** Where the listing's own text says who or where may apply, in its words. */
export interface TextEvidence {
  source: EligibilityEvidence['source'];
  quote: string;
}

export type GeographyFact =
  /** Neither the listing's fields nor its text limit where applicants may be. */
  | { kind: 'unrestricted' }
  | { kind: 'in_state'; states: StateCode[]; evidence: TextEvidence | null }
  /** A state-specific grant for an applicant whose location is unknown. */
  | { kind: 'state_unconfirmed'; states: StateCode[]; evidence: TextEvidence | null };

export interface EligibilityFit {
  score: number;
  applicants: ApplicantFact;
  /** The listing's text names a narrower group than the applicant's type ("state governments" of municipality): a caveat. */
  narrowerGroup: (TextEvidence & { detail: string }) | null;
  charity501c3: Charity501c3Fact | null;
  geography: GeographyFact;
}

const textEvidenceOf = (evidence: EligibilityEvidence | undefined): TextEvidence | null =>
  evidence ? { source: evidence.source, quote: evidence.quote } : null;

/**
 * The hard filters (use-cases/match-grants.ts, matchFilters) as a check of one grant: it is open
 * on `today` (posted, deadline not passed; the stale-listing rule needs the index), its listed
 * types include the applicant's or are unknown, a nonprofit without 501(c)(3) status is not sent
 * to a grant that requires it, and a state grant is for one of the applicant's states (a national
 * applicant gets national grants only). The index applies them before ranking; ranking checks
 * again, so no caller can pass it a grant the applicant may not apply for.
 */
export function passesHardFilters(grant: Grant, profile: MatchProfile, location: ApplicantLocation, today: string): boolean {
  if (grant.opportunity_type !== 'open' || grant.status !== 'posted' || (grant.deadline_date !== null && grant.deadline_date < today)) return false;
  const type = applicantTypeOf(profile);
  if (type && grant.eligible_applicants.length > 0 && !grant.eligible_applicants.includes(type)) return false;
  if (type === 'nonprofit' && profile.is501c3 === false && grant.requires_501c3 === true) return false;
  if (grant.states.length > 0 && location.kind === 'national') return false;
  if (grant.states.length > 0 && location.kind === 'states' && !grant.states.some((state) => location.states.includes(state))) return false;
  return type === undefined || !excludedByText(grant, type);
}

/**
 * Whether the listing's text rules the applicant's type out ("Individuals are not eligible"). The
 * index filters on eligible_applicants; a listing with no eligibility codes keeps [] (unknown)
 * there, so its text's exclusions are applied here.
 */
function excludedByText(grant: Grant, type: ApplicantType): boolean {
  return (grant.eligibility_evidence ?? []).some((e) => e.field === 'eligible_applicants' && e.effect === 'excludes' && e.values.includes(type));
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

  let narrowerGroup: EligibilityFit['narrowerGroup'] = null;
  const narrowing = (grant.eligibility_evidence ?? []).find(
    (e) => e.field === 'eligible_applicants' && e.effect === 'only' && e.detail !== null && (type === undefined || e.values.includes(type)),
  );
  if (narrowing) {
    narrowerGroup = { source: narrowing.source, quote: narrowing.quote, detail: narrowing.detail! };
    score *= ELIGIBILITY.narrowerGroup;
  }

  let charity501c3: Charity501c3Fact | null = null;
  if (grant.requires_501c3 === true && (type === 'nonprofit' || type === undefined) && grant.eligible_applicants.includes('nonprofit')) {
    // 'lacks' reaches here only without an applicant type: a nonprofit without the status is filtered out.
    charity501c3 = profile.is501c3 === true ? 'holds' : profile.is501c3 === false ? 'lacks' : 'not_stated';
    if (charity501c3 !== 'holds') score *= ELIGIBILITY.unconfirmed501c3;
  }

  let geography: GeographyFact;
  const placeEvidence = textEvidenceOf((grant.eligibility_evidence ?? []).find((e) => e.field === 'states' && e.effect === 'only'));
  if (grant.states.length === 0) {
    geography = { kind: 'unrestricted' };
    score *= ELIGIBILITY.national;
  } else if (location.kind === 'states') {
    geography = { kind: 'in_state', states: grant.states.filter((state) => location.states.includes(state)), evidence: placeEvidence };
    score *= ELIGIBILITY.inApplicantState;
  } else {
    geography = { kind: 'state_unconfirmed', states: [...grant.states], evidence: placeEvidence };
    score *= ELIGIBILITY.stateGrantUnknownLocation;
  }
  return { score, applicants, narrowerGroup, charity501c3, geography };
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
  const score = daysLeft >= DEADLINE.comfortableDays ? 1 : DEADLINE.today + ((1 - DEADLINE.today) * Math.max(0, daysLeft)) / DEADLINE.comfortableDays;
  return { score, date: grant.deadline_date, daysLeft };
}
