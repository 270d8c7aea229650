/**
 * The k-NN window's recall at the bench's catalogue sizes: the engine test holds the targets on
 * ../shared/data (a few thousand records, where the graph is searched almost exhaustively); here
 * the same measure (search-eval/knn-recall.ts) runs on the seeded and derived catalogues, whose
 * graphs are big enough for the approximation to show.
 */
import { readFileSync } from 'node:fs';
import type { OpenSearchApi } from '../lambdas/adapters/aws/opensearch-client';
import { startEmbeddedStack } from '../local/embedded-stack';
import { measureWindowRecall, queryVectors, type RecallOfFilters, recallCases } from './search-eval/knn-recall';

/** Every other labelled grant query: an exact scan of a million vectors per query and filter set is slow. */
const QUERY_STRIDE = 2;

/** The labelled grant queries' vectors, from the embedder the data folder's catalogue was embedded with. */
export async function recallQueryVectors(dataDir: string): Promise<Float32Array[]> {
  const labelled = JSON.parse(readFileSync(new URL('./search-eval/queries.json', import.meta.url), 'utf8')) as { queries: { query: string; kind: string }[] };
  const texts = labelled.queries
    .filter((q) => q.kind === 'grant')
    .map((q) => q.query)
    .filter((_, i) => i % QUERY_STRIDE === 0);
  const stack = await startEmbeddedStack({ dataDir, seed: false });
  try {
    return await queryVectors(stack.services.embedder, texts);
  } finally {
    await stack.close();
  }
}

/** Recall@10 and @100 of the window against the exact scan of `<prefix>-grants`, per filter set. */
export function windowRecallAtScale(
  client: OpenSearchApi,
  prefix: string,
  vectors: readonly Float32Array[],
  window: number,
  today: string,
): Promise<RecallOfFilters[]> {
  return measureWindowRecall(client, `${prefix}-grants`, vectors, recallCases('grant', today), window);
}
