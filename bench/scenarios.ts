import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './child-processes';
/** The requests the bench measures. */

export type ScenarioName =
  | 'baseline'
  | 'filtered'
  | 'filtered-distinct'
  | 'search'
  | 'search-distinct'
  | 'search-new-text'
  | 'semantic'
  | 'semantic-distinct'
  | 'semantic-new-text'
  | 'hybrid'
  | 'hybrid-distinct'
  | 'hybrid-new-text';

export interface Scenario {
  name: ScenarioName;
  /** Which of the targets the scenario is held to. */
  family: 'baseline' | 'filtered' | 'search' | 'semantic' | 'hybrid';
  label: string;
  /** Path and query under the server's base URL (empty for the baseline, which serves any path). */
  path: string;
  /**
   * For the "distinct" variants: a parameter that makes request n's query unique, so a result
   * cache in the server cannot answer it, while every n gets the same answer (the bench checks:
   * same total, same page) from the same query plan.
   */
  distinct?: {
    suffix: (n: number) => string;
    description: string;
    /** Whether the answer also equals the repeated-URL scenario's; false when the parameter filters a little. */
    sameAnswerAsRepeated: boolean;
    /** Every request a search text never sent before: the answers differ, and the query's vector is computed for each. */
    newText?: true;
    /** The path the suffix goes on, when not `path` (which must answer alone, for the bench's probe). */
    path?: string;
  };
}

/**
 * A two-word query a user would type that occurs across several topics of the synthetic
 * catalogue (community health workers, community health centres, community-based programmes), so
 * it matches about 8% of grants and BM25 ranks hundreds to thousands of rows: the costly end of
 * keyword search rather than a needle.
 */
export const SEARCH_TEXT = 'community health';

const DAY_MS = 86_400_000;
/** A century of days: more distinct queries than any result cache the index might keep. */
const DISTINCT_DAYS = 36_500;

function nthDay(firstDay: string, n: number): string {
  return new Date(Date.parse(`${firstDay}T00:00:00Z`) + (n % DISTINCT_DAYS) * DAY_MS).toISOString().slice(0, 10);
}

/** A distinct suffix that leaves a search's answer as it is: under $1, min_amount only drops grants with no stated maximum. */
const subDollarMinAmount = {
  suffix: (n: number) => `&min_amount=${((n % 999_999) + 1) / 1e6}`,
  description: '`&min_amount=` a different amount under $1 per request (drops grants with no stated maximum)',
  sameAnswerAsRepeated: false,
} as const;

/**
 * Search texts no request has sent before (n up to 54,432 of them): a topic users type (the
 * grant queries of the search quality set, the api part's text and one-word topics) with two more
 * words after it. The words themselves repeat, as a language's do, so their postings are read
 * from FTS5 once; every text's vector is computed by the model, and every ranking made afresh.
 * The topics are read once: the generator runs in the load generator's process, once a request.
 */
export function newSearchText(n: number): string {
  const topics = (cachedTopics ??= searchTexts());
  const extra = Math.floor(n / topics.length);
  return `${topics[n % topics.length]} ${MORE_WORDS[extra % MORE_WORDS.length]} ${MORE_WORDS[Math.floor(extra / MORE_WORDS.length) % MORE_WORDS.length]}`;
}

let cachedTopics: string[] | undefined;
/** Topical words, as a seeker adds to a topic: the first twelve are those of the runs before issue 24's second step. */
const MORE_WORDS = [
  'rural',
  'youth',
  'research',
  'training',
  'water',
  'energy',
  'school',
  'housing',
  'tribal',
  'arts',
  'veterans',
  'climate',
  'wildlife',
  'forest',
  'fisheries',
  'transit',
  'broadband',
  'literacy',
  'nutrition',
  'opioid',
  'museum',
  'library',
  'coastal',
  'drought',
  'maternal',
  'disability',
  'immigrant',
  'seniors',
  'farmers',
  'apprenticeship',
  'cybersecurity',
  'flood',
  'wetlands',
  'vaccine',
  'homeless',
  'tourism',
];

/**
 * What users type: the 31 grant queries of the search quality set (bench/search-eval/queries.json,
 * written for ../shared/data), the api part's "community health", and one-word topics of the
 * synthetic catalogue.
 */
export function searchTexts(): string[] {
  const { queries } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'bench', 'search-eval', 'queries.json'), 'utf8')) as {
    queries: { kind: string; query: string }[];
  };
  const labelled = queries.filter((q) => q.kind === 'grant').map((q) => q.query);
  const topics = [
    'broadband',
    'police',
    'wildfire',
    'opioid',
    'teacher training',
    'watershed restoration',
    'transit',
    'affordable housing',
    'veterans',
    'apprenticeship',
  ];
  return [SEARCH_TEXT, ...labelled, ...topics];
}

const newText = {
  suffix: (n: number) => `&search=${encodeURIComponent(newSearchText(n))}`,
  description:
    '`&search=` a text never sent before (a topic and two more words, e.g. "wildfire youth energy"), so its vector is computed and its ranking made for that request',
  sameAnswerAsRepeated: false,
  newText: true,
} as const;

/** Request n of a distinct variant. */
export function distinctPath(scenario: Scenario, n: number): string {
  return `${scenario.distinct!.path ?? scenario.path}${scenario.distinct!.suffix(n)}`;
}

