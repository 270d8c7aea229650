import type { FieldIssue } from '../errors';

/**
 * Names a request gives that the endpoint does not take: each is a 400 naming it (DESIGN.md
 * section 3), so a typo never widens a query silently. A near miss, or a name other APIs use for
 * one of ours, gets a "did you mean".
 */

/** Enough to fix a request by; a request with hundreds of made-up names gets the first ones. */
const MAX_ISSUES = 20;
const MAX_NAME_ECHO = 60;

/** Names other search APIs use, and the parameter of ours that does the same. */
const CONVENTIONS: Readonly<Record<string, string>> = {
  q: 'search',
  query: 'search',
  keyword: 'search',
  keywords: 'search',
  text: 'search',
  term: 'search',
  mode: 'search_mode',
  page_size: 'limit',
  per_page: 'limit',
  size: 'limit',
  page: 'cursor',
  start: 'offset',
  skip: 'offset',
  sort: 'sort_by',
  order_by: 'sort_by',
  sort_order: 'order',
  direction: 'order',
  state: 'states',
  type: 'opportunity_type',
};

/** Edits (insert, delete, substitute, swap two neighbours) between two short names. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The known name a given one most likely meant, if any is close enough to suggest. */
export function closestName(given: string, known: readonly string[]): string | undefined {
  const name = given
    .trim()
    .toLowerCase()
    .replace(/[-\s]+/g, '_');
  if (known.includes(name)) return name;
  const convention = CONVENTIONS[name];
  if (convention && known.includes(convention)) return convention;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance <= Math.max(1, Math.floor(candidate.length / 4)) && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  if (best || name.length < 3) return best?.name;
  // A shortened name ("stat", "budget") means the one known name that starts with it or holds it as a word.
  const holders = known.filter((candidate) => candidate.startsWith(name) || candidate.split('_').includes(name));
  return holders.length === 1 ? holders[0] : undefined;
}

/**
 * One issue per name given that is not known. `what` says where the names belong ("a parameter
 * of the grant list", "a field of profile"); `prefix` is put before each field (a body's path).
 */
export function unknownNameIssues(given: Iterable<string>, known: readonly string[], what: string, prefix = ''): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const name of given) {
    if (known.includes(name)) continue;
    if (issues.length === MAX_ISSUES) break;
    const suggestion = closestName(name, known);
    const hint = suggestion ? `; did you mean ${suggestion}?` : known.length > 0 ? ` (it takes: ${known.join(', ')})` : ' (it takes none)';
    issues.push({ field: `${prefix}${clipName(name)}`, issue: `is not ${what}${hint}` });
  }
  return issues;
}

/** A name echoed back in an error is cut short and stripped of control characters. */
function clipName(name: string): string {
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > MAX_NAME_ECHO ? `${clean.slice(0, MAX_NAME_ECHO)}…` : clean;
}
