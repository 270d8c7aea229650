import type { RecordByKind, ResourceKind } from '../core/records';

/** The system of record (DynamoDB in AWS; the same adapter against dynalite locally). */
export interface RecordStore {
  get<K extends ResourceKind>(kind: K, id: string): Promise<RecordByKind[K] | null>;
  /** Upserts whole records; batches internally. */
  put<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][]): Promise<void>;
  /** Streams every record of a kind, page by page (re-indexing, exports). */
  scan<K extends ResourceKind>(kind: K): AsyncIterable<RecordByKind[K][]>;
}
