import type { RecordByKind, ResourceKind } from '../../core/records';
import type { RecordStore } from '../../ports/record-store';
import type { SearchIndex } from '../../ports/search-index';

/**
 * The local change feed. In AWS a DynamoDB stream drives the indexer; dynalite has no streams, so
 * locally every successful write is handed to the index straight after it is stored.
 */
export class IndexingRecordStore implements RecordStore {
  constructor(private readonly store: RecordStore, private readonly index: SearchIndex) {}

  get<K extends ResourceKind>(kind: K, id: string): Promise<RecordByKind[K] | null> {
    return this.store.get(kind, id);
  }

  async put<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][]): Promise<void> {
    await this.store.put(kind, records);
    await this.index.upsert(kind, records);
  }

  scan<K extends ResourceKind>(kind: K): AsyncIterable<RecordByKind[K][]> {
    return this.store.scan(kind);
  }
}
