import type { Facets } from '../core/query/facets';
import type { ListQuery, PagePosition } from '../core/query/list-query';
import type { RecordByKind, ResourceKind } from '../core/records';
import type { SimilarityScale } from '../core/search/relevance';

export type IndexedResult<K extends ResourceKind> = RecordByKind[K] & { relevance?: number };

export interface IndexPage<K extends ResourceKind> {
  total: number;
  /** Empty when the query was count_only. */
  results: IndexedResult<K>[];
  /** The facets the query asked for (ListQuery.facets), counted over the whole result set; absent when none were asked. */
  facets?: Facets;
  /**
   * The last result's sort key, present when more results follow the page (absent on the last
   * page and with count_only): a later query with `after` set to it continues right after that
   * result, in the same order.
   */
  next?: PagePosition;
}

/** What a semantic or hybrid query adds to the ListQuery: the query text's vector and the embedder's similarity scale. */
export interface SemanticQuery {
  /** Unit length, in the index's vector space; null when the text has no word the embedder knows, or the model is down. */
  vector: Float32Array | null;
  /** The floor a match's cosine must reach, the cosine of relevance 1, and whether keyword matches are held to the floor (lambdas/core/search/relevance.ts). */
  scale: SimilarityScale;
}

/**
 * Lists, counts and searches (OpenSearch in AWS; SQLite FTS5 locally). The index holds the full
 * public record, so a page is served from it alone. Both adapters implement the same semantics,
 * checked by one contract suite (test/contract):
 *
 * - keyword: lambdas/core/search/keyword-query.ts: BM25 over title, description, funder and
 *   categories (funders: name and summary) with OR semantics, a minimum-should-match of the
 *   stemmed terms, a near-phrase boost, and the title weighted above the body. Given a
 *   SemanticQuery with a vector whose scale gates keywords, a match's cosine must reach the floor
 *   (a record that shares words with the query but is about something else is no match), and
 *   partial matches (a telling term, fewer than the minimum) that reach it follow the full ones;
 *   without one, every full match and no partial one.
 * - semantic: the records passing the filters whose vector's cosine with the query vector is at
 *   least the floor, all of them (an exact scan of the filtered records: never a top-k cut, never
 *   an approximate graph search that can miss one); relevance is relevanceOfCosine. A null vector
 *   matches nothing.
 * - hybrid: the keyword matches (as keyword mode) and the semantic matches, fused by fuseHybrid
 *   (lambdas/core/search/fusion.ts) from the keyword list's BM25 scores and the semantic list's
 *   cosines; the results are the union (total is its size, never a window), relevance the fused
 *   score.
 * - relevance order is score descending, ties by id ascending (asc order is the exact reverse);
 *   an explicit sort field orders the same set by that field, nulls last, ties by id.
 * - facets (only when ListQuery.facets asks, grants and contracts): counted over the whole result
 *   set `total` counts, in every mode (hybrid: the union), never a page or a rank window, with the
 *   definitions of lambdas/core/query/facets.ts.
 * - keyset paging: a query with `after` (a page's `next`) answers the `limit` results that follow
 *   that position in the query's order, ignoring `offset`, with no depth cap, and the same `total`;
 *   walked from the first page, it returns every result exactly once, in offset paging's order.
 *   The position is the adapter's own sort key (sort value or score, then id): a record added or
 *   removed between pages shifts nothing. The OpenSearch adapter's hybrid mode fuses lists read
 *   to HYBRID_RANK_WINDOW and refuses (400, cursor) a page past them.
 */
export interface SearchIndex {
  query<K extends ResourceKind>(kind: K, query: ListQuery & { kind: K }, semantic?: SemanticQuery): Promise<IndexPage<K>>;
  /** vectors[i] belongs to records[i]; a null (or missing) vector leaves the record out of semantic matches. */
  upsert<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][], vectors?: readonly (Float32Array | null)[]): Promise<void>;
  remove(kind: ResourceKind, ids: readonly string[]): Promise<void>;
}