const newTextScenario = (name: ScenarioName, family: 'search' | 'semantic' | 'hybrid', mode: string, label: string): Scenario => ({
  name,
  family,
  label,
  // Alone (for the bench's probe), the api part's text; each request of the run, a new one.
  path: `/grants-api?search_mode=${mode}&search=${encodeURIComponent(SEARCH_TEXT)}`,
  distinct: { ...newText, path: `/grants-api?search_mode=${mode}` },
});

export function scenarios(todayUtc: string): Scenario[] {
  const filtered = `/grants-api?states=CA,NY&include_national=true&deadline_after=${todayUtc}&sort_by=deadline_date&order=asc`;
  const search = `/grants-api?search=${encodeURIComponent(SEARCH_TEXT)}`;
  const semantic = `${search}&search_mode=semantic`;
  const hybrid = `${search}&search_mode=hybrid`;
  return [
    { name: 'baseline', family: 'baseline', label: 'bare node:http, fixed 20-record page', path: '' },
    { name: 'filtered', family: 'filtered', label: 'filtered list (CA/NY + national, open deadlines, by deadline), same URL every request', path: filtered },
    {
      name: 'filtered-distinct',
      family: 'filtered',
      label: 'the same filtered list, every request a distinct query',
      path: filtered,
      // Deadlines in the catalogue lie within a few years of today, so any bound after 2100 is a
      // no-op, and the planner still walks the same (awarded, deadline_date) index range.
      distinct: {
        suffix: (n) => `&deadline_before=${nthDay('2100-01-01', n)}`,
        description: '`&deadline_before=` a different day after 2100 per request (no-op)',
        sameAnswerAsRepeated: true,
      },
    },
    { name: 'search', family: 'search', label: `keyword search "${SEARCH_TEXT}", same URL every request`, path: search },
    {
      name: 'search-distinct',
      family: 'search',
      label: `the same keyword search, every request a distinct query`,
      path: search,
      // Not posted_after or a deadline bound: with those the planner drives the query from a
      // grant_rows index and runs the FTS match per row, a different and far slower plan. A
      // min_amount under $1 keeps the FTS-driven plan; it drops the grants with no stated maximum
      // (every stated amount is in whole dollars, at least $5,000) and nothing else.
      distinct: subDollarMinAmount,
    },
    newTextScenario(
      'search-new-text',
      'search',
      'keyword',
      'keyword search, every request a text never sent before (its BM25 ranking is made for that request; keyword search embeds nothing)',
    ),
    { name: 'semantic', family: 'semantic', label: `semantic search "${SEARCH_TEXT}" (exact k-NN over every grant), same URL every request`, path: semantic },
    {
      name: 'semantic-distinct',
      family: 'semantic',
      label: 'the same semantic search, every request a distinct query',
      path: semantic,
      // The filter changes per request, so neither the ranking nor the filter mask can come from a cache.
      distinct: subDollarMinAmount,
    },
    newTextScenario('semantic-new-text', 'semantic', 'semantic', 'semantic search, every request a text never sent before (the model embeds each)'),
    { name: 'hybrid', family: 'hybrid', label: `hybrid search "${SEARCH_TEXT}" (BM25 and k-NN lists fused), same URL every request`, path: hybrid },
    {
      name: 'hybrid-distinct',
      family: 'hybrid',
      label: 'the same hybrid search, every request a distinct query',
      path: hybrid,
      distinct: subDollarMinAmount,
    },
    newTextScenario('hybrid-new-text', 'hybrid', 'hybrid', 'hybrid search, every request a text never sent before (the model embeds each)'),
  ];
}

/** The page the baseline serves: the API's default first page of 20 grants, byte for byte. */
export const BASELINE_PAGE_PATH = '/grants-api?limit=20';

export interface ProbedResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

/** Request headers every bench request carries: the API's developer key (unlimited quota); the baseline gets them too. */
export type BenchHeaders = Record<string, string>;

export async function probe(url: string, headers: BenchHeaders = {}): Promise<ProbedResponse> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', body };
}

/** One request before any load: it must be a 200 list page with results, or the bench stops. */
export interface ListPageFacts {
  total: number;
  /** The page's record ids, in order. */
  ids: string[];
  bytes: number;
}

export async function probeListPage(url: string, headers: BenchHeaders): Promise<ListPageFacts> {
  const { status, body } = await probe(url, headers);
  if (status !== 200) throw new Error(`${url}: status ${status}: ${body.toString('utf8').slice(0, 500)}`);
  const page = JSON.parse(body.toString('utf8')) as { pagination?: { total?: number }; results?: { id: string }[] };
  const total = page.pagination?.total;
  const ids = (page.results ?? []).map((record) => record.id);
  if (total === undefined) throw new Error(`${url}: no pagination.total in the response`);
  if (ids.length === 0) throw new Error(`${url}: no results (total ${total}); the scenario would measure an empty page`);
  return { total, ids, bytes: body.length };
}

export async function countGrants(baseUrl: string, query: string, headers: BenchHeaders): Promise<number> {
  const { status, body } = await probe(`${baseUrl}/grants-api?count_only=true${query}`, headers);
  if (status !== 200) throw new Error(`count ${query}: status ${status}`);
  return (JSON.parse(body.toString('utf8')) as { pagination: { total: number } }).pagination.total;
}
