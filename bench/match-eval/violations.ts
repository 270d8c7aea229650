import { resolveApplicantLocation } from '../../lambdas/core/matching/applicant-location';
import type { ApplicantType, Grant } from '../../lambdas/core/records';

/** The profile fields eligibility depends on, as sent in a match request. */
export interface EligibilityProfile {
  geography?: string;
  applicant_type?: ApplicantType;
  is_501c3?: boolean;
}

/**
 * Why a grant must not be matched to a profile, by the interface's rules, written out here
 * independently of the service's filters: not open on `today`, the wrong applicant type (listed, or
 * excluded by the listing's text), a 501(c)(3) requirement the nonprofit does not meet, or another
 * state. Empty when it may apply.
 */
export function eligibilityViolations(grant: Grant, profile: EligibilityProfile, today: string): string[] {
  const violations: string[] = [];
  if (grant.opportunity_type !== 'open') violations.push('an awarded record, not an opportunity');
  else if (grant.status !== 'posted') violations.push(`status ${grant.status}`);
  else if (grant.deadline_date !== null && grant.deadline_date < today) violations.push(`deadline ${grant.deadline_date} passed`);

  const location = resolveApplicantLocation(profile.geography);
  if (grant.states.length > 0) {
    if (location.kind === 'national') violations.push(`for ${grant.states.join(', ')} only, and the applicant is national`);
    if (location.kind === 'states' && !grant.states.some((state) => location.states.includes(state))) {
      violations.push(`for ${grant.states.join(', ')} only, and the applicant is in ${location.states.join(', ')}`);
    }
  }
  const type = profile.applicant_type ?? (profile.is_501c3 === true ? 'nonprofit' : undefined);
  if (type && grant.eligible_applicants.length > 0 && !grant.eligible_applicants.includes(type)) {
    violations.push(`open to ${grant.eligible_applicants.join(', ')}, not ${type}`);
  }
  if (type === 'nonprofit' && profile.is_501c3 === false && grant.requires_501c3 === true) violations.push('needs 501(c)(3) status');
  const excluded = (grant.eligibility_evidence ?? []).find((e) => e.effect === 'excludes' && type !== undefined && e.values.includes(type));
  if (excluded) violations.push(`its ${excluded.source.replace('_', ' ')} excludes ${type}: “${excluded.quote}”`);
  return violations;
}

const YEAR_DAYS = 365.25;

/**
 * Why a grant counts as a stale listing on `today`, written apart from the service's rule
 * (lambdas/core/query/applyable.ts) as the issue states it: an open-ended listing (no deadline, or
 * a placeholder one more than ten years away) first posted more than three years ago. Empty when
 * it is not stale.
 */
export function staleReasons(grant: Grant, today: string): string[] {
  const day = (date: string) => Date.parse(`${date.slice(0, 10)}T00:00:00Z`) / 86_400_000;
  const openEnded = grant.deadline_date === null || day(grant.deadline_date) - day(today) > 10 * YEAR_DAYS;
  const ageYears = (day(today) - day(grant.created_at)) / YEAR_DAYS;
  return openEnded && ageYears > 3 ? [`open-ended and posted ${grant.created_at.slice(0, 10)}, ${ageYears.toFixed(1)} years ago`] : [];
}
