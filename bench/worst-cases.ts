import { type BenchHeaders, probe } from './scenarios';

/**
 * Bad input at its costliest (issue 24): the deepest offsets and cursors the API allows, and
 * searches that match most of the catalogue, sorted and faceted. One connection, one request at
 * a time, so each figure is one request's own latency. Every request is distinct (a sub-dollar
 * min_amount), so no result cache answers; the first request of each case is reported apart,
 * since it also pays for what later ones reuse (a text's ranking, a field order after a write).
 */

export interface WorstCase {
  name: string;
  /** Path and query under the API's base URL; n makes request n distinct. */
  path: (n: number) => string;
}

export interface WorstCaseResult {
  name: string;
  request: string;
  total: number;
  firstMs: number;
  p50Ms: number;
  maxMs: number;
  requests: number;
}

const distinct = (n: number) => `&min_amount=${(n + 1) / 1e6}`;

export const WORST_CASES: WorstCase[] = [
  { name: 'list, offset 10,000, by deadline', path: (n) => `/grants-api?offset=10000&limit=100&sort_by=deadline_date&order=asc${distinct(n)}` },
  { name: 'list of every type, offset 10,000, by title', path: (n) => `/grants-api?opportunity_type=all&offset=10000&limit=100&sort_by=title${distinct(n)}` },
  {
    name: 'keyword search matching most grants, offset 10,000',
    path: (n) => `/grants-api?search=program%20funding%20support&opportunity_type=all&offset=10000&limit=100${distinct(n)}`,
  },
  {
    name: 'keyword search matching most grants, by deadline, offset 10,000',
    path: (n) => `/grants-api?search=program%20funding%20support&opportunity_type=all&sort_by=deadline_date&offset=10000&limit=100${distinct(n)}`,
  },
  {
    name: 'semantic search matching most grants, offset 10,000',
    path: (n) => `/grants-api?search=funding%20for%20programs&search_mode=semantic&opportunity_type=all&offset=10000&limit=100${distinct(n)}`,
  },
  {
    name: 'hybrid search matching most grants, offset 10,000',
    path: (n) => `/grants-api?search=program%20funding%20support&search_mode=hybrid&opportunity_type=all&offset=10000&limit=100${distinct(n)}`,
  },
  {
    name: 'keyword search matching most grants, every facet',
    path: (n) => `/grants-api?search=program%20funding%20support&opportunity_type=all&facets=category,states,funder,status${distinct(n)}`,
  },
];

const REQUESTS_PER_CASE = 20;
/** Cursor pages of 100 followed from the first: the walk reaches record 10,000, as deep as offsets go. */
const CURSOR_PAGES = 100;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timedPage(url: string, headers: BenchHeaders): Promise<{ ms: number; body: { pagination?: { total?: number; next_cursor?: string } } }> {
  const started = performance.now();
  const response = await probe(url, headers);
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`${url}: status ${response.status}: ${response.body.toString('utf8').slice(0, 300)}`);
  return { ms, body: JSON.parse(response.body.toString('utf8')) };
}

export async function measureWorstCases(baseUrl: string, headers: BenchHeaders): Promise<WorstCaseResult[]> {
  const results: WorstCaseResult[] = [];
  for (const worst of WORST_CASES) {
    const times: number[] = [];
    let total = 0;
    for (let n = 0; n < REQUESTS_PER_CASE; n++) {
      const page = await timedPage(`${baseUrl}${worst.path(n)}`, headers);
      times.push(page.ms);
      total = page.body.pagination?.total ?? 0;
    }
    const [first, ...rest] = times;
    results.push({ name: worst.name, request: worst.path(0), total, firstMs: first!, p50Ms: median(rest), maxMs: Math.max(...rest), requests: times.length });
  }
  results.push(await deepCursor(baseUrl, headers));
  return results;
}

/** A cursor walk of every grant of every type by deadline, 100 a page, to record 10,000: each page's latency. */
async function deepCursor(baseUrl: string, headers: BenchHeaders): Promise<WorstCaseResult> {
  const request = '/grants-api?opportunity_type=all&sort_by=deadline_date&limit=100';
  const times: number[] = [];
  let url = `${baseUrl}${request}`;
  let total = 0;
  for (let page = 0; page < CURSOR_PAGES; page++) {
    const { ms, body } = await timedPage(url, headers);
    times.push(ms);
    total = body.pagination?.total ?? 0;
    const next = body.pagination?.next_cursor;
    if (!next) break;
    url = `${baseUrl}${request}&cursor=${encodeURIComponent(next)}`;
  }
  const [first, ...rest] = times;
  return {
    name: `cursor walk to record ${(times.length * 100).toLocaleString('en-US')}, by deadline (each page)`,
    request,
    total,
    firstMs: first!,
    p50Ms: median(rest),
    maxMs: Math.max(...rest),
    requests: times.length,
  };
}
