import { staleBefore } from '../../core/query/applyable';
import { declaredFiltersIn, type FilterValue, type ListFilter, storedOp, termsOf } from '../../core/query/filter-registry';
import type { ListQuery, OpportunityFilters, SortField, StatusClause } from '../../core/query/list-query';
import { GEOGRAPHY_LEVEL_FIELD, OPEN_ENDED_FIELD, SORT_SUBFIELD } from './opensearch-mappings';

/**
 * The filter and sort clauses of a ListQuery in the OpenSearch query DSL: pure functions, no I/O.
 * Every filter means exactly what the embedded index's SQL means
 * (lambdas/adapters/embedded/sqlite-search-index.ts); opensearch-query.ts puts them around a search.
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

/**
 * The clause of a declared filter (filter-registry.ts), by its shape. A terms field's mapping
 * folds case as the filter's case rule says (a test holds the mappings to it), so the values are
 * folded the same way here.
 */
export function declaredClause(filter: ListFilter, value: FilterValue): Dsl {
  const { field, shape } = filter;
  switch (shape.type) {
    case 'terms':
      return typeof value === 'string' ? { term: { [field]: termsOf(shape, value)[0] } } : { terms: { [field]: termsOf(shape, value) } };
    case 'prefix': {
      const codes = value as readonly string[];
      const whole = codes.filter((code) => code.length === shape.wholeLength);
      return anyOf([
        ...(whole.length > 0 ? [{ terms: { [field]: whole } }] : []),
        ...codes.filter((code) => code.length !== shape.wholeLength).map((code) => ({ prefix: { [field]: code } })),
      ]);
    }
    case 'range':
      // Ranges never match a missing value, as SQL comparisons never match NULL.
      return { range: { [field]: { [storedOp(shape)]: value } } };
  }
}

/** One filter clause per filter of the query: the explicit ones, then the declared ones in registry order (none for funders). */
export function filterClauses(query: Pick<ListQuery, 'filters' | 'today' | 'ids'>): Dsl[] {
  const f: OpportunityFilters | null = query.filters;
  const clauses: Dsl[] = query.ids ? [{ ids: { values: [...query.ids] } }] : [];
  if (!f) return clauses;
  if (f.opportunityType !== 'all') clauses.push({ term: { opportunity_type: f.opportunityType } });
  if (f.status) clauses.push(anyOf(f.status.map((clause) => statusClause(clause, query.today))));
  if (f.states) clauses.push(statesClause(f.states, f.includeNational));
  if (f.geography?.level) clauses.push({ term: { [GEOGRAPHY_LEVEL_FIELD]: f.geography.level } });
  else if (f.geography?.states) clauses.push(statesClause(f.geography.states, false));
  else if (f.geography?.text) {
    // A substring of the free-text geography, ignoring case (SQLite: instr(lower(geography), ?)).
    clauses.push({ wildcard: { [`geography.${SORT_SUBFIELD}`]: { value: `*${escapeWildcard(f.geography.text.toLowerCase())}*`, case_insensitive: true } } });
  }
  for (const { filter, value } of declaredFiltersIn(f)) clauses.push(declaredClause(filter, value));
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
