import type { ListQuery, SearchMode } from '../../core/query/list-query';
import type { ResourceKind } from '../../core/records';
import type { FusedHit } from '../../core/search/fusion';
import { answersHybrid, type QueryFloor } from '../../core/search/query-floor';
import { cosineOfOpenSearchScore, relevanceOfCosine, roundedRelevance, type SimilarityScale } from '../../core/search/relevance';
import type { SemanticQuery } from '../../ports/search-index';
import { facetAggregationsOf } from './opensearch-facets';
import { type Dsl, filterClauses, sortClauses } from './opensearch-filters';
import { fusedStartAfter, searchAfterOf } from './opensearch-keyset';
import { INTERNAL_FIELDS } from './opensearch-mappings';
import type { SearchHit } from './opensearch-responses';
import { fullMatchClause, identifierClause, keywordClause, keywordsOf, type TermStatistics, usableVector, windowClause } from './opensearch-text-clauses';
import { FLOOR_EVIDENCE_CANDIDATES } from './opensearch-vector-search';

/**
 * The OpenSearch query DSL of a ListQuery: pure functions, no I/O. Every filter means exactly
 * what the embedded index's SQL means (lambdas/adapters/embedded/sqlite-search-index.ts), and the
 * modes follow the SearchIndex port (lambdas/ports/search-index.ts):
 *
 * - keyword: identifier fields (a dis_max of constant scores), then `multi_match` cross_fields of
 *   the keyword terms over the weighted fields, holding the minimum-should-match or a telling term,
 *   with a sloppy phrase of all the terms as a boosting `should` (keywordClause). The text sent is
 *   only the terms joined by spaces, so query syntax in the user's text is never interpreted (no
 *   query_string anywhere). No vector.
 * - the query floor (query-floor.ts): one `_msearch` over the whole kind, filters aside, of the
 *   best cosine of any record, the best cosine among the full keyword matches (each the nearest of
 *   a k-NN search), and the count of identifier matches (floorEvidenceBodies).
 * - semantic: the window (VectorSearchSettings.window) of nearest candidates passing the filters,
 *   those under the query's floor dropped: the total is exact unless all the window reached it.
 * - hybrid: the keyword list and the semantic list to the window, with their scores, in one
 *   `_msearch`; fused by core/search/fusion.ts, and the page read by id. The fused set is the
 *   result set: a lower bound when either list filled the window. Nothing when the query floor's
 *   basis is `none`.
 */

function boolQuery(must: Dsl | null, filters: Dsl[]): Dsl {
  if (!must && filters.length === 0) return { match_all: {} };
  return { bool: { ...(must ? { must: [must] } : {}), ...(filters.length > 0 ? { filter: filters } : {}) } };
}

function sourceOf(kind: ResourceKind): Dsl {
  return { excludes: [...INTERNAL_FIELDS[kind]] };
}

/**
 * from/size/sort of a page, or only the count. After a position (keyset paging) it is the page's
 * results and one more, which says whether more follow: search_after the position, from 0, so no
 * depth reaches the index's max_result_window.
 */
function pageOf(query: ListQuery, sort: Dsl[]): Dsl {
  if (query.countOnly) return { size: 0 };
  if (query.after) return { sort, search_after: searchAfterOf(query.after, sort.length), size: query.limit + 1 };
  return { sort, from: query.offset, size: query.limit };
}

/** A listing (no search text) or a keyword search; null when the search text cannot match anything. */
export function keywordSearchBody(kind: ResourceKind, query: ListQuery, statistics?: TermStatistics): Dsl | null {
  let must: Dsl | null = null;
  const filters = filterClauses(query);
  if (query.search) {
    must = keywordClause(kind, query.search.text, statistics);
    if (!must) return null;
  }
  return {
    query: boolQuery(must, filters),
    ...pageOf(query, sortClauses(query.sort)),
    track_total_hits: true,
    _source: sourceOf(kind),
    ...facetAggregationsOf(kind, query),
  };
}

