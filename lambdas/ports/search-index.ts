import type { Facets } from '../core/query/facets';
import type { ListQuery, PagePosition } from '../core/query/list-query';
import type { RecordByKind, ResourceKind } from '../core/records';
import type { EmptyAnswer } from '../core/search/no-results';
import type { QueryFloor } from '../core/search/query-floor';
import type { SimilarityScale } from '../core/search/relevance';

export type IndexedResult<K extends ResourceKind> = RecordByKind[K] & { relevance?: number };

/** Whether `total` is every match (`eq`) or a lower bound (`gte`): Elasticsearch's and OpenSearch's `hits.total.relation`. */
export type TotalRelation = 'eq' | 'gte';

export interface IndexPage<K extends ResourceKind> {
  total: number;
  /**
   * `gte` when `total` is a lower bound: a semantic or hybrid search whose bounded window of
   * nearest candidates was exhausted above the floor (the OpenSearch adapter). Absent: exact.
   */
  totalRelation?: TotalRelation;
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
  /** Only when a search (or listing) found nothing: why (lambdas/core/search/no-results.ts). */
  empty?: EmptyAnswer;
  /** Semantic and hybrid searches: the query's floor and the evidence it was set on (query-floor.ts). */
  floor?: QueryFloor;
  /** Set when a hybrid search was answered from its keyword half alone, and why (the index shed its vector work). */
  degraded?: string;
}

/** What a semantic or hybrid query adds to the ListQuery: the query text's vector and the embedder's similarity scale. */
export interface SemanticQuery {
  /** Unit length, in the index's vector space; null when the text has no word the embedder knows, or the model is down. */
  vector: Float32Array | null;
  /** The floors a match's cosine must reach and the cosine of relevance 1 (lambdas/core/search/relevance.ts). */
  scale: SimilarityScale;
  /**
   * A floor that holds whatever the query's evidence, in place of the query's own
   * (lambdas/core/search/query-floor.ts): grant matching's candidate floor, for a profile is not a query.
   */
  fixedFloor?: number;
}

/**
 * Lists, counts and searches (OpenSearch in AWS; SQLite FTS5 locally). The index holds the full
 * public record, so a page is served from it alone. Both adapters implement the same semantics,
 * checked by one contract suite (test/contract):
 *
 * - keyword: lambdas/core/search/keyword-query.ts: records an identifier field matches
 *   (identifiers.ts), then BM25 over the keyword fields (keyword-fields.ts) with OR semantics, a
 *   minimum-should-match of the stemmed terms, a near-phrase boost and the title weighted above the
 *   body, full matches before partial ones; tiers by score (FULL_MATCH_SCORE,
 *   IDENTIFIER_MATCH_SCORE). No semantic gate: every match is a result. Keyword mode needs no vector.
 * - semantic: the query's floor (query-floor.ts) from the whole kind, filters aside: its best
 *   cosine, the best cosine among its full keyword matches, its identifier matches. Then the
 *   records passing the filters whose cosine reaches that floor; relevance is relevanceOfCosine.
 *   The embedded index scans them all (total exact); the OpenSearch adapter ranks a bounded
 *   window of nearest candidates (approximate k-NN with the filters inside) and says `gte` when
 *   the window filled above the floor. None when the floor is null; a null vector matches nothing.
 * - hybrid: the keyword matches (as keyword mode) and the semantic matches (as semantic mode),
 *   fused by fuseHybrid (lambdas/core/search/fusion.ts); identifier matches first. The OpenSearch
 *   adapter reads each list to its window (the best by score) and its result set is the fused
 *   lists (`gte` when either filled the window). Nothing at all when the query floor's basis is
 *   `none` (an off-topic query), whatever its words match.
 * - an empty answer says why (IndexPage.empty): no_terms, no_match, below_floor, or filtered_out
 *   with the number of matches before the filters.
 * - relevance order is score descending, ties by id ascending (asc order is the exact reverse);
 *   an explicit sort field orders the same set by that field, nulls last, ties by id.
 * - facets (only when ListQuery.facets asks, grants and contracts): counted over the whole result
 *   set `total` counts, in every mode (hybrid: the union; on OpenSearch, the window's matches),
 *   never a page, with the definitions of lambdas/core/query/facets.ts.
 * - keyset paging: a query with `after` (a page's `next`) answers the `limit` results that follow
 *   that position in the query's order, ignoring `offset`, with no depth cap, and the same `total`;
 *   walked from the first page, it returns every result exactly once, in offset paging's order.
 *   The position is the adapter's own sort key (sort value or score, then id): a record added or
 *   removed between pages shifts nothing. The OpenSearch adapter's semantic and hybrid modes read
 *   a bounded window (OpenSearchIndexOptions.window) and refuse (400) a page past it.
 */
export interface SearchIndex {
  query<K extends ResourceKind>(kind: K, query: ListQuery & { kind: K }, semantic?: SemanticQuery): Promise<IndexPage<K>>;
  /** vectors[i] belongs to records[i]; a null (or missing) vector leaves the record out of semantic matches. */
  upsert<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][], vectors?: readonly (Float32Array | null)[]): Promise<void>;
  remove(kind: ResourceKind, ids: readonly string[]): Promise<void>;
}
