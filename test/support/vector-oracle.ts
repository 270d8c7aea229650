import { SqliteEmbeddingCache } from '../../lambdas/adapters/embedded/sqlite-embedding-cache';
import type { RecordByKind, ResourceKind } from '../../lambdas/core/records';
import { similarityScaleOf, type SimilarityScale } from '../../lambdas/core/search/relevance';
import { embedRecords } from '../../lambdas/core/use-cases/embed-records';
import type { Services } from '../../lambdas/ports/services';

/**
 * The cosines the index's floor is applied to, computed outside the index: the query embedded by
 * the stack's own model, record vectors read back from the test run's embedding cache (the stack
 * put them there while seeding, so nothing is embedded twice).
 */
export interface VectorOracle {
  /** The model's scale with the floor in force: whether keyword matches are held to it, and partial ones let in. */
  scale: SimilarityScale;
  cosines<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][], text: string): Promise<Map<string, number>>;
  close(): void;
}

export function vectorOracle(services: Services): VectorOracle {
  const cache = new SqliteEmbeddingCache(process.env.GCF_EMBEDDING_CACHE ?? ':memory:');
  const { embedder } = services;
  return {
    scale: similarityScaleOf(embedder.space, services.semanticFloor),
    async cosines(kind, records, text) {
      const [query] = await embedder.embed([text], 'query');
      const vectors = await embedRecords(kind, records, { embedder, cache });
      return new Map(records.map((record, i) => {
        const vector = vectors[i];
        let dot = -Infinity;
        if (vector && query) {
          dot = 0;
          for (let d = 0; d < vector.length; d++) dot += vector[d]! * query[d]!;
        }
        return [record.id, dot];
      }));
    },
    close: () => cache.close(),
  };
}
