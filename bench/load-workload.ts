import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GRANT_CATEGORY_NAMES } from '../lambdas/core/categories';
import { US_STATE_CODES } from '../lambdas/core/geo';
import { seededRandom } from '../local/seeded-random';
import { PROJECT_ROOT } from './child-processes';
import { DISTINCT_MISSION_SUFFIX, MATCH_PROFILES } from './match';
import { BASELINE_PAGE_PATH, type BenchHeaders, SEARCH_TEXT, scenarios, searchTexts } from './scenarios';

export { searchTexts };

/**
 * The mixed workload of `npm run bench:load`: what each kind of request is, how many of the run's
 * connections it gets, and the request generators. Every kind runs as its own autocannon instance
 * (its own connections, its own latency record), all at once against one API server, so every
 * request is attributed to its kind.
 */

export const LOAD_KINDS = ['list', 'search', 'semantic', 'hybrid', 'get', 'match'] as const;
export type LoadKind = (typeof LOAD_KINDS)[number];

/** Shares of the connections, out of 12 (the default). */
const WEIGHTS: Readonly<Record<LoadKind, number>> = { list: 3, search: 2, semantic: 1, hybrid: 1, get: 4, match: 1 };
export const DEFAULT_LOAD_CONNECTIONS = Object.values(WEIGHTS).reduce((a, b) => a + b, 0);

export const LOAD_KIND_LABELS: Readonly<Record<LoadKind, string>> = {
  list: 'GET /grants-api with filters',
  search: 'GET /grants-api?search= (keyword, BM25)',
  semantic: 'GET /grants-api?search=&search_mode=semantic (exact k-NN)',
  hybrid: 'GET /grants-api?search=&search_mode=hybrid',
  get: 'GET /grants-api/{id}',
  match: 'POST /match-grants-api',
};

/**
 * Connections per kind for a total: proportional to the weights (largest remainder), at least one
 * each, summing to the total. The default 12 gives the weights themselves.
 */
export function splitConnections(total: number): Record<LoadKind, number> {
  if (!Number.isInteger(total) || total < LOAD_KINDS.length) {
    throw new Error(`the load run needs at least ${LOAD_KINDS.length} connections (one per kind), got ${total}`);
  }
  const exact = LOAD_KINDS.map((kind) => (total * WEIGHTS[kind]) / DEFAULT_LOAD_CONNECTIONS);
  const split = exact.map((x) => Math.max(1, Math.floor(x)));
  const share = (i: number) => exact[i]! - split[i]!;
  // Short: the kinds furthest below their exact share get one more; over (the minimum of one):
  // the kinds furthest above theirs give one back.
  for (let diff = total - split.reduce((a, b) => a + b, 0); diff !== 0; diff += diff > 0 ? -1 : 1) {
    const candidates = LOAD_KINDS.map((_, i) => i).filter((i) => diff > 0 || split[i]! > 1);
    const best = candidates.reduce((a, b) => ((diff > 0 ? share(b) > share(a) : share(b) < share(a)) ? b : a));
    split[best]! += diff > 0 ? 1 : -1;
  }
  return Object.fromEntries(LOAD_KINDS.map((kind, i) => [kind, split[i]!])) as Record<LoadKind, number>;
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** MATCH_PROFILES (bench/match.ts) and the 41 labelled profiles of bench/match-eval/profiles.json. */
export function matchBodies(): object[] {
  const { profiles } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'bench', 'match-eval', 'profiles.json'), 'utf8')) as { profiles: { request: object }[] };
  return [...MATCH_PROFILES, ...profiles.map((p) => p.request)];
}

export interface LoadRequest {
  method: 'GET' | 'POST';
  /** Path and query under the server's base URL, e.g. /grants-api?limit=20. */
  path: string;
  body?: string;
}

export interface Workload {
  /** The next request of each kind. */
  next: Record<LoadKind, () => LoadRequest>;
  /** How each kind varies its requests, for the report. */
  describe: Record<LoadKind, string>;
}

const GRANT_SORTS = ['created_at', 'deadline_date', 'amount_max', 'title'] as const;
const AMOUNTS = [10_000, 50_000, 100_000, 250_000, 1_000_000] as const;
const DAY_MS = 86_400_000;

