import { type StateCode, US_STATE_NAMES } from '../geo';

/** Field rules every opportunity mapper shares, so grants and contracts read the same way. */

/** A posted opportunity whose deadline is before the import date is closed. */
export function closedIfPastDeadline<S extends string>(status: S, deadline: string | null, today: string): S | 'closed' {
  return deadline !== null && deadline < today ? 'closed' : status;
}

/** `states` and the legacy `geography` text together: no states means national. */
export function placeOf(states: readonly StateCode[], international = false): { states: StateCode[]; geography: string } {
  const unique = [...new Set(states)];
  if (unique.length === 0) return { states: [], geography: international ? 'International' : 'National' };
  if (unique.length === 1) return { states: unique, geography: US_STATE_NAMES[unique[0]!] };
  return { states: unique, geography: `Multi-state: ${unique.join(', ')}` };
}
