import type { ListQuery } from '../core/query/list-query';
import type { RecordByKind, ResourceKind } from '../core/records';

export type IndexedResult<K extends ResourceKind> = RecordByKind[K] & { relevance?: number };

export interface IndexPage<K extends ResourceKind> {
  total: number;
  /** Empty when the query was count_only. */
  results: IndexedResult<K>[];
}

/** What a semantic or hybrid query adds to the ListQuery: the query text's vector and the floors. */
export interface SemanticQuery {
  /** Unit length, in the index's vector space; null when the text has no word the embedder knows. */
  vector: Float32Array | null;
  /** Minimum cosine similarity for a semantic match (per embedder; lambdas/core/search/relevance.ts). */
  floor: number;
  /**
   * Minimum cosine a full keyword match needs to stay in a keyword or hybrid result set: a record that shares
   * words with the query but is about something else entirely ("used car prices" in a grant that
   * says funds may be "used" for "car" seats) is not a hybrid match. Lower than `floor`.
   */
  keywordFloor: number;
  /**
   * Minimum cosine of a partial keyword match (a telling word but fewer than the required words;
   * lambdas/core/search/keyword-query.ts), which follows the full matches in keyword and hybrid
   * search. Absent: no partial matches (an embedder whose cosines cannot tell on-topic from
   * off-topic, such as the word-vector fallback).
   */
  partialFloor?: number;
}

/**
 * Lists, counts and searches (OpenSearch in AWS; SQLite FTS5 locally). The index holds the full
 * public record, so a page is served from it alone. Both adapters implement the same semantics,
 * checked by one contract suite (test/contract):
 *
 * - keyword: lambdas/core/search/keyword-query.ts: BM25 over title, description, funder and
 *   categories (funders: name and summary) with OR semantics, a minimum-should-match of the
 *   stemmed terms, a near-phrase boost, and the title weighted above the body. Given a
 *   SemanticQuery with a vector, full matches whose cosine is under its keywordFloor are dropped,
 *   and partial matches (a telling term, fewer than the minimum) reaching its partialFloor follow
 *   the full ones.
 * - semantic: the records passing the filters whose vector's cosine with the query vector is at
 *   least the floor, all of them (the filters apply inside the k-NN search, never after a top-k
 *   cut); relevance is the cosine clipped to [0, 1]. A null vector matches nothing.
 * - hybrid: the keyword list (keyword mode's matches) and the semantic list,
 *   fused by fuseRankings (lambdas/core/search/fusion.ts); the results are the fused set (total
 *   is its size, never a window), relevance the fused score.
 * - relevance order is score descending, ties by id ascending (asc order is the exact reverse);
 *   an explicit sort field orders the same set by that field, nulls last, ties by id.
 */
export interface SearchIndex {
  query<K extends ResourceKind>(kind: K, query: ListQuery & { kind: K }, semantic?: SemanticQuery): Promise<IndexPage<K>>;
  /** vectors[i] belongs to records[i]; a null (or missing) vector leaves the record out of semantic matches. */
  upsert<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][], vectors?: readonly (Float32Array | null)[]): Promise<void>;
  remove(kind: ResourceKind, ids: readonly string[]): Promise<void>;
}
