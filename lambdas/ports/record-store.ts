import type { RecordByKind, ResourceKind } from '../core/records';

/** What the store knows of a record's current version without reading it whole. */
export interface StoredVersion {
  /** SHA-256 of the public fields (contentHashOf); empty for items written before hashes existed. */
  contentHash: string;
  createdAt: string;
}

/** The system of record (DynamoDB in AWS; the same adapter against dynalite locally). */
export interface RecordStore {
  get<K extends ResourceKind>(kind: K, id: string): Promise<RecordByKind[K] | null>;
  /** Current versions of the records that exist, by id; batches internally. */
  versions(kind: ResourceKind, ids: readonly string[]): Promise<Map<string, StoredVersion>>;
  /** Upserts whole records with their content hash; batches internally. */
  put<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][]): Promise<void>;
  /** Streams every record of a kind, page by page (re-indexing, exports). */
  scan<K extends ResourceKind>(kind: K): AsyncIterable<RecordByKind[K][]>;
}
