import { staleBefore } from '../../core/query/applyable';
import type { ListQuery, OpportunityFilters, SortField, StatusClause } from '../../core/query/list-query';
import { fusedStartAfter, searchAfterOf } from './opensearch-keyset';
import type { ResourceKind } from '../../core/records';
import { HYBRID_RANK_WINDOW, type FusedHit } from '../../core/search/fusion';
import { cosineOfOpenSearchScore, relevanceOfCosine, roundedRelevance, type SimilarityScale } from '../../core/search/relevance';
import type { SemanticQuery } from '../../ports/search-index';
import { facetAggregationsOf } from './opensearch-facets';
import type { SearchHit } from './opensearch-responses';
import { GEOGRAPHY_LEVEL_FIELD, INTERNAL_FIELDS, isZeroVector, OPEN_ENDED_FIELD, SORT_SUBFIELD } from './opensearch-mappings';
import { keywordClause, knnClause, usableVector, type TermStatistics } from './opensearch-text-clauses';

/**
 * The OpenSearch query DSL of a ListQuery: pure functions, no I/O. Every filter means exactly
 * what the embedded index's SQL means (lambdas/adapters/embedded/sqlite-search-index.ts), and the
 * modes follow the SearchIndex port (lambdas/ports/search-index.ts):
 *
 * - keyword: `multi_match` cross_fields (operator or, minimum_should_match MINIMUM_SHOULD_MATCH) of
 *   the keyword terms over title^3, description, funder_name and categories (funders: name^3 and
 *   summary), with the english analyzer stemming both sides, plus a sloppy phrase of all the terms
 *   as a boosting `should`; with a model whose scale gates keywords, a k-NN filter holds every
 *   match to the floor and on-topic partial matches follow the full ones (keywordClause). The text sent is only the terms joined by spaces, so query syntax in
 *   the user's text is never interpreted (no query_string anywhere).
 * - semantic: a radial k-NN query (`min_score`, OpenSearch 2.14+) with the filters inside it, so
 *   every record above the floor that passes the filters is found, never a top-k then a filter.
 * - hybrid: the keyword list (keyword mode's matches, plain BM25) and the semantic list (matches
 *   above the floor) with their scores, and the count of their union, in one `_msearch`; fused by
 *   core/search/fusion.ts, and the page read by id.
 */

export type Dsl = Record<string, unknown>;

const TEXT_SORT_FIELDS: ReadonlySet<string> = new Set(['title', 'name']);
const DATE_SORT_FIELDS: ReadonlySet<string> = new Set(['created_at', 'deadline_date']);
/**
 * Where a missing date sorts (last in both orders): the first and last days of years 1 and 9999,
 * in epoch milliseconds. `missing: '_last'` would put the longs' extremes in a hit's sort values,
 * which a JavaScript number cannot carry back into search_after exactly (deep paging).
 */
const DATE_MISSING = { asc: 253_402_214_400_000, desc: -62_135_596_800_000 } as const;

/** Any of the clauses (an OR). */
export function anyOf(clauses: Dsl[]): Dsl {
  return { bool: { should: clauses, minimum_should_match: 1 } };
}

/** Records without a value in `field`. */
export function missing(field: string): Dsl {
  return { bool: { must_not: [{ exists: { field } }] } };
}

/**
 * Live on `today` (core/query/applyable.ts): deadline and archive date not passed, not a stale
 * open-ended listing. Ranges never match a missing value, so a missing date never excludes.
 */
function lapsedClauses(today: string): Dsl[] {
  return [
    { range: { deadline_date: { lt: today } } },
    { range: { archive_date: { lt: today } } },
    { bool: { filter: [{ term: { [OPEN_ENDED_FIELD]: true } }, { range: { created_at: { lt: staleBefore(today) } } }] } },
  ];
}

/** A stored status, narrowed to the records live on `today` (live: true) or lapsed (live: false). */
export function statusClause(clause: StatusClause, today: string): Dsl {
  const stored: Dsl = { term: { status: clause.stored } };
  if (clause.live === true) return { bool: { filter: [stored], must_not: lapsedClauses(today) } };
  if (clause.live === false) return { bool: { filter: [stored], should: lapsedClauses(today), minimum_should_match: 1 } };
  return stored;
}

/** Records for any of the states; `alsoNational` adds national records (an empty `states`, which indexes no value). */
export function statesClause(states: readonly string[], alsoNational: boolean): Dsl {
  const specific: Dsl = { terms: { states: [...states] } };
  return alsoNational ? anyOf([specific, missing('states')]) : specific;
}

/** `*` and `?` are wildcard syntax and `\` escapes them: a user's text matches itself literally. */
export function escapeWildcard(text: string): string {
  return text.replace(/[\\*?]/g, (c) => `\\${c}`);
}

