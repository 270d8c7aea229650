import {
  DEADLINE_BUCKETS,
  deadlineWindows,
  emptyFacets,
  FACET_VALUE_CAP,
  type FacetName,
  type Facets,
  type FacetValue,
  fixedValues,
  NATIONAL_STATE_VALUE,
  type OpportunityKind,
  rankedTermValues,
  STATUS_FACET_VALUES,
  statusFacetClauses,
  termKeyOf,
} from '../../core/query/facets';
import type { ListQuery } from '../../core/query/list-query';
import type { ResourceKind } from '../../core/records';
import { anyOf, type Dsl, missing, statusClause } from './opensearch-filters';

/**
 * The facets of a query (lambdas/core/query/facets.ts) as OpenSearch aggregations over the query's
 * whole match set, whatever its page: `filters` aggregations for the fixed values (status, the
 * deadline windows) and `terms` for the records' own values. Each index has one shard
 * (INDEX_SETTINGS), where a terms aggregation's top values and counts are exact; TERM_SHARD_SIZE
 * keeps them exact on more shards too, up to that many distinct values a shard.
 *
 * A term facet groups values as the keyword fields index them: categories through the
 * lower-casing normalizer (as the category filter matches), states as they are, funders by
 * funder_id. A group is named by the spelling of the record with the smallest id (a one-hit
 * `top_hits`), as the embedded index names it.
 */

export const TERM_SHARD_SIZE = 10_000;
const PREFIX = 'facet_';
const NATIONAL_AGG = `${PREFIX}states_national`;

/**
 * A term facet's field and the source field that spells its values. A facet whose field is an id
 * (`byId`, the funder facet on funder_id) names each bucket by its first record's spelling and
 * gives the bucket's key as the value's `id`.
 */
const TERM_FIELDS: Record<'category' | 'states' | 'funder', { field: string; source?: string; byId?: true }> = {
  category: { field: 'categories', source: 'categories' },
  states: { field: 'states' },
  funder: { field: 'funder_id', source: 'funder_name', byId: true },
};

function termsAggregation(facet: keyof typeof TERM_FIELDS): Dsl {
  const { field, source } = TERM_FIELDS[facet];
  return {
    terms: { field, size: FACET_VALUE_CAP, shard_size: TERM_SHARD_SIZE, order: [{ _count: 'desc' }, { _key: 'asc' }] },
    ...(source ? { aggs: { spelling: { top_hits: { size: 1, sort: [{ id: { order: 'asc' } }], _source: { includes: [source] } } } } } : {}),
  };
}

function deadlineAggregation(today: string): Dsl {
  const filters: Dsl = {};
  for (const w of deadlineWindows(today)) {
    filters[w.value] = w.missing
      ? missing('deadline_date')
      : { range: { deadline_date: { ...(w.from ? { gte: w.from } : {}), ...(w.to ? { lte: w.to } : {}) } } };
  }
  return { filters: { filters } };
}

/** The `aggs` of a query's facets; nothing when it asks none (or lists funders). */
export function facetAggregationsOf(kind: ResourceKind, query: Pick<ListQuery, 'facets' | 'today'>): { aggs?: Dsl } {
  if (!query.facets || query.facets.length === 0 || kind === 'funder') return {};
  const aggs: Dsl = {};
  for (const name of query.facets) {
    if (name === 'status') {
      const filters = Object.fromEntries(
        statusFacetClauses(kind).map(({ value, clauses }) => [value, anyOf(clauses.map((c) => statusClause(c, query.today)))]),
      );
      aggs[`${PREFIX}status`] = { filters: { filters } };
    } else if (name === 'deadline_within') aggs[`${PREFIX}deadline_within`] = deadlineAggregation(query.today);
    else {
      aggs[`${PREFIX}${name}`] = termsAggregation(name);
      // An empty `states` indexes no value: the national records are the ones missing the field.
      if (name === 'states') aggs[NATIONAL_AGG] = { missing: { field: 'states' } };
    }
  }
  return { aggs };
}

interface TermBucket {
  key: string;
  doc_count: number;
  spelling?: { hits: { hits: { _source?: Record<string, unknown> }[] } };
}
export type Aggregations = Record<string, { buckets?: TermBucket[] | Record<string, { doc_count: number }>; doc_count?: number }>;

/** A bucket's entry: named by the spelling of its record first by id, with the bucket's key as `id` when the facet groups by id. */
function facetValueOf(bucket: TermBucket, facet: keyof typeof TERM_FIELDS): FacetValue {
  const { source, byId } = TERM_FIELDS[facet];
  if (!byId) return { value: spellingOf(bucket, source), count: bucket.doc_count };
  const name = source ? bucket.spelling?.hits.hits[0]?._source?.[source] : undefined;
  return { value: typeof name === 'string' ? name : bucket.key, count: bucket.doc_count, id: bucket.key };
}

function spellingOf(bucket: TermBucket, source: string | undefined): string {
  if (!source) return bucket.key;
  const found = bucket.spelling?.hits.hits[0]?._source?.[source];
  const spellings = Array.isArray(found) ? found : [found];
  return spellings.find((s): s is string => typeof s === 'string' && termKeyOf(s) === bucket.key) ?? bucket.key;
}

/** The facets a query asked for, from its response's aggregations (facetAggregationsOf). */
export function facetsOfAggregations(kind: OpportunityKind, names: readonly FacetName[], aggregations: Aggregations | undefined): Facets {
  if (!aggregations) throw new Error('the search domain answered a facet query without its aggregations');
  const facets: Facets = {};
  for (const name of names) {
    const agg = aggregations[`${PREFIX}${name}`];
    if (name === 'status' || name === 'deadline_within') {
      const buckets = (agg?.buckets ?? {}) as Record<string, { doc_count: number }>;
      const counts = new Map(Object.entries(buckets).map(([value, b]) => [value, b.doc_count]));
      facets[name] = fixedValues(name === 'status' ? STATUS_FACET_VALUES[kind] : DEADLINE_BUCKETS, counts);
      continue;
    }
    const values: FacetValue[] = ((agg?.buckets ?? []) as TermBucket[]).map((b) => facetValueOf(b, name));
    if (name === 'states') values.push({ value: NATIONAL_STATE_VALUE, count: aggregations[NATIONAL_AGG]?.doc_count ?? 0 });
    facets[name] = rankedTermValues(values);
  }
  return facets;
}

/** The facets of a query that matches nothing (no request is made). */
export function noFacets(kind: ResourceKind, query: Pick<ListQuery, 'facets'>): { facets?: Facets } {
  return query.facets && kind !== 'funder' ? { facets: emptyFacets(kind, query.facets) } : {};
}
