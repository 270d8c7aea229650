import type { ListQuery, OpportunityFilters, SortField, StatusClause } from '../../core/query/list-query';
import type { ResourceKind } from '../../core/records';
import { HYBRID_RANK_WINDOW, type FusedHit } from '../../core/search/fusion';
import { cosineOfOpenSearchScore, openSearchScoreOfCosine, relevanceOfCosine, roundedRelevance } from '../../core/search/relevance';
import { keywordTerms } from '../../core/text';
import type { SemanticQuery } from '../../ports/search-index';
import { GEOGRAPHY_LEVEL_FIELD, INTERNAL_FIELDS, isZeroVector, SORT_SUBFIELD, VECTOR_FIELD } from './opensearch-mappings';

/**
 * The OpenSearch query DSL of a ListQuery: pure functions, no I/O. Every filter means exactly
 * what the embedded index's SQL means (lambdas/adapters/embedded/sqlite-search-index.ts), and the
 * modes follow the SearchIndex port (lambdas/ports/search-index.ts):
 *
 * - keyword: `multi_match` (cross_fields, operator and) of the keywordTerms over title^3 and
 *   description (funders: name^3 and summary), with the english analyzer stemming both sides.
 *   The text sent is only the terms joined by spaces, so query syntax in the user's text is
 *   never interpreted (no query_string anywhere).
 * - semantic: a radial k-NN query (`min_score`, OpenSearch 2.14+) with the filters inside it, so
 *   every record above the floor that passes the filters is found, never a top-k then a filter.
 * - hybrid: two id lists in one `_msearch`, fused by reciprocal rank (core/search/fusion.ts), and
 *   the page read by id.
 */

export type Dsl = Record<string, unknown>;

/** The fields a keyword search reads, the first weighted three times. */
export const KEYWORD_FIELDS: Readonly<Record<ResourceKind, readonly [string, string]>> = {
  grant: ['title^3', 'description'],
  contract: ['title^3', 'description'],
  funder: ['name^3', 'summary'],
};

const TEXT_SORT_FIELDS: ReadonlySet<string> = new Set(['title', 'name']);

function anyOf(clauses: Dsl[]): Dsl {
  return { bool: { should: clauses, minimum_should_match: 1 } };
}

function missing(field: string): Dsl {
  return { bool: { must_not: [{ exists: { field } }] } };
}