/** One filter clause per filter of the query, in the order of OpportunityFilters (none for funders). */
export function filterClauses(query: Pick<ListQuery, 'filters' | 'today' | 'ids'>): Dsl[] {
  const f: OpportunityFilters | null = query.filters;
  const clauses: Dsl[] = query.ids ? [{ ids: { values: [...query.ids] } }] : [];
  if (!f) return clauses;
  if (f.opportunityType !== 'all') clauses.push({ term: { opportunity_type: f.opportunityType } });
  if (f.status) clauses.push(anyOf(f.status.map((clause) => statusClause(clause, query.today))));
  if (f.category) clauses.push({ term: { categories: f.category.toLowerCase() } });
  if (f.states) clauses.push(statesClause(f.states, f.includeNational));
  if (f.geography?.level) clauses.push({ term: { [GEOGRAPHY_LEVEL_FIELD]: f.geography.level } });
  else if (f.geography?.states) clauses.push(statesClause(f.geography.states, false));
  else if (f.geography?.text) {
    // A substring of the free-text geography, ignoring case (SQLite: instr(lower(geography), ?)).
    clauses.push({ wildcard: { [`geography.${SORT_SUBFIELD}`]: { value: `*${escapeWildcard(f.geography.text.toLowerCase())}*`, case_insensitive: true } } });
  }
  // Ranges never match a missing value, as SQL comparisons never match NULL.
  if (f.deadlineAfter) clauses.push({ range: { deadline_date: { gt: f.deadlineAfter } } });
  if (f.deadlineBefore) clauses.push({ range: { deadline_date: { lt: f.deadlineBefore } } });
  if (f.createdFrom) clauses.push({ range: { created_at: { gte: f.createdFrom } } });
  if (f.minAmount !== undefined) clauses.push({ range: { amount_max: { gte: f.minAmount } } });
  if (f.maxAmount !== undefined) clauses.push({ range: { amount_min: { lte: f.maxAmount } } });
  if (f.naics) {
    const full = f.naics.filter((code) => code.length === 6);
    const prefixes = f.naics.filter((code) => code.length < 6);
    clauses.push(anyOf([
      ...(full.length > 0 ? [{ terms: { naics: full } }] : []),
      ...prefixes.map((code) => ({ prefix: { naics: code } })),
    ]));
  }
  if (f.setAside) clauses.push({ terms: { set_aside_code: f.setAside.map((code) => code.toUpperCase()) } });
  if (f.applicant) {
    // An empty eligible_applicants (the source does not say) indexes no value.
    clauses.push(anyOf([{ term: { eligible_applicants: f.applicant.type } }, missing('eligible_applicants')]));
    if (f.applicant.lacks501c3) clauses.push({ bool: { must_not: [{ term: { requires_501c3: true } }] } });
  }
  return clauses;
}

/** The indexed field a sort field sorts on: full-text fields sort on their lower-cased keyword. */
export function sortFieldOf(field: Exclude<SortField, 'relevance'>): string {
  return TEXT_SORT_FIELDS.has(field) ? `${field}.${SORT_SUBFIELD}` : field;
}

/**
 * Relevance: score descending, ties by id ascending, and ascending order the exact reverse. A
 * field: that field with missing values last in both orders, ties by id in the same order.
 */
export function sortClauses(sort: ListQuery['sort']): Dsl[] {
  const { field, order } = sort;
  if (field === 'relevance') return [{ _score: { order } }, { id: { order: order === 'desc' ? 'asc' : 'desc' } }];
  return [{ [sortFieldOf(field)]: { order, missing: DATE_SORT_FIELDS.has(field) ? DATE_MISSING[order] : '_last' } }, { id: { order } }];
}

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