/** A semantic search of the window at the query's floor; null when there is no query vector or no floor (nothing matches). */
export function semanticSearchBody(kind: ResourceKind, query: ListQuery, semantic: SemanticQuery, floor: QueryFloor, window: number): Dsl | null {
  const vector = usableVector(semantic);
  if (!vector || floor.semanticFloor === null) return null;
  return {
    query: windowClause(vector, floor.semanticFloor, filterClauses(query), window),
    ...pageOf(query, sortClauses(query.sort)),
    // Sorted by a field, hits carry a score (the relevance) only when asked to.
    ...(!query.countOnly && query.sort.field !== 'relevance' ? { track_scores: true } : {}),
    track_total_hits: true,
    _source: sourceOf(kind),
    // min_score drops records under the floor from the matches, so from the aggregations too.
    ...facetAggregationsOf(kind, query),
  };
}

/** A semantic hit's relevance: its cosine on the embedder's scale. */
export function relevanceOfScore(score: number, scale: SimilarityScale): number {
  return roundedRelevance(relevanceOfCosine(cosineOfOpenSearchScore(score), scale));
}

/**
 * What the query floor (query-floor.ts) is set on, over the whole kind with no filter: the best
 * cosine of any record; the best among the full keyword matches, when every word of the query is
 * in some record (keyword-query.ts); and how many records an identifier field matches. Each
 * present body, in that order (`reads` names them).
 */
export function floorEvidenceBodies(
  kind: ResourceKind,
  text: string,
  semantic: SemanticQuery,
  statistics?: TermStatistics,
): { bodies: Dsl[]; reads: ('best' | 'words' | 'identifiers')[] } {
  const vector = usableVector(semantic);
  const bodies: Dsl[] = [];
  const reads: ('best' | 'words' | 'identifiers')[] = [];
  const best = (filters: Dsl[]): Dsl => ({
    query: windowClause(vector!, null, filters, FLOOR_EVIDENCE_CANDIDATES),
    size: 1,
    _source: false,
    track_total_hits: false,
  });
  if (vector) {
    bodies.push(best([]));
    reads.push('best');
    const keywords = keywordsOf(text, statistics);
    if (keywords && keywords.counted.length === keywords.terms.length) {
      bodies.push(best([fullMatchClause(kind, keywords)]));
      reads.push('words');
    }
  }
  const identifiers = identifierClause(kind, text);
  if (identifiers) {
    bodies.push({ query: identifiers, size: 0, track_total_hits: true });
    reads.push('identifiers');
  }
  return { bodies, reads };
}

/**
 * One ranked list of a hybrid query: ids and scores, best first, to the window. By score alone
 * and with no total, so Lucene skips the records that cannot reach the window (the fusion breaks
 * ties by id). The ids come from the `id` field's doc values, not the stored `_id`: fetching a
 * thousand stored fields means decompressing their blocks, most of such a list's time.
 */
function rankListBody(query: Dsl, window: number): Dsl {
  return { query, size: window, _source: false, stored_fields: '_none_', docvalue_fields: ['id'], track_total_hits: false };
}

/** The record id of a ranked list's hit (rankListBody): its `id` doc value. */
export function rankedIdOf(hit: SearchHit): string {
  const id = hit.fields?.id?.[0];
  if (typeof id !== 'string') throw new Error('a ranked hit came back without its id doc value');
  return id;
}

/**
 * The two lists of a hybrid query to the window, either null when it cannot match anything (no
 * term and no identifier; no vector or no semantic floor). Without a vector (the model did not
 * answer, or vector work is shed), the keyword list alone.
 */
export function hybridRankBodies(
  kind: ResourceKind,
  query: ListQuery,
  semantic: SemanticQuery,
  floor: QueryFloor | null,
  window: number,
  statistics?: TermStatistics,
): { keyword: Dsl | null; semantic: Dsl | null } {
  const filters = filterClauses(query);
  const terms = query.search ? keywordClause(kind, query.search.text, statistics) : null;
  const vector = usableVector(semantic);
  const keyword: Dsl | null = terms ? { bool: { must: [terms], filter: filters } } : null;
  const similar = vector && floor && floor.semanticFloor !== null ? windowClause(vector, floor.semanticFloor, filters, window) : null;
  return {
    keyword: keyword ? rankListBody(keyword, window) : null,
    semantic: similar ? rankListBody(similar, window) : null,
  };
}

/** The facets a query asked for, counted over a fused hybrid set (its ids go to the cluster; none come back). */
export function fusedFacetsBody(kind: ResourceKind, query: ListQuery, ids: readonly string[]): Dsl {
  return { query: { bool: { filter: [{ ids: { values: [...ids] } }] } }, size: 0, track_total_hits: false, ...facetAggregationsOf(kind, query) };
}

