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
 * independently of the service's filters: not open on `today`, the wrong applicant type, a
 * 501(c)(3) requirement the nonprofit does not meet, or another state. Empty when it may apply.
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
  return violations;
}
