import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteEmbeddingCache } from '../../lambdas/adapters/embedded/sqlite-embedding-cache';
import type { Contract, Grant } from '../../lambdas/core/records';
import { HYBRID_SEMANTIC_WEIGHT } from '../../lambdas/core/search/fusion';
import { keywordTermsOf } from '../../lambdas/core/search/keyword-query';
import { FLOOR_SPREAD, SHORT_QUERY_WORDS } from '../../lambdas/core/search/query-floor';
import { FLOOR_RELEVANCE, LEXICAL_FLOOR_RELEVANCE, relevanceOfCosine, type SimilarityScale, similarityScaleOf } from '../../lambdas/core/search/relevance';
import { embedRecords } from '../../lambdas/core/use-cases/embed-records';
import type { Embedder } from '../../lambdas/ports/embedder';
import { loadLocalEmbedder } from '../../local/local-embedder';
import { seededRecords, startTestApi, TEST_CATALOGUE, type TestApi } from '../support/api-server';
import { matches, sortRecords } from '../support/oracle';

/**
 * Semantic and hybrid search over real HTTP on the embedded stack (the sentence-embedding model,
 * exact k-NN), checked against an oracle: every record of the seeded catalogue embedded with the
 * same model (its vectors read back from the test run's embedding cache), filtered by the
 * plain-code list semantics, and cut at the floor. Filters must apply inside the k-NN search, so
 * the whole matching set (not a top-k) must come back, page after page.
 */

let api: TestApi;
let today: string;
let grants: Grant[];
let contracts: Contract[];
let embedder: Embedder;
let floor: number;
let scale: SimilarityScale;
let vectorCache: SqliteEmbeddingCache;
/** Lets a test take the embedding model down after the catalogue was indexed. */
const outage = { on: false };

beforeAll(async () => {
  const model = await loadLocalEmbedder();
  embedder = model;
  const flaky: Embedder = {
    space: model.space,
    embed: (texts, purpose) => (outage.on ? Promise.reject(new Error('model endpoint unreachable')) : model.embed(texts, purpose)),
  };
  api = await startTestApi({ seed: TEST_CATALOGUE, embedder: flaky });
  floor = api.stack.services.semanticFloor;
  scale = similarityScaleOf(model.space, floor);
  vectorCache = new SqliteEmbeddingCache(process.env.GCF_EMBEDDING_CACHE ?? ':memory:');
  ({ today, grants, contracts } = seededRecords(api.stack));
});
afterAll(async () => {
  vectorCache?.close();
  await api?.close();
});

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/**
 * The query's floor (query-floor.ts) for a query the model alone answers: its best cosine over the
 * whole kind (every record, no filter) reaches the floor of its length, and its matches reach
 * FLOOR_SPREAD below that best, never under the lexical floor.
 */
async function queryFloorOf(kind: 'grant' | 'contract', text: string): Promise<number> {
  const records: (Grant | Contract)[] = kind === 'grant' ? grants : contracts;
  const [query] = await embedder.embed([text], 'query');
  const vectors = await embedRecords(kind, records, { embedder, cache: vectorCache });
  const best = Math.max(...vectors.map((vector) => (vector ? dot(vector, query!) : -Infinity)));
  const classFloor = keywordTermsOf(text).length <= SHORT_QUERY_WORDS ? scale.shortFloor : scale.floor;
  expect(best, `"${text}" is answered on similarity alone`).toBeGreaterThanOrEqual(classFloor);
  return Math.max(scale.lexicalFloor, best - FLOOR_SPREAD);
}

/** The semantic matches the interface promises: filtered, at or above the query's floor (or another cosine), best first, ties by id. */
async function expectedSemantic(
  kind: 'grant' | 'contract',
  text: string,
  params: Record<string, string> = {},
  minCosine?: number,
): Promise<{ id: string; cosine: number }[]> {
  const records: (Grant | Contract)[] = kind === 'grant' ? grants : contracts;
  const [query] = await embedder.embed([text], 'query');
  if (!query) return [];
  const least = minCosine ?? (await queryFloorOf(kind, text));
  const kept = records.filter((record) => matches(record, params, today));
  const vectors = await embedRecords(kind, kept, { embedder, cache: vectorCache });
  return (
    kept
      .map((record, i) => ({ id: record.id, cosine: vectors[i] ? dot(vectors[i]!, query) : -Infinity }))
      .filter((hit) => hit.cosine >= least)
      // The index keeps cosines as float32: values equal at that precision are ties, broken by id.
      .sort((a, b) => Math.fround(b.cosine) - Math.fround(a.cosine) || (a.id < b.id ? -1 : 1))
  );
}

