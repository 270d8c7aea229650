import type { RecordStore } from '../../ports/record-store';
import type { SearchIndex } from '../../ports/search-index';
import { RESOURCE_KINDS, type ResourceKind } from '../records';
import { type EmbeddingPorts, embedRecords } from './embed-records';

/**
 * Copies every record from the store into the search index, page by page: the backfill for an
 * index that missed writes (records stored before the indexer existed, or stream batches that
 * ended in the indexer's failure queue). Upserts are idempotent, so running it twice is harmless;
 * vectors of texts embedded before come from the embedding cache, so it costs no new embeddings.
 */
export async function reindexRecords(
  store: RecordStore,
  ports: { index: Pick<SearchIndex, 'upsert'>; embeddings: EmbeddingPorts },
  options: { kinds?: readonly ResourceKind[]; onProgress?: (kind: ResourceKind, indexed: number) => void } = {},
): Promise<Record<ResourceKind, number>> {
  const counts: Record<ResourceKind, number> = { grant: 0, contract: 0, funder: 0 };
  for (const kind of options.kinds ?? RESOURCE_KINDS) {
    for await (const page of store.scan(kind)) {
      await ports.index.upsert(kind, page, await embedRecords(kind, page, ports.embeddings));
      counts[kind] += page.length;
      options.onProgress?.(kind, counts[kind]);
    }
  }
  return counts;
}
