import { afterAll, beforeAll, expect, it } from 'vitest';
import { OpenSearchHttpClient } from '../../lambdas/adapters/aws/opensearch-client';
import { OpenSearchIndex } from '../../lambdas/adapters/aws/opensearch-index';
import { type AnyRecord, type Grant, RESOURCE_KINDS, type ResourceKind } from '../../lambdas/core/records';
import { reindexRecords } from '../../lambdas/core/use-cases/reindex-records';
import { type EmbeddedStack, startEmbeddedStack } from '../../local/embedded-stack';
import { ensureLocalKeys } from '../../local/local-keys';
import { describeOnEngine } from '../engines/engine-suite';
import { type ServedApi, serveOverHttp } from '../support/api-server';
import { memoryEmbeddingCache } from '../support/embedding-doubles';
import { type DomainMode, type FaultyDomain, SLOW_DOMAIN_MS, startFaultyDomain } from './helpers/faulty-domain';
import { type SearchRoutes, searchRoutes } from './helpers/search-routes';

/**
 * The search domain failing under the API, on a real OpenSearch 2.19 node (`npm run test:engines`
 * sets OPENSEARCH_URL): the records in dynalite, indexed into the engine with their vectors, the
 * API's handlers over real HTTP with the OpenSearch adapter and thin client the Lambdas use, and
 * a proxy in front of the engine that fails on request: its port closed, slower than the 8 s
 * query deadline, or answering 429 as a node with a full search queue does. Every search route
 * must answer 503 SEARCH_UNAVAILABLE in time, never a 500; get-by-id keeps working; search is back
 * with real results when the domain is, without a restart.
 */