/**
 * The same records in the same order as the oracle, up to cosines within 1e-6 of each other: the
 * index's dot products (ONNX Runtime's float32 MatMul) and the oracle's (a float64 sum) may differ
 * in the last bit, which can swap two near-equal neighbours.
 */
function expectRanking(results: { id: string }[], expected: { id: string; cosine: number }[]): void {
  expect(results.map((r) => r.id).sort()).toEqual(expected.map((hit) => hit.id).sort());
  const cosineOf = new Map(expected.map((hit) => [hit.id, hit.cosine]));
  results.forEach((result, i) => {
    if (i === 0) return;
    const previous = cosineOf.get(results[i - 1]!.id)!;
    const current = cosineOf.get(result.id)!;
    expect(previous, `${results[i - 1]!.id} before ${result.id}`).toBeGreaterThanOrEqual(current - 1e-6);
    if (Math.abs(previous - current) > 1e-6) return;
    // An exact tie (the same text twice) still breaks by id.
    if (previous === current) expect(results[i - 1]!.id < result.id).toBe(true);
  });
}

async function fetchAll(path: string, params: Record<string, string>, pageSize = 100): Promise<{ results: any[]; total: number }> {
  const results: any[] = [];
  let total = -1;
  for (let offset = 0; ; offset += pageSize) {
    const res = await api.get(`${path}?${new URLSearchParams({ ...params, limit: String(pageSize), offset: String(offset) })}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    total = res.body.pagination.total;
    results.push(...res.body.results);
    if (res.body.results.length < pageSize) break;
  }
  return { results, total };
}

const QUERIES = ['mental health support for first responders', 'clean water infrastructure in rural towns', 'after school programs for children'];

describe('search_mode=semantic', () => {
  it.each(QUERIES)("returns every grant above the floor, best first, with relevance the cosine on the model's scale: %s", async (text) => {
    const expected = await expectedSemantic('grant', text);
    expect(expected.length).toBeGreaterThan(0);
    const { results, total } = await fetchAll('/grants-api', { search: text, search_mode: 'semantic' });
    expect(total).toBe(expected.length);
    expectRanking(results, expected);
    const least = relevanceOfCosine(await queryFloorOf('grant', text), scale);
    results.forEach((result, i) => {
      expect(result.relevance).toBeCloseTo(relevanceOfCosine(expected[i]!.cosine, scale), 3);
      expect(result.relevance).toBeGreaterThanOrEqual(least - 1e-4);
      expect(result.relevance).toBeLessThanOrEqual(1);
    });
    // The best match is a strong one: at or above the floor's relevance.
    expect(results[0].relevance).toBeGreaterThanOrEqual(FLOOR_RELEVANCE);
  });

  it.each<Record<string, string>>([
    { status: 'open', states: 'TX,CA', include_national: 'true' },
    { category: 'health', min_amount: '50000' },
    { opportunity_type: 'all', deadline_after: '2026-12-31' },
    { geography: 'local' },
  ])('applies every filter inside the k-NN search, losing no match: %o', async (params) => {
    const text = QUERIES[0]!;
    const expected = await expectedSemantic('grant', text, params);
    const { results, total } = await fetchAll('/grants-api', { ...params, search: text, search_mode: 'semantic' });
    expect(total).toBe(expected.length);
    expectRanking(results, expected);
  });

  it('filters contracts by NAICS prefix and set-aside inside the search too', async () => {
    const params = { naics: '54', set_aside: 'SBA,8A' };
    const text = 'software development and IT support services';
    const expected = await expectedSemantic('contract', text, params);
    const { results } = await fetchAll('/contracts-api', { ...params, search: text, search_mode: 'semantic' });
    expectRanking(results, expected);
  });

  it('orders by an explicit sort field over the same set, nulls last, keeping relevance; asc relevance is the exact reverse', async () => {
    const text = QUERIES[1]!;
    const expected = await expectedSemantic('grant', text);
    const byId = new Map(grants.map((g) => [g.id, g]));
    const byDeadline = await fetchAll('/grants-api', { search: text, search_mode: 'semantic', sort_by: 'deadline_date', order: 'asc' });
    expect(byDeadline.results.map((r) => r.id)).toEqual(
      sortRecords(
        expected.map((hit) => byId.get(hit.id)!),
        'deadline_date',
        'asc',
      ).map((g) => g.id),
    );
    expect(byDeadline.results.every((r) => typeof r.relevance === 'number')).toBe(true);
    const reversed = await fetchAll('/grants-api', { search: text, search_mode: 'semantic', sort_by: 'relevance', order: 'asc' });
    expectRanking([...reversed.results].reverse(), expected);
  });

  it('says meta.sort_by is relevance, and count_only gives the same total', async () => {
    const text = QUERIES[2]!;
    const page = await api.get(`/grants-api?${new URLSearchParams({ search: text, search_mode: 'semantic', limit: '5' })}`);
    expect(page.body.meta).toMatchObject({ sort_by: 'relevance', order: 'desc' });
    const count = await api.get(`/grants-api?${new URLSearchParams({ search: text, search_mode: 'semantic', count_only: 'true' })}`);
    expect(count.body).toEqual({ pagination: { total: page.body.pagination.total, total_relation: 'eq' }, meta: expect.any(Object) });
  });

  it('searches funders by name and summary', async () => {
    const res = await api.get(`/funders-api?${new URLSearchParams({ search: 'community health and medical research', search_mode: 'semantic', limit: '5' })}`);
    expect(res.status).toBe(200);
    expect(res.body.results.length).toBeGreaterThan(0);
    expect(res.body.results[0].relevance).toBeGreaterThanOrEqual(FLOOR_RELEVANCE);
  });
});

describe('search_mode=hybrid', () => {
  it.each(QUERIES)('is the union of the keyword and semantic matches, ranked by their fused scores, and pages never overlap: %s', async (text) => {
    const keyword = await fetchAll('/grants-api', { search: text, search_mode: 'keyword' });
    const semantic = await fetchAll('/grants-api', { search: text, search_mode: 'semantic' });
    const union = new Set([...keyword.results, ...semantic.results].map((r) => r.id));
    expect(union.size).toBeGreaterThan(0);
    const hybrid = await fetchAll('/grants-api', { search: text, search_mode: 'hybrid' }, 7);
    expect(hybrid.total).toBe(union.size);
    expect(hybrid.results.map((r) => r.id).sort()).toEqual([...union].sort());
    expect(new Set(hybrid.results.map((r) => r.id)).size).toBe(hybrid.results.length);
    // Relevance: 0.7 x the semantic relevance (a semantic match), plus up to 0.3 in proportion to BM25 (a keyword match).
    const cosines = new Map((await expectedSemantic('grant', text)).map((hit) => [hit.id, hit.cosine]));
    const keywordIds = new Set(keyword.results.map((r) => r.id));
    for (const result of hybrid.results) {
      const cosine = cosines.get(result.id);
      const keywordPart = result.relevance - (cosine === undefined ? 0 : HYBRID_SEMANTIC_WEIGHT * relevanceOfCosine(cosine, scale));
      if (keywordIds.has(result.id)) expect(keywordPart, result.id).toBeGreaterThan(0);
      else expect(keywordPart, result.id).toBeCloseTo(0, 3);
      expect(keywordPart, result.id).toBeLessThanOrEqual(1 - HYBRID_SEMANTIC_WEIGHT + 1e-3);
    }
    const relevance = hybrid.results.map((r) => r.relevance);
    expect(relevance).toEqual([...relevance].sort((a, b) => b - a));
  });

  it('ranks a record first in both lists at relevance 1', async () => {
    const title = grants.find((g) => g.opportunity_type === 'open')!.title;
    const res = await api.get(`/grants-api?${new URLSearchParams({ search: title, search_mode: 'hybrid', limit: '1' })}`);
    expect(res.status).toBe(200);
    expect(res.body.results[0].relevance).toBeGreaterThan(0.5);
  });
});

const OFF_TOPIC = [
  'used car prices in Ohio',
  'chocolate chip cookie recipe',
  'NBA playoff scores last night',
  'cheap flights to Paris in June',
  'lyrics of a Taylor Swift song',
];

describe('queries with nothing to find', () => {
  it.each(OFF_TOPIC.flatMap((text) => ['semantic', 'hybrid'].map((mode) => [mode, text] as const)))(
    '%s search answers %j with results [] and total 0, saying why',
    async (mode, text) => {
      for (const path of ['/grants-api', '/contracts-api']) {
        const res = await api.get(`${path}?${new URLSearchParams({ search: text, search_mode: mode })}`);
        expect(res.status).toBe(200);
        expect(res.body.results, `${path} ${JSON.stringify(res.body.results[0]?.title)}`).toEqual([]);
        expect(res.body.pagination.total).toBe(0);
        expect(res.body.meta.no_results).toMatchObject({ reason: 'below_floor', message: expect.stringContaining('minimum-relevance floor') });
      }
    },
  );

  it('keyword search answers an off-topic query only where its words really are, and nonsense with nothing', async () => {
    for (const text of OFF_TOPIC) {
      const res = await api.get(`/grants-api?${new URLSearchParams({ search: text, limit: '100' })}`);
      expect(res.status).toBe(200);
      // Every result holds a word of the query (stemmed: "prices" holds "price").
      const stems = text
        .toLowerCase()
        .split(/\W+/)
        .filter((word) => word.length > 3)
        .map((word) => word.slice(0, 4));
      for (const result of res.body.results) {
        const words = `${result.title} ${result.description} ${result.funder_name}`.toLowerCase();
        expect(
          stems.some((stem) => words.includes(stem)),
          `${text}: ${result.title}`,
        ).toBe(true);
      }
    }
    const nonsense = await api.get(`/grants-api?${new URLSearchParams({ search: 'qwxz zzkv' })}`);
    expect(nonsense.body).toMatchObject({ results: [], pagination: { total: 0 }, meta: { no_results: { reason: 'no_match' } } });
  });

  it('semantic and hybrid without a search term are a 400 naming search_mode', async () => {
    for (const mode of ['semantic', 'hybrid']) {
      const res = await api.get(`/grants-api?search_mode=${mode}`);
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ field: 'search_mode', issue: `${mode} search needs a search term` }]);
    }
  });
});

describe('hostile search text', () => {
  // Texts that are not ordinary queries are in search-answers.test.ts.
  it('an overlong search is a 400 naming search', async () => {
    const res = await api.get(`/grants-api?${new URLSearchParams({ search: 'a'.repeat(501), search_mode: 'hybrid' })}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('search');
  });
});

