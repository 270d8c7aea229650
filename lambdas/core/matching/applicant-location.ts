import { isStateCode, type StateCode, statesMentionedIn, US_STATE_NAMES } from '../geo';
import { listInWords } from '../text';

/**
 * Where an applicant is, from the profile's free-text geography: one or more states, the whole
 * country, or unknown (no geography, or text naming no state). Geographic eligibility follows:
 * a state-specific grant for none of the applicant's states is out; a national grant is open
 * to everyone.
 */
export type ApplicantLocation = { kind: 'states'; states: StateCode[] } | { kind: 'national' } | { kind: 'unknown'; text: string | null };

const NATIONAL =
  /^(?:the\s+)?(?:usa|u\.?\s?s\.?(?:\s?a\.?)?|united states(?: of america)?|america|nation\s?wide|national(?:ly)?|all (?:50 )?states|(?:across|throughout) the (?:us|u\.s\.|united states|country))$/i;
const NATIONAL_WORDS = /\b(?:nation\s?wide|national(?:ly)?|all (?:50 )?states|across the (?:country|nation))\b/i;
// "Washington, DC" names the District, not Washington state.
const WASHINGTON_DC = /\bwashington,?\s*d\.?\s?c\.?(?=\W|$)/gi;
// "Austin, TX" or "Kansas City, mo 64105": the code after the place is the state, in any case.
const PLACE_THEN_CODE = /,\s*([A-Za-z]{2})\.?(?:\s+\d{5}(?:-\d{4})?)?\s*$/;

export function resolveApplicantLocation(text: string | undefined): ApplicantLocation {
  if (text === undefined) return { kind: 'unknown', text: null };
  const trimmed = text.trim();
  const bare = trimmed.replace(/\.$/, '').toUpperCase();
  if (bare.length === 2 && isStateCode(bare)) return { kind: 'states', states: [bare] };
  const code = PLACE_THEN_CODE.exec(trimmed)?.[1]?.toUpperCase();
  if (code && isStateCode(code)) return { kind: 'states', states: [code] };
  const states = statesMentionedIn(trimmed.replace(WASHINGTON_DC, 'District of Columbia'));
  if (states.length > 0) return { kind: 'states', states };
  if (NATIONAL.test(trimmed) || NATIONAL_WORDS.test(trimmed)) return { kind: 'national' };
  return { kind: 'unknown', text: trimmed };
}

/** "Kansas", "Kansas and Missouri": the states in words, for reasons. */
export function stateNames(states: readonly StateCode[]): string {
  return listInWords(states.map((code) => US_STATE_NAMES[code]));
}

/** The location as the response's meta reports it: what the free text was understood as. */
export function describeLocation(location: ApplicantLocation): { resolved_as: 'states' | 'national' | 'unknown'; states: StateCode[] } {
  return { resolved_as: location.kind, states: location.kind === 'states' ? [...location.states] : [] };
}