function addDays(isoDate: string, days: number): string {
  return new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

function query(params: [string, string | number][]): string {
  return params.map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&');
}

/** One or a few states, and national grants half the time. */
function stateParams(random: () => number): [string, string][] {
  const count = 1 + Math.floor(random() * 3);
  const states = new Set<string>();
  while (states.size < count) states.add(pick(random, US_STATE_CODES.slice(0, 51)));
  const params: [string, string][] = [['states', [...states].join(',')]];
  if (random() < 0.5) params.push(['include_national', 'true']);
  return params;
}

/**
 * The request generators. About a fifth of each search kind's requests, and a quarter of the
 * lists, repeat the api part's scenario URLs (a popular query, which the index's result cache
 * answers); the rest draw text, filters, sort and page at random, so most are queries the server
 * has not seen and the caches keep evicting. Get-by-id picks among `ids`; matching rotates the
 * profiles and makes every other mission unique.
 */
export function workload(today: string, ids: readonly string[], texts: readonly string[], bodies: readonly object[], seed = 1): Workload {
  const byName = Object.fromEntries(scenarios(today).map((s) => [s.name, s.path]));
  const categories = Object.values(GRANT_CATEGORY_NAMES);

  const listRandom = seededRandom(seed * 101);
  const list = (): LoadRequest => {
    const r = listRandom;
    if (r() < 0.25) return { method: 'GET', path: r() < 0.5 ? byName.filtered! : BASELINE_PAGE_PATH };
    const params: [string, string | number][] = [];
    if (r() < 0.6) params.push(...stateParams(r));
    if (r() < 0.3) params.push(['category', pick(r, categories)]);
    if (r() < 0.4) params.push(['deadline_after', today]);
    if (r() < 0.2) params.push(['deadline_before', addDays(today, 30 + Math.floor(r() * 700))]);
    if (r() < 0.2) params.push(['min_amount', pick(r, AMOUNTS)]);
    if (r() < 0.1) params.push(['opportunity_type', 'all']);
    if (r() < 0.7) params.push(['sort_by', pick(r, GRANT_SORTS)], ['order', r() < 0.5 ? 'asc' : 'desc']);
    params.push(['limit', pick(r, [10, 20, 20, 50, 100])]);
    if (r() < 0.3) params.push(['offset', pick(r, [20, 40, 100, 500])]);
    return { method: 'GET', path: `/grants-api?${query(params)}` };
  };

  const searchOf = (mode: 'keyword' | 'semantic' | 'hybrid', random: () => number) => (): LoadRequest => {
    const r = random;
    const popular = mode === 'keyword' ? byName.search! : byName[mode]!;
    if (r() < 0.2) return { method: 'GET', path: popular };
    const params: [string, string | number][] = [['search', pick(r, texts)]];
    if (mode !== 'keyword') params.push(['search_mode', mode]);
    const filter = r();
    if (filter < 0.3) params.push(...stateParams(r));
    else if (filter < 0.45) params.push(['min_amount', pick(r, AMOUNTS)]);
    else if (filter < 0.6) params.push(['deadline_after', today]);
    if (r() < 0.15) params.push(['offset', 20]);
    return { method: 'GET', path: `/grants-api?${query(params)}` };
  };

  const getRandom = seededRandom(seed * 103);
  const get = (): LoadRequest => ({ method: 'GET', path: `/grants-api/${encodeURIComponent(pick(getRandom, ids))}` });

  const bodyTexts = bodies.map((b) => JSON.stringify(b));
  let matches = 0;
  const match = (): LoadRequest => {
    const n = matches++;
    const i = Math.floor(n / 2) % bodies.length;
    // Odd requests: the same profile with " #<n>." on its mission, a query no cache has seen.
    if (n % 2 === 0) return { method: 'POST', path: '/match-grants-api', body: bodyTexts[i]! };
    const body = bodies[i] as { profile: { mission: string } };
    return {
      method: 'POST',
      path: '/match-grants-api',
      body: JSON.stringify({ ...body, profile: { ...body.profile, mission: body.profile.mission + DISTINCT_MISSION_SUFFIX(n) } }),
    };
  };

  const searchNote = (mode: string) =>
    `one of ${texts.length} texts${mode}; 20% the api part's "${SEARCH_TEXT}" URL, else 30% 1-3 states (national half the time), 15% a minimum amount, 15% open deadlines, 15% page 2`;
  return {
    next: {
      list,
      search: searchOf('keyword', seededRandom(seed * 107)),
      semantic: searchOf('semantic', seededRandom(seed * 109)),
      hybrid: searchOf('hybrid', seededRandom(seed * 113)),
      get,
      match,
    },
    describe: {
      list: "25% the api part's filtered list or the default first page; else random states (60%), category (30%), deadline bounds, minimum amount, opportunity type, sort and order, page size 10-100, offsets up to 500",
      search: searchNote(''),
      semantic: searchNote(', search_mode=semantic'),
      hybrid: searchNote(', search_mode=hybrid'),
      get: `a random one of ${ids.length.toLocaleString('en-US')} grant ids read from the catalogue before the run (open, closed and awarded)`,
      match: `${bodies.length} profiles in rotation (bench/match.ts's ${MATCH_PROFILES.length} and the ${bodies.length - MATCH_PROFILES.length} of bench/match-eval/profiles.json); every other request's mission made unique`,
    },
  };
}

interface ListPage {
  results: { id: string }[];
  pagination: { total: number };
}

async function getJson<T>(url: string, headers: BenchHeaders): Promise<T> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(60_000) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url}: status ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/**
 * Real grant ids, read through the API before the run: pages of 100 across four sort orders,
 * both directions, at offsets up to the API's 10,000, so they come from all over the catalogue.
 */
export async function sampleGrantIds(baseUrl: string, headers: BenchHeaders): Promise<string[]> {
  const ids = new Set<string>();
  for (const sort of GRANT_SORTS) {
    for (const order of ['asc', 'desc']) {
      for (const offset of [0, 2_500, 5_000, 7_500, 9_900]) {
        const page = await getJson<ListPage>(`${baseUrl}/grants-api?opportunity_type=all&sort_by=${sort}&order=${order}&limit=100&offset=${offset}`, headers);
        for (const { id } of page.results) ids.add(id);
      }
    }
  }
  if (ids.size === 0) throw new Error('no grant ids: the catalogue is empty');
  return [...ids];
}

/** How many of the texts a keyword search finds at least one grant for (the rest answer an empty page). */
export async function countTextsWithKeywordMatches(baseUrl: string, texts: readonly string[], headers: BenchHeaders): Promise<number> {
  let found = 0;
  for (const text of texts) {
    const page = await getJson<ListPage>(`${baseUrl}/grants-api?count_only=true&search=${encodeURIComponent(text)}`, headers);
    if (page.pagination.total > 0) found++;
  }
  return found;
}
