/** The requests the bench measures. */

export type ScenarioName = 'baseline' | 'filtered' | 'search';

export interface Scenario {
  name: ScenarioName;
  label: string;
  /** Path and query under the server's base URL (empty for the baseline, which serves any path). */
  path: string;
}

/**
 * Two words that occur across several topics of the synthetic catalogue (rural populations,
 * health programmes), so the query matches a sizeable share of grants and BM25 ranks many rows:
 * the expensive end of keyword search, not a needle.
 */
export const SEARCH_TEXT = 'rural health';

export function scenarios(todayUtc: string): Scenario[] {
  return [
    { name: 'baseline', label: 'bare node:http, fixed 20-record page', path: '' },
    {
      name: 'filtered',
      label: 'filtered list (CA/NY + national, open deadlines, by deadline)',
      path: `/grants-api?states=CA,NY&include_national=true&deadline_after=${todayUtc}&sort_by=deadline_date&order=asc`,
    },
    { name: 'search', label: `keyword search "${SEARCH_TEXT}"`, path: `/grants-api?search=${encodeURIComponent(SEARCH_TEXT)}` },
  ];
}

/** The page the baseline serves: the API's default first page of 20 grants, byte for byte. */
export const BASELINE_PAGE_PATH = '/grants-api?limit=20';

export interface ProbedResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

export async function probe(url: string): Promise<ProbedResponse> {
  const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', body };
}

/** One request before any load: it must be a 200 list page with results, or the bench stops. */
export async function probeListPage(url: string): Promise<{ total: number; returned: number; bytes: number }> {
  const { status, body } = await probe(url);
  if (status !== 200) throw new Error(`${url}: status ${status}: ${body.toString('utf8').slice(0, 500)}`);
  const page = JSON.parse(body.toString('utf8')) as { pagination?: { total?: number; returned?: number } };
  const total = page.pagination?.total;
  const returned = page.pagination?.returned ?? 0;
  if (total === undefined) throw new Error(`${url}: no pagination.total in the response`);
  if (returned === 0) throw new Error(`${url}: no results (total ${total}); the scenario would measure an empty page`);
  return { total, returned, bytes: body.length };
}

export async function countGrants(baseUrl: string, query: string): Promise<number> {
  const { status, body } = await probe(`${baseUrl}/grants-api?count_only=true${query}`);
  if (status !== 200) throw new Error(`count ${query}: status ${status}`);
  return (JSON.parse(body.toString('utf8')) as { pagination: { total: number } }).pagination.total;
}