describe('POST /semantic-search', () => {
  it('searches grants and contracts together by default, each result saying its type, best first', async () => {
    const res = await api.post('/semantic-search', { query: 'software development and IT support services', limit: 20 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.count).toBe(res.body.results.length);
    expect(res.body.count).toBe(20);
    const types = new Set(res.body.results.map((r: any) => r.type));
    expect([...types].every((t) => t === 'grant' || t === 'contract')).toBe(true);
    const relevance = res.body.results.map((r: any) => r.relevance);
    expect(relevance).toEqual([...relevance].sort((a, b) => b - a));
    expect(res.body.meta).toMatchObject({ types: ['grant', 'contract'], limit: 20 });
    // The query's own floor: its best match is over the model's floor, and no result is under the floor it reports.
    expect(relevance[0]).toBeGreaterThanOrEqual(FLOOR_RELEVANCE);
    expect(res.body.meta.min_relevance).toBeGreaterThanOrEqual(LEXICAL_FLOOR_RELEVANCE);
    expect(Math.min(...relevance)).toBeGreaterThanOrEqual(res.body.meta.min_relevance);
    // The same matches the list endpoints give, merged by relevance as shown, ties by id.
    const listed = async (path: string) =>
      (await api.get(`${path}?${new URLSearchParams({ search: 'software development and IT support services', search_mode: 'semantic', limit: '20' })}`)).body
        .results as { id: string; relevance: number }[];
    const merged = [...(await listed('/contracts-api')), ...(await listed('/grants-api'))]
      .sort((a, b) => b.relevance - a.relevance || (a.id < b.id ? -1 : 1))
      .slice(0, 20);
    expect(res.body.results.map((r: any) => r.id)).toEqual(merged.map((hit) => hit.id));
  });

  it('searches one kind when asked, defaults to 10 results, and leaves awarded records out', async () => {
    const res = await api.post('/semantic-search', { query: 'after school programs for children', type: 'grants' });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(10);
    expect(res.body.results.every((r: any) => r.type === 'grant' && r.opportunity_type === 'open')).toBe(true);
  });

  it('answers nonsense with no results', async () => {
    const res = await api.post('/semantic-search', { query: 'qwxz zzkv' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ results: [], count: 0 });
  });

  it.each([
    ['a body that is not JSON', '{"query": ', 'body'],
    ['a missing query', {}, 'query'],
    ['a query that is not a string', { query: ['x'] }, 'query'],
    ['limit 0', { query: 'water', limit: 0 }, 'limit'],
    ['limit 51', { query: 'water', limit: 51 }, 'limit'],
    ['an unknown type', { query: 'water', type: 'funders' }, 'type'],
  ])('rejects %s with a 400 naming the field', async (_, body, field) => {
    const res = await api.post('/semantic-search', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_PARAMETER');
    expect(res.body.error.details.map((d: any) => d.field)).toEqual([field]);
  });

  it('needs an API key, and carries the rate-limit headers', async () => {
    expect((await api.post('/semantic-search', { query: 'water' }, { key: null })).status).toBe(401);
    const basic = await api.post('/semantic-search', { query: 'water' }, { key: api.keys.basic });
    expect(basic.status).toBe(200);
    expect(basic.headers.get('x-ratelimit-limit')).toBe('1000');
  });
});

describe('an unavailable embedding model', () => {
  // The stack remembers recent query vectors (as the AWS functions do), so each outage asks for a
  // text no earlier test embedded; a word in no record changes the vector, not the keyword matches.
  it('makes semantic search a 503 SEARCH_UNAVAILABLE while keyword search and get-by-id keep working', async () => {
    outage.on = true;
    try {
      const semantic = await api.get(`/grants-api?${new URLSearchParams({ search: 'water qzxva', search_mode: 'semantic' })}`);
      expect(semantic.status).toBe(503);
      expect(semantic.body.error.code).toBe('SEARCH_UNAVAILABLE');
      expect(semantic.body.error.message).toContain(`(${embedder.space.embedder} (${embedder.space.dimensions} dimensions)) did not answer`);
      expect(semantic.headers.get('x-ratelimit-limit')).toBe('-1');
      const posted = await api.post('/semantic-search', { query: 'water qzxva' });
      expect(posted.status).toBe(503);
      expect(posted.body.error.code).toBe('SEARCH_UNAVAILABLE');
      const keyword = await api.get('/grants-api?search=water');
      expect(keyword.status).toBe(200);
      expect(keyword.body.results.length).toBeGreaterThan(0);
      expect(keyword.body.meta.degraded).toBeUndefined();
      expect((await api.get(`/grants-api/${keyword.body.results[0].id}`)).status).toBe(200);
    } finally {
      outage.on = false;
    }
  });

  it('answers hybrid search from its keyword half, flagged meta.degraded, ranked as hybrid ranks keyword-only matches', async () => {
    const params = new URLSearchParams({ search: 'water qzxvb', search_mode: 'hybrid', limit: '50' });
    outage.on = true;
    let degraded: Awaited<ReturnType<TestApi['get']>>;
    let counted: Awaited<ReturnType<TestApi['get']>>;
    // Without the model, keyword search cannot drop off-topic matches either: every lexical match.
    let keyword: Awaited<ReturnType<TestApi['get']>>;
    try {
      degraded = await api.get(`/grants-api?${params}`);
      counted = await api.get(`/grants-api?${params}&count_only=true`);
      keyword = await api.get(`/grants-api?${new URLSearchParams({ search: 'water qzxvb', limit: '50' })}`);
    } finally {
      outage.on = false;
    }
    expect(keyword.status).toBe(200);
    expect(keyword.body.meta.degraded).toBeUndefined();
    expect(degraded.status).toBe(200);
    expect(degraded.body.meta).toMatchObject({
      degraded: true,
      sort_by: 'relevance',
      degraded_reason: expect.stringContaining(`The embedding model (${embedder.space.embedder}`),
    });
    expect(degraded.body.meta.degraded_reason).toContain('keyword matches alone');
    // Exactly the keyword matches, in keyword order, each with relevance on the hybrid scale: the
    // keyword part alone, 1 - HYBRID_SEMANTIC_WEIGHT for the best match and less for the others.
    expect(degraded.body.pagination.total).toBe(keyword.body.pagination.total);
    expect(degraded.body.results.map((r: { id: string }) => r.id)).toEqual(keyword.body.results.map((r: { id: string }) => r.id));
    const relevance = degraded.body.results.map((r: { relevance: number }) => r.relevance);
    expect(relevance[0]).toBeCloseTo(1 - HYBRID_SEMANTIC_WEIGHT, 4);
    expect(relevance).toEqual([...relevance].sort((a, b) => b - a));
    expect(relevance.at(-1)).toBeGreaterThan(0);
    expect(counted.body).toMatchObject({ pagination: { total: keyword.body.pagination.total }, meta: { degraded: true } });
    // Recovered: the fused answer again (semantic-only matches back), not a remembered degraded page.
    const recovered = await api.get(`/grants-api?${params}`);
    expect(recovered.body.meta.degraded).toBeUndefined();
    expect(recovered.body.results.map((r: { id: string }) => r.id)).not.toEqual(degraded.body.results.map((r: { id: string }) => r.id));
    expect(await api.get(`/grants-api?${params}`).then((again) => again.body.results)).toEqual(recovered.body.results);
  });
});
