import { afterAll, beforeAll, expect, it } from 'vitest';
import { OpenSearchHttpClient } from '../../lambdas/adapters/aws/opensearch-client';
import { OpenSearchIndex } from '../../lambdas/adapters/aws/opensearch-index';
import { RESOURCE_KINDS, type AnyRecord, type Grant, type ResourceKind } from '../../lambdas/core/records';
import { reindexRecords } from '../../lambdas/core/use-cases/reindex-records';
import { startEmbeddedStack, type EmbeddedStack } from '../../local/embedded-stack';
import { ensureLocalKeys } from '../../local/local-keys';
import { describeOnEngine } from '../engines/engine-suite';
import { serveOverHttp, type ServedApi } from '../support/api-server';
import { memoryEmbeddingCache } from '../support/embedding-doubles';
import { SLOW_DOMAIN_MS, startFaultyDomain, type DomainMode, type FaultyDomain } from './helpers/faulty-domain';
import { searchRoutes, type SearchRoutes } from './helpers/search-routes';

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
    const index = new OpenSearchIndex(new OpenSearchHttpClient({ node: domain.endpoint }), { space, endpoint: domain.endpoint, aliasPrefix: prefix });
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
    expect(answers.get('funders list')!.body.results.map((f: AnyRecord) => f.id).every((id: string) => records.funder.some((f) => f.id === id)), label).toBe(true);
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
  it.each(FAULTS)('a domain %s: search is 503 SEARCH_UNAVAILABLE in time, get-by-id works, and search is back when the domain is', async (_name, mode) => {
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
    await expectRealAnswers(`after ${mode}`);
  }, 90_000);
});