/** A stored status, narrowed by the deadline relative to today (a null deadline is never past). */
export function statusClause(clause: StatusClause, today: string): Dsl {
  const stored: Dsl = { term: { status: clause.stored } };
  if (clause.deadline === 'not_past') {
    return { bool: { filter: [stored], should: [missing('deadline_date'), { range: { deadline_date: { gte: today } } }], minimum_should_match: 1 } };
  }
  if (clause.deadline === 'past') return { bool: { filter: [stored, { range: { deadline_date: { lt: today } } }] } };
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
export function filterClauses(query: Pick<ListQuery, 'filters' | 'today'>): Dsl[] {
  const f: OpportunityFilters | null = query.filters;
  if (!f) return [];
  const clauses: Dsl[] = [];
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
  return [{ [sortFieldOf(field)]: { order, missing: '_last' } }, { id: { order } }];
}

/** The keyword query of a search text, or null when the text has no meaningful word (no results). */
export function keywordClause(kind: ResourceKind, text: string): Dsl | null {
  const terms = keywordTerms(text);
  if (terms.length === 0) return null;
  return { multi_match: { query: terms.join(' '), type: 'cross_fields', operator: 'and', fields: [...KEYWORD_FIELDS[kind]] } };
}

/** The radial k-NN query: every vector whose cosine reaches the floor, among the records passing the filters. */
export function knnClause(vector: Float32Array, floor: number, filters: Dsl[]): Dsl {
  return {
    knn: {
      [VECTOR_FIELD]: {
        vector: Array.from(vector),
        min_score: openSearchScoreOfCosine(floor),
        ...(filters.length > 0 ? { filter: { bool: { filter: filters } } } : {}),
      },
    },
  };
}

function boolQuery(must: Dsl | null, filters: Dsl[]): Dsl {
  if (!must && filters.length === 0) return { match_all: {} };
  return { bool: { ...(must ? { must: [must] } : {}), ...(filters.length > 0 ? { filter: filters } : {}) } };
}

function sourceOf(kind: ResourceKind): Dsl {
  return { excludes: [...INTERNAL_FIELDS[kind]] };
}

/** from/size/sort of a page, or only the count. */
function pageOf(query: ListQuery, sort: Dsl[]): Dsl {
  if (query.countOnly) return { size: 0 };
  return { sort, from: query.offset, size: query.limit };
}

/** A listing (no search text) or a keyword search; null when the search text has no term. */
export function keywordSearchBody(kind: ResourceKind, query: ListQuery): Dsl | null {
  let must: Dsl | null = null;
  if (query.search) {
    must = keywordClause(kind, query.search.text);
    if (!must) return null;
  }
  return {
    query: boolQuery(must, filterClauses(query)),
    ...pageOf(query, sortClauses(query.sort)),
    track_total_hits: true,
    _source: sourceOf(kind),
  };
}

/** A semantic search; null when there is no query vector (nothing matches). */
export function semanticSearchBody(kind: ResourceKind, query: ListQuery, semantic: SemanticQuery): Dsl | null {
  if (!semantic.vector || isZeroVector(semantic.vector)) return null;
  return {
    query: knnClause(semantic.vector, semantic.floor, filterClauses(query)),
    ...pageOf(query, sortClauses(query.sort)),
    // Sorted by a field, hits carry a score (the relevance) only when asked to.
    ...(!query.countOnly && query.sort.field !== 'relevance' ? { track_scores: true } : {}),
    track_total_hits: true,
    _source: sourceOf(kind),
  };
}

/** A semantic hit's relevance: the cosine similarity clipped to [0, 1]. */
export function relevanceOfScore(score: number): number {
  return roundedRelevance(relevanceOfCosine(cosineOfOpenSearchScore(score)));
}

const RANK_ORDER: ListQuery['sort'] = { field: 'relevance', order: 'desc' };

/** One ranked list of a hybrid query: ids only, best first, to the rank window. */
function rankListBody(query: Dsl): Dsl {
  return { query, sort: sortClauses(RANK_ORDER), size: HYBRID_RANK_WINDOW, _source: false, track_total_hits: false };
}

/** The two lists of a hybrid query; either is null when it cannot match anything (no term, no vector). */
export function hybridRankBodies(kind: ResourceKind, query: ListQuery, semantic: SemanticQuery): { keyword: Dsl | null; semantic: Dsl | null } {
  const filters = filterClauses(query);
  const keyword = query.search ? keywordClause(kind, query.search.text) : null;
  return {
    keyword: keyword ? rankListBody(boolQuery(keyword, filters)) : null,
    semantic: semantic.vector && !isZeroVector(semantic.vector) ? rankListBody(knnClause(semantic.vector, semantic.floor, filters)) : null,
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
export function hybridPageRequest(kind: ResourceKind, query: ListQuery, fused: readonly FusedHit[]): { body: Dsl; ids?: string[] } {
  if (query.sort.field === 'relevance') {
    const ordered = query.sort.order === 'desc' ? fused : [...fused].reverse();
    const ids = ordered.slice(query.offset, query.offset + query.limit).map((hit) => hit.id);
    return { body: { query: { ids: { values: ids } }, size: ids.length, track_total_hits: false, _source: sourceOf(kind) }, ids };
  }
  return {
    body: {
      query: { bool: { filter: [{ ids: { values: fused.map((hit) => hit.id) } }] } },
      sort: sortClauses(query.sort),
      from: query.offset,
      size: query.limit,
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
  /** One `_msearch` of the lists present; the fused lists are [keyword, semantic], an absent one empty. */
  | { type: 'hybrid'; bodies: Dsl[]; lists: ('keyword' | 'semantic')[] };

export function planQuery(kind: ResourceKind, query: ListQuery, semantic?: SemanticQuery): QueryPlan {
  const mode = query.search?.mode ?? 'keyword';
  if (mode === 'keyword') {
    const body = keywordSearchBody(kind, query);
    return body ? { type: 'search', body, scored: false } : { type: 'none' };
  }
  if (!semantic) throw new Error(`a ${mode} query needs the query vector`);
  if (mode === 'semantic') {
    const body = semanticSearchBody(kind, query, semantic);
    return body ? { type: 'search', body, scored: true } : { type: 'none' };
  }
  const lists = hybridRankBodies(kind, query, semantic);
  const present = (['keyword', 'semantic'] as const).filter((list) => lists[list] !== null);
  if (present.length === 0) return { type: 'none' };
  return { type: 'hybrid', bodies: present.map((list) => lists[list]!), lists: [...present] };
}
