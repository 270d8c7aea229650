import type { ListQuery } from '../core/query/list-query';
import type { RecordByKind, ResourceKind } from '../core/records';

export type IndexedResult<K extends ResourceKind> = RecordByKind[K] & { relevance?: number };

export interface IndexPage<K extends ResourceKind> {
  total: number;
  /** Empty when the query was count_only. */
  results: IndexedResult<K>[];
}

/**
 * Lists, counts and searches (OpenSearch in AWS; SQLite FTS5 locally). The index holds the full
 * public record, so a page is served from it alone. Semantic and hybrid queries travel in the same
 * ListQuery (its search mode) plus an optional query vector, so adding them changes no caller.
 */
export interface SearchIndex {
  query<K extends ResourceKind>(kind: K, query: ListQuery & { kind: K }, queryVector?: Float32Array): Promise<IndexPage<K>>;
  upsert<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][]): Promise<void>;
  remove(kind: ResourceKind, ids: readonly string[]): Promise<void>;
}
