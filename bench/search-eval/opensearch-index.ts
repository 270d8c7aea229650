/**
 * `npm run eval:search -- --index opensearch`: the same labelled queries on the OpenSearch adapter
 * (Lucene BM25 with the english analyzer, and k-NN), beside the embedded index. The catalogue the
 * eval imported is copied into indices of its own on an OpenSearch 2.19 node, with the vectors the
 * embedded index holds (from the same embedding cache), so the two differ only in the engine.
 */
import { join } from 'node:path';
import { OpenSearchHttpClient } from '../../lambdas/adapters/aws/opensearch-client';
import { OpenSearchIndex } from '../../lambdas/adapters/aws/opensearch-index';
import { SqliteEmbeddingCache } from '../../lambdas/adapters/embedded/sqlite-embedding-cache';
import { reindexRecords } from '../../lambdas/core/use-cases/reindex-records';
import type { EmbeddedStack } from '../../local/embedded-stack';
import { ENGINE_ENV, startEngine, stopEngine } from '../../local/engines/engine-processes';

export interface OpenSearchEvalIndex {
  /** The embedded stack with its index swapped for the OpenSearch one. */
  stack: EmbeddedStack;
  url: string;
  /** The client and index the stack's search index reads, for measurements beside it (knn-recall.ts). */
  client: OpenSearchHttpClient;
  index: OpenSearchIndex;
  close(): Promise<void>;
}

/**
 * An OpenSearch node (OPENSEARCH_URL, or one `npm run engines` starts for the run) holding the
 * stack's catalogue in indices named for this run, deleted by close().
 */
export async function openSearchEvalIndex(stack: EmbeddedStack, dataDir: string): Promise<OpenSearchEvalIndex> {
  const given = process.env[ENGINE_ENV.opensearch];
  const url = given ?? (await startEngine('opensearch')).url;
  const client = new OpenSearchHttpClient({ node: url });
  const prefix = `gcf-eval-${Date.now()}`;
  const index = new OpenSearchIndex(client, { space: stack.services.embedder.space, endpoint: url, aliasPrefix: prefix });
  const cache = new SqliteEmbeddingCache(join(dataDir, 'embeddings.sqlite'));
  try {
    await index.ensureIndices();
    const counts = await reindexRecords(stack.services.store, { index, embeddings: { embedder: stack.services.embedder, cache } });
    await client.indices.refresh({ index: `${prefix}-*` });
    console.error(
      `OpenSearch at ${url}: indexed ${Object.entries(counts)
        .map(([kind, n]) => `${n} ${kind}s`)
        .join(', ')}`,
    );
  } finally {
    cache.close();
  }
  return {
    stack: { ...stack, services: { ...stack.services, index } },
    url,
    client,
    index,
    close: async () => {
      await client.indices.delete({ index: `${prefix}-*` }).catch(() => undefined);
      if (!given) await stopEngine('opensearch');
    },
  };
}