const SMALL = { funders: 10, grants: 60, contracts: 20, awardedGrants: 4, awardedContracts: 2 };
/** How long vector work is shed after the domain says it is overloaded: short here, so the suite sees it end. */
const SHED_MS = 2_000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeOnEngine('the search domain failing on a real OpenSearch node', 'OPENSEARCH_URL', (url) => {
  const prefix = `gcf-faults-${Date.now()}`;
  const client = new OpenSearchHttpClient({ node: url });
  let stack: EmbeddedStack;
  let domain: FaultyDomain;
  let served: ServedApi;
  let routes: SearchRoutes;
  const records: Record<ResourceKind, AnyRecord[]> = { grant: [], contract: [], funder: [] };

  beforeAll(async () => {
    stack = await startEmbeddedStack({ seed: SMALL });
    for (const kind of RESOURCE_KINDS) for await (const page of stack.services.store.scan(kind)) records[kind].push(...(page as AnyRecord[]));
    const space = stack.services.embedder.space;
    // Filled straight into the engine, then served through the proxy, as the Lambdas build the adapter (unsigned here).
    const direct = new OpenSearchIndex(client, { space, endpoint: url, aliasPrefix: prefix });
    await direct.ensureIndices(RESOURCE_KINDS);
    await reindexRecords(stack.services.store, { index: direct, embeddings: { embedder: stack.services.embedder, cache: memoryEmbeddingCache() } });
    for (const kind of RESOURCE_KINDS) await client.indices.refresh({ index: direct.aliasOf(kind) });
    domain = await startFaultyDomain(url);
    const index = new OpenSearchIndex(new OpenSearchHttpClient({ node: domain.endpoint }), {
      space,
      endpoint: domain.endpoint,
      aliasPrefix: prefix,
      shedMs: SHED_MS,
    });
    const { keys } = await ensureLocalKeys(stack.services);
    served = await serveOverHttp({ ...stack.services, index }, stack.services);
    routes = searchRoutes(served.baseUrl, keys.developer, domain.endpoint);
  }, 180_000);

  afterAll(async () => {
    await served?.close();
    await domain?.close();
    await client.indices.delete({ index: `${prefix}-*` }).catch(() => undefined);
    await stack?.close();
  });

  /** With the domain up, the engine's own answers: every record listed, and text search finding real matches. */
  async function expectRealAnswers(label: string): Promise<void> {
    const answers = await routes.expectSearchesAnswer(200, label);
    expect(answers.get('plain list')!.body.pagination.total, label).toBeGreaterThan(0);
    expect(answers.get('count_only')!.body.pagination.total, label).toBeGreaterThan(0);
    expect(
      answers
        .get('funders list')!
        .body.results.map((f: AnyRecord) => f.id)
        .every((id: string) => records.funder.some((f) => f.id === id)),
      label,
    ).toBe(true);
    expect(answers.get('keyword search')!.body.results.length, label).toBeGreaterThan(0);
    for (const grant of answers.get('keyword search')!.body.results as Grant[]) {
      expect(`${grant.title} ${grant.description}`.toLowerCase(), label).toMatch(/community|health/);
    }
  }

  it('with the domain up, every search route answers 200 from the engine (the baseline)', async () => {
    await expectRealAnswers('up');
  }, 60_000);

  const FAULTS: [string, DomainMode][] = [
    ['down (its port closed)', 'down'],
    [`slower than the query deadline (${SLOW_DOMAIN_MS / 1000} s a request)`, 'slow'],
    ['answering 429 (search queue full), on every retry', '429'],
  ];
  it.each(FAULTS)(
    'a domain %s: search is 503 SEARCH_UNAVAILABLE in time, get-by-id works, and search is back when the domain is',
    async (_name, mode) => {
      await domain.setMode(mode);
      const before = domain.requests;
      try {
        await routes.expectSearchesAnswer(503, mode);
        await routes.expectGetByIdWorks(records, mode);
        // 429 is retried with backoff before the route gives up: more requests than routes reached the domain.
        if (mode === '429') expect(domain.requests - before).toBeGreaterThan(8);
      } finally {
        await domain.setMode('up');
      }
      // After an overload (429), vector work stays shed for its window.
      if (mode === '429') await pause(SHED_MS + 100);
      await expectRealAnswers(`after ${mode}`);
    },
    90_000,
  );

  it('a domain rejecting k-NN searches (429): vector work is shed while lists, keyword search and get-by-id answer from the engine, and it resumes after the window', async () => {
    await pause(SHED_MS + 100);
    await domain.setMode('429-knn');
    try {
      // The first semantic query meets the overload: a 503, and vector work is shed from then on.
      const first = await routes.call('GET', '/grants-api?search=community%20health&search_mode=semantic');
      expect(first.status, JSON.stringify(first.body)).toBe(503);
      const before = domain.requests;
      const [list, keyword, hybrid, semantic, posted] = await Promise.all([
        routes.call('GET', '/grants-api?limit=5'),
        routes.call('GET', '/grants-api?search=community%20health'),
        routes.call('GET', '/grants-api?search=community%20health&search_mode=hybrid'),
        routes.call('GET', '/grants-api?search=community%20health&search_mode=semantic'),
        routes.call('POST', '/semantic-search', { query: 'rural broadband', limit: 5 }),
      ]);
      expect([list.status, keyword.status, hybrid.status], JSON.stringify([list.body, keyword.body, hybrid.body])).toEqual([200, 200, 200]);
      expect(list.body.results.length).toBe(5);
      expect(keyword.body.results.length).toBeGreaterThan(0);
      // Hybrid answers from its keyword half: the keyword matches, in hybrid's keyword ranking, and says so.
      expect(hybrid.body.meta).toMatchObject({
        degraded: true,
        degraded_reason: expect.stringMatching(/^The search service is overloaded, so these are the keyword matches alone/),
      });
      expect(new Set(hybrid.body.results.map((g: Grant) => g.id))).toEqual(new Set(keyword.body.results.map((g: Grant) => g.id)));
      expect(hybrid.body.results.every((g: Grant & { relevance: number }) => g.relevance <= 0.3)).toBe(true);
      for (const shed of [semantic, posted]) {
        expect(shed.status, JSON.stringify(shed.body)).toBe(503);
        expect(shed.body.error).toMatchObject({
          code: 'SEARCH_UNAVAILABLE',
          message: expect.stringMatching(/^The search service is overloaded, so semantic search is paused for \d s; .*try again shortly$/),
        });
        expect(Number(shed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(shed.ms).toBeLessThan(1_000);
      }
      // Only the list, the keyword search and hybrid's keyword half reached the domain: no k-NN search did.
      expect(domain.requests - before).toBeLessThanOrEqual(12);
      await routes.expectGetByIdWorks(records, '429-knn');
    } finally {
      await domain.setMode('up');
    }
    await pause(SHED_MS + 100);
    const back = await routes.call('GET', '/grants-api?search=community%20health&search_mode=hybrid');
    expect(back.status).toBe(200);
    expect(back.body.meta).not.toHaveProperty('degraded');
    await expectRealAnswers('after the shed window');
  }, 90_000);
});
