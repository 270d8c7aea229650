import { contentHashOf } from '../../core/ingest/identity';
import type { RecordByKind, ResourceKind } from '../../core/records';
import { indexRecordChanges, type IndexerPorts } from '../../core/use-cases/index-record-changes';
import type { RecordStore, StoredVersion } from '../../ports/record-store';

/**
 * The local change feed. In AWS a DynamoDB stream hands each write (old and new image) to the
 * indexer; dynalite has no streams, so locally this store reads the stored versions first, writes,
 * and hands the same before/after pairs to the same indexer code.
 */
export class IndexingRecordStore implements RecordStore {
  constructor(private readonly store: RecordStore, private readonly indexer: IndexerPorts) {}

  get<K extends ResourceKind>(kind: K, id: string): Promise<RecordByKind[K] | null> {
    return this.store.get(kind, id);
  }

  versions(kind: ResourceKind, ids: readonly string[]): Promise<Map<string, StoredVersion>> {
    return this.store.versions(kind, ids);
  }

  async put<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][]): Promise<void> {
    const before = await this.store.versions(kind, records.map((record) => record.id));
    await this.store.put(kind, records);
    await indexRecordChanges(records.map((record) => {
      const stored = before.get(record.id);
      return {
        kind,
        id: record.id,
        before: stored ? { contentHash: stored.contentHash } : null,
        after: { record, contentHash: contentHashOf(record) },
      };
    }), this.indexer);
  }

  scan<K extends ResourceKind>(kind: K): AsyncIterable<RecordByKind[K][]> {
    return this.store.scan(kind);
  }
}
