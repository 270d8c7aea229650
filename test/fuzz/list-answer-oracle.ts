import type { Contract, Grant } from '../../lambdas/core/records';
import { matches, type Opportunity, sortRecords } from '../support/oracle';

/**
 * What the fuzzer checks of a list answer beyond its status: a 200 from the grant or contract
 * list holds exactly the records the test oracle (test/support/oracle.ts) says its filters keep,
 * in its order, with its total. A search ranks and floors its matches, so then every result must
 * pass the filters and the total cannot exceed the filtered count. A filter whose meaning the
 * oracle does not state (a place name in geography, `national` among the states) is not judged.
 */

export interface FuzzCatalogue {
  today: string;
  grant: readonly Grant[];
  contract: readonly Contract[];
}

const LIST_PATH = /\/(grants|contracts)-api\/?$/;
const PAGE_PARAMS = new Set(['limit', 'offset', 'sort_by', 'order', 'count_only', 'facets', 'format', 'cursor', 'search', 'search_mode']);
const ORACLE_GEOGRAPHY = new Set(['national', 'international', 'local', 'state', 'texas', 'california', 'new york']);
const TRUE_WORDS = new Set(['true', '1']);

const items = (value: string, normal: (item: string) => string) =>
  value
    .split(',')
    .map((item) => normal(item.trim()))
    .join(',');

/** The parameters as the service normalises them (case, spaces), or null when the oracle cannot judge them. */
function oracleParams(params: URLSearchParams): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const [name, raw] of params) {
    const value = raw.trim();
    switch (name) {
      case 'status':
        out[name] = items(value, (s) => s.toLowerCase());
        break;
      case 'opportunity_type':
        out[name] = value.toLowerCase();
        break;
      case 'include_national':
        out[name] = TRUE_WORDS.has(value.toLowerCase()) ? 'true' : 'false';
        break;
      case 'states':
        if (value.split(',').some((s) => s.trim().toLowerCase() === 'national')) return null;
        out[name] = items(value, (s) => s.toUpperCase());
        break;
      case 'set_aside':
        out[name] = items(value, (s) => s.toUpperCase());
        break;
      case 'naics':
        out[name] = items(value, (s) => s);
        break;
      case 'geography':
        if (!ORACLE_GEOGRAPHY.has(value.toLowerCase())) return null;
        out[name] = value;
        break;
      default:
        out[name] = value;
    }
  }
  return out;
}

/** Why a 200 list answer is wrong, or null when it is right (or not one the oracle judges). */
export function listAnswerProblem(target: string, body: string, catalogue: FuzzCatalogue): string | null {
  const url = new URL(target, 'http://fuzz.invalid');
  const path = LIST_PATH.exec(url.pathname);
  if (!path) return null;
  const kind = path[1] === 'grants' ? 'grant' : 'contract';
  const given = oracleParams(url.searchParams);
  if (!given) return null;
  const filters = Object.fromEntries(Object.entries(given).filter(([name]) => !PAGE_PARAMS.has(name)));
  const answer = JSON.parse(body) as { results?: Opportunity[]; pagination: { total: number; total_relation?: string } };
  const expected = (catalogue[kind] as readonly Opportunity[]).filter((record) => matches(record, filters, catalogue.today));
  const results = answer.results ?? [];
  const outside = results.find((record) => !matches(record, filters, catalogue.today));
  if (outside) return `result ${outside.id} does not pass the filters ${JSON.stringify(filters)}`;
  if (given.search !== undefined) {
    return answer.pagination.total <= expected.length
      ? null
      : `a search's total ${answer.pagination.total} exceeds the ${expected.length} records its filters keep`;
  }
  if (answer.pagination.total !== expected.length || (answer.pagination.total_relation ?? 'eq') !== 'eq') {
    return `total ${answer.pagination.total} (${answer.pagination.total_relation}), the oracle counts ${expected.length} for ${JSON.stringify(filters)}`;
  }
  if (answer.results === undefined) return null;
  const offset = Number(given.offset ?? 0);
  const limit = Number(given.limit ?? 20);
  const order = (given.order?.toLowerCase() ?? 'desc') as 'asc' | 'desc';
  const page = sortRecords(expected, given.sort_by?.toLowerCase() ?? 'created_at', order)
    .slice(offset, offset + limit)
    .map((record) => record.id);
  const ids = results.map((record) => record.id);
  return JSON.stringify(ids) === JSON.stringify(page)
    ? null
    : `page ${JSON.stringify(ids.slice(0, 5))}… is not the oracle's ${JSON.stringify(page.slice(0, 5))}…`;
}