/**
 * How many records the search matches with no filter at all: an empty answer says whether its
 * filters emptied it (IndexPage.empty). Null when the search cannot match anything.
 */
export function unfilteredCountBody(
  kind: ResourceKind,
  text: string,
  mode: SearchMode,
  semantic: SemanticQuery | undefined,
  floor: QueryFloor | null,
  window: number,
  statistics?: TermStatistics,
): Dsl | null {
  // An off-topic hybrid query matches nothing whatever its filters.
  if (mode === 'hybrid' && usableVector(semantic) && (!floor || !answersHybrid(floor))) return null;
  const terms = mode === 'semantic' ? null : keywordClause(kind, text, statistics);
  const vector = usableVector(semantic);
  const similar = mode !== 'keyword' && vector && floor && floor.semanticFloor !== null ? windowClause(vector, floor.semanticFloor, [], window) : null;
  const either = [terms, similar].filter((clause): clause is Dsl => clause !== null);
  return either.length === 0 ? null : { query: { bool: { should: either, minimum_should_match: 1 } }, size: 0, track_total_hits: true };
}

/** The NDJSON lines of an `_msearch` over one index: a header (the index is in the path) before each body. */
export function msearchLines(bodies: readonly Dsl[]): Dsl[] {
  return bodies.flatMap((body) => [{}, body]);
}

/**
 * The page of a fused hybrid set. In relevance order it is a slice of the fused ids (ascending is
 * the exact reverse), fetched by id and put back in that order (`ids`); sorted by a field, the
 * index sorts the fused set and pages it.
 */
export function hybridPageRequest(
  kind: ResourceKind,
  query: ListQuery,
  fused: readonly FusedHit<string>[],
): { body: Dsl; ids?: string[]; start?: number; ordered?: readonly FusedHit<string>[] } {
  if (query.sort.field === 'relevance') {
    const ordered = query.sort.order === 'desc' ? fused : [...fused].reverse();
    const start = query.after ? fusedStartAfter(ordered, query.sort.order, query.after) : query.offset;
    const ids = ordered.slice(start, start + query.limit).map((hit) => hit.key);
    return { body: { query: { ids: { values: ids } }, size: ids.length, track_total_hits: false, _source: sourceOf(kind) }, ids, start, ordered };
  }
  return {
    body: {
      query: { bool: { filter: [{ ids: { values: fused.map((hit) => hit.key) } }] } },
      ...pageOf(query, sortClauses(query.sort)),
      track_total_hits: false,
      _source: sourceOf(kind),
    },
  };
}

/** What to ask the index for one query (see OpenSearchIndex.query). */
export type QueryPlan =
  /** Nothing can match: no request is made. */
  | { type: 'none' }
  /** One `_search`; `scored` means the hits' scores are cosines to turn into relevance. */
  | { type: 'search'; body: Dsl; scored: boolean }
  /** One `_msearch` of the lists present, fused as [keyword, semantic], an absent one empty. */
  | { type: 'hybrid'; bodies: Dsl[]; lists: ('keyword' | 'semantic')[] };

/** The plan of a query; semantic and hybrid ones need the query floor (null: none yet, or no vector) and the window. */
export function planQuery(
  kind: ResourceKind,
  query: ListQuery,
  window: number,
  semantic?: SemanticQuery,
  statistics?: TermStatistics,
  floor: QueryFloor | null = null,
): QueryPlan {
  const mode = query.search?.mode ?? 'keyword';
  if (mode === 'keyword') {
    const body = keywordSearchBody(kind, query, statistics);
    return body ? { type: 'search', body, scored: false } : { type: 'none' };
  }
  if (!semantic) throw new Error(`a ${mode} query needs the query vector`);
  if (mode === 'semantic') {
    const body = floor ? semanticSearchBody(kind, query, semantic, floor, window) : null;
    return body ? { type: 'search', body, scored: true } : { type: 'none' };
  }
  // Off topic: whatever its words match, hybrid search answers nothing. Without a vector (the model did not answer), the keyword list alone.
  if (usableVector(semantic) && (!floor || !answersHybrid(floor))) return { type: 'none' };
  const lists = hybridRankBodies(kind, query, semantic, floor, window, statistics);
  const present = (['keyword', 'semantic'] as const).filter((list) => lists[list] !== null);
  if (present.length === 0) return { type: 'none' };
  return { type: 'hybrid', bodies: present.map((list) => lists[list]!), lists: [...present] };
}
