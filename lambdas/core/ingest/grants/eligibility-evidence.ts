import type { StateCode } from '../../geo';
import { APPLICANT_TYPES, type ApplicantType, type EligibilityEvidence } from '../../records';
import { eligibilityFrom } from './eligibility';
import { restrictionsInText } from './text-restrictions';

export interface GrantEligibility {
  eligible_applicants: ApplicantType[];
  requires_501c3: boolean | null;
  states: StateCode[];
  /** Each restriction read from the text, with where it came from (records.ts, eligibility_evidence); what the codes give needs none. */
  evidence: EligibilityEvidence[];
}

const inTypeOrder = (types: Iterable<ApplicantType>) => {
  const set = new Set(types);
  return APPLICANT_TYPES.filter((type) => set.has(type));
};

/**
 * Who and where may apply, from the listing's eligibility codes and the restrictions its own text
 * states (text-restrictions.ts). The text narrows, never widens:
 * - "only" limits intersect with the codes' types; a limit that shares no type with the codes is
 *   kept as the text says, since the text is the more specific (codes are often just "25 Others");
 * - exclusions remove types the codes listed; with no codes, they stay as evidence only (matching
 *   applies them), because the rest of the types are not thereby confirmed;
 * - state limits are intersected (text-restrictions.ts drops a field whose limits share no state).
 * Types not named in the evidence come from the codes; a listing with neither says nothing of who
 * may apply (unknown), and one with no state limit in its text names no place restriction.
 */
export function eligibilityWithText(codes: readonly string[], text: { title: string; description: string; eligibilityText: string | null }): GrantEligibility {
  const fromCodes = eligibilityFrom(codes);
  const evidence: EligibilityEvidence[] = [];
  let applicants = fromCodes.eligible_applicants;
  let states: StateCode[] | null = null;
  for (const restriction of restrictionsInText(text)) {
    if (restriction.field === 'states') {
      states = states === null ? [...restriction.states] : states.filter((state) => restriction.states.includes(state));
      evidence.push({ field: 'states', effect: 'only', values: restriction.states, detail: null, source: restriction.source, quote: restriction.quote });
    } else if (restriction.field === 'eligible_applicants') {
      const narrowed = applicants.filter((type) => restriction.only.includes(type));
      applicants = inTypeOrder(narrowed.length > 0 ? narrowed : restriction.only);
      evidence.push({
        field: 'eligible_applicants',
        effect: 'only',
        values: restriction.only,
        detail: restriction.detail,
        source: restriction.source,
        quote: restriction.quote,
      });
    } else {
      if (applicants.length > 0) applicants = applicants.filter((type) => !restriction.excluded.includes(type));
      evidence.push({
        field: 'eligible_applicants',
        effect: 'excludes',
        values: restriction.excluded,
        detail: null,
        source: restriction.source,
        quote: restriction.quote,
      });
    }
  }
  // A 501(c)(3) requirement speaks of nonprofits; once the text rules them out it says nothing.
  const requires501c3 = applicants.length > 0 && !applicants.includes('nonprofit') ? null : fromCodes.requires_501c3;
  return { eligible_applicants: applicants, requires_501c3: requires501c3, states: [...new Set(states ?? [])], evidence };
}
