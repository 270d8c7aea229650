import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnEngine } from './engine-suite';
import { measureWindowRecall, queryVectors, recallCases, type RecallOfFilters } from '../../bench/search-eval/knn-recall';
import { OpenSearchHttpClient } from '../../lambdas/adapters/aws/opensearch-client';
import { OpenSearchIndex } from '../../lambdas/adapters/aws/opensearch-index';
import { ingestFiles } from '../../lambdas/adapters/source-files/ingest-files';
import { reindexRecords } from '../../lambdas/core/use-cases/reindex-records';
import type { EmbeddingCache } from '../../lambdas/ports/embedder';
import { loadLocalEmbedder, WINK } from '../../local/local-embedder';
import { startEmbeddedStack, type EmbeddedStack } from '../../local/embedded-stack';
import { hasSharedData, SHARED_DATA_SKIP_MESSAGE, sharedDataPath } from '../support/shared-data';

/**
 * The approximate plan against the exact scan on real data: the grants and contract notices of
 * ../shared/data on a real OpenSearch 2.19 node (Lucene HNSW, the service's mapping), each
 * labelled query of the search evaluation searched both ways with and without filters. The
 * vectors are the word-vector model's (embedding the catalogue with the sentence model takes
 * minutes); `npm run eval:search -- --index opensearch` reports the same measure with it.
 */

const TODAY = '2026-11-25';
const TARGETS = { 10: 0.99, 100: 0.97 } as const;

/** Each text embedded once: nothing to keep between runs. */
const noCache: EmbeddingCache = { get: async () => new Map(), put: async () => undefined };

if (!hasSharedData) console.warn(SHARED_DATA_SKIP_MESSAGE);

describeOnEngine('the k-NN window holds the exact nearest records, on ../shared/data', 'OPENSEARCH_URL', (url) => {
  const client = new OpenSearchHttpClient({ node: url });
  const prefix = `gcf-recall-${Date.now()}`;
  let stack: EmbeddedStack;
  let index: OpenSearchIndex;

  beforeAll(async () => {
    if (!hasSharedData) return;
    const embedder = await loadLocalEmbedder({ name: WINK });
    stack = await startEmbeddedStack({ seed: false, embedder });
    await ingestFiles(['grants.jsonl', 'contracts.jsonl'].map(sharedDataPath), stack.services);
    index = new OpenSearchIndex(client, { space: embedder.space, endpoint: url, aliasPrefix: prefix });
    await index.ensureIndices(['grant', 'contract']);
    await reindexRecords(stack.services.store, { index, embeddings: { embedder, cache: noCache } }, { kinds: ['grant', 'contract'] });
    await client.indices.refresh({ index: `${prefix}-*` });
  }, 600_000);
  afterAll(async () => {
    await client.indices.delete({ index: `${prefix}-*` }).catch(() => undefined);
    await stack?.close();
  });

  it.skipIf(!hasSharedData)('recall@10 at least 0.99 and recall@100 at least 0.97 for every labelled query set and filter set', async () => {
    const labelled = JSON.parse(readFileSync(new URL('../../bench/search-eval/queries.json', import.meta.url), 'utf8')) as { queries: { query: string; kind: 'grant' | 'contract' }[] };
    const measured: (RecallOfFilters & { kind: string })[] = [];
    for (const kind of ['grant', 'contract'] as const) {
      const vectors = await queryVectors(stack.services.embedder, labelled.queries.filter((q) => q.kind === kind).map((q) => q.query));
      expect(vectors.length, kind).toBeGreaterThan(20);
      const cases = recallCases(kind, TODAY);
      for (const result of await measureWindowRecall(client, index.aliasOf(kind), vectors, cases, index.vectors.window)) measured.push({ kind, ...result });
    }
    const report = measured.map((m) => `${m.kind} ${m.filters}: @10 ${m.mean[10].toFixed(3)}, @100 ${m.mean[100].toFixed(3)} (${m.queries} queries)`).join('\n');
    console.log(report);
    // Every filter set had queries with records to find, and the narrow ones stayed narrow.
    expect(measured.every((m) => m.queries > 0), report).toBe(true);
    for (const m of measured) {
      expect(m.mean[10], `${m.kind} ${m.filters} recall@10\n${report}`).toBeGreaterThanOrEqual(TARGETS[10]);
      expect(m.mean[100], `${m.kind} ${m.filters} recall@100\n${report}`).toBeGreaterThanOrEqual(TARGETS[100]);
    }
  }, 600_000);
});
