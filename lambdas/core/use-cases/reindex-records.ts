import { RESOURCE_KINDS, type ResourceKind } from '../records';
import type { RecordStore } from '../../ports/record-store';
import type { SearchIndex } from '../../ports/search-index';

/**
 * Copies every record from the store into the search index, page by page: the backfill for an
 * index that missed writes (records stored before the indexer existed, or stream batches that
 * ended in the indexer's failure queue). Upserts are idempotent, so running it twice is harmless.
 */
export async function reindexRecords(
  store: RecordStore,
  index: SearchIndex,
  options: { kinds?: readonly ResourceKind[]; onProgress?: (kind: ResourceKind, indexed: number) => void } = {},
): Promise<Record<ResourceKind, number>> {
  const counts: Record<ResourceKind, number> = { grant: 0, contract: 0, funder: 0 };
  for (const kind of options.kinds ?? RESOURCE_KINDS) {
    for await (const page of store.scan(kind)) {
      await index.upsert(kind, page);
      counts[kind] += page.length;
      options.onProgress?.(kind, counts[kind]);
    }
  }
  return counts;
}