/** A listing (no search text) or a keyword search; null when the search text has no term. */
export function keywordSearchBody(kind: ResourceKind, query: ListQuery, statistics?: TermStatistics, semantic?: SemanticQuery): Dsl | null {
  let must: Dsl | null = null;
  const filters = filterClauses(query);
  if (query.search) {
    must = keywordClause(kind, query.search.text, statistics, semantic, filters);
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

/** A semantic search; null when there is no query vector (nothing matches). */
export function semanticSearchBody(kind: ResourceKind, query: ListQuery, semantic: SemanticQuery): Dsl | null {
  if (!semantic.vector || isZeroVector(semantic.vector)) return null;
  return {
    query: knnClause(semantic.vector, semantic.scale.floor, filterClauses(query)),
    ...pageOf(query, sortClauses(query.sort)),
    // Sorted by a field, hits carry a score (the relevance) only when asked to.
    ...(!query.countOnly && query.sort.field !== 'relevance' ? { track_scores: true } : {}),
    track_total_hits: true,
    _source: sourceOf(kind),
    // The script's min_score drops records under the floor from the matches, so from the aggregations too.
    ...facetAggregationsOf(kind, query),
  };
}

/** A semantic hit's relevance: its cosine on the embedder's scale. */
export function relevanceOfScore(score: number, scale: SimilarityScale): number {
  return roundedRelevance(relevanceOfCosine(cosineOfOpenSearchScore(score), scale));
}

const RANK_ORDER: ListQuery['sort'] = { field: 'relevance', order: 'desc' };

/**
 * One ranked list of a hybrid query: ids and scores, best first, to the rank window. The ids come
 * from the `id` field's doc values, not the stored `_id`: fetching a thousand stored fields means
 * decompressing their blocks, which cost a 5,000-grant index 60 ms of the list's 65.
 */
function rankListBody(query: Dsl): Dsl {
  return { query, sort: sortClauses(RANK_ORDER), size: HYBRID_RANK_WINDOW, _source: false, stored_fields: '_none_', docvalue_fields: ['id'], track_total_hits: false };
}

/** The record id of a ranked list's hit (rankListBody): its `id` doc value. */
export function rankedIdOf(hit: SearchHit): string {
  const id = hit.fields?.id?.[0];
  if (typeof id !== 'string') throw new Error('a ranked hit came back without its id doc value');
  return id;
}

/**
 * The two lists of a hybrid query, either null when it cannot match anything (no term, no
 * vector), and the count of their union (and the facets asked, over the whole union). The keyword list is keyword mode's matches scored by
 * plain BM25 (untiered, for the fusion), or every full match when there is no vector (the
 * degraded answer). When the scale gates keywords, every keyword match passes the semantic
 * list's own clause, so the union is the semantic list: it counts its total itself, and `count`
 * is null, which spares the engine a second exact scan of every filtered vector.
 */
export function hybridRankBodies(kind: ResourceKind, query: ListQuery, semantic: SemanticQuery, statistics?: TermStatistics): { keyword: Dsl | null; semantic: Dsl | null; count: Dsl | null } {
  const filters = filterClauses(query);
  const terms = query.search ? keywordClause(kind, query.search.text, statistics, semantic, filters, false) : null;
  const vector = usableVector(semantic);
  let keyword: Dsl | null = null;
  if (terms) keyword = { bool: { must: [terms], filter: filters } };
  const similar = vector ? knnClause(vector, semantic.scale.floor, filters) : null;
  if (similar && semantic.scale.gatesKeywords) {
    return { keyword: keyword ? rankListBody(keyword) : null, semantic: { ...rankListBody(similar), track_total_hits: true, ...facetAggregationsOf(kind, query) }, count: null };
  }
  const either = [keyword, similar].filter((clause): clause is Dsl => clause !== null);
  return {
    keyword: keyword ? rankListBody(keyword) : null,
    semantic: similar ? rankListBody(similar) : null,
    count: either.length > 0 ? { query: { bool: { should: either, minimum_should_match: 1 } }, size: 0, track_total_hits: true, ...facetAggregationsOf(kind, query) } : null,
  };
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
export function hybridPageRequest(kind: ResourceKind, query: ListQuery, fused: readonly FusedHit[]): { body: Dsl; ids?: string[]; start?: number; ordered?: readonly FusedHit[] } {
  if (query.sort.field === 'relevance') {
    const ordered = query.sort.order === 'desc' ? fused : [...fused].reverse();
    const start = query.after ? fusedStartAfter(ordered, query.sort.order, query.after) : query.offset;
    const ids = ordered.slice(start, start + query.limit).map((hit) => hit.id);
    return { body: { query: { ids: { values: ids } }, size: ids.length, track_total_hits: false, _source: sourceOf(kind) }, ids, start, ordered };
  }
  return {
    body: {
      query: { bool: { filter: [{ ids: { values: fused.map((hit) => hit.id) } }] } },
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
  /**
   * One `_msearch` of the lists present, then the count of their union when a list does not count
   * it (the total: the lists stop at the rank window); `totalAt` is the response that holds the
   * total. The fused lists are [keyword, semantic], an absent one empty.
   */
  | { type: 'hybrid'; bodies: Dsl[]; lists: ('keyword' | 'semantic')[]; totalAt: number };

export function planQuery(kind: ResourceKind, query: ListQuery, semantic?: SemanticQuery, statistics?: TermStatistics): QueryPlan {
  const mode = query.search?.mode ?? 'keyword';
  if (mode === 'keyword') {
    const body = keywordSearchBody(kind, query, statistics, semantic);
    return body ? { type: 'search', body, scored: false } : { type: 'none' };
  }
  if (!semantic) throw new Error(`a ${mode} query needs the query vector`);
  if (mode === 'semantic') {
    const body = semanticSearchBody(kind, query, semantic);
    return body ? { type: 'search', body, scored: true } : { type: 'none' };
  }
  const lists = hybridRankBodies(kind, query, semantic, statistics);
  const present = (['keyword', 'semantic'] as const).filter((list) => lists[list] !== null);
  if (present.length === 0) return { type: 'none' };
  const bodies = present.map((list) => lists[list]!);
  if (!lists.count) return { type: 'hybrid', bodies, lists: [...present], totalAt: present.indexOf('semantic') };
  return { type: 'hybrid', bodies: [...bodies, lists.count], lists: [...present], totalAt: present.length };
}
