import { describe, expect, it } from 'vitest';
import { facetAggregationsOf, facetsOfAggregations, TERM_SHARD_SIZE } from '../../lambdas/adapters/aws/opensearch-facets';
import type { Dsl } from '../../lambdas/adapters/aws/opensearch-filters';
import { fusedFacetsBody, planQuery } from '../../lambdas/adapters/aws/opensearch-query';
import { type ListQuery, parseListQuery } from '../../lambdas/core/query/list-query';
import type { ResourceKind } from '../../lambdas/core/records';
import type { QueryFloor } from '../../lambdas/core/search/query-floor';
import type { SemanticQuery } from '../../lambdas/ports/search-index';

/** The aggregations of the facets (the counts themselves are checked on a real node by the contract suite). */

const TODAY = '2026-11-22';
const q = (params: Record<string, string>, kind: ResourceKind = 'grant'): ListQuery =>
  parseListQuery(kind, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, [v]])), TODAY);
const vector = (): SemanticQuery => ({
  vector: Float32Array.of(1, 0, 0, 0),
  scale: { floor: 0.5, shortFloor: 0.5, lexicalFloor: 0.5, profileFloor: 0.4, upper: 1 },
});
/** The floor of a query answered on similarity (query-floor.ts). */
const FLOOR: QueryFloor = {
  semanticFloor: 0.5,
  basis: 'similarity',
  evidence: { bestCosine: 0.8, bestWordCosine: Number.NaN, identifierMatches: 0, words: 1 },
};

/** The body that counts the whole match set: the plan's search, or for hybrid the fused set's (its ids from the lists). */
function countingBody(query: ListQuery, semantic?: SemanticQuery): Dsl {
  const plan = planQuery(query.kind, query, 1_000, semantic, undefined, FLOOR);
  if (plan.type === 'search') return plan.body;
  if (plan.type === 'hybrid') return fusedFacetsBody(query.kind, query, ['a', 'b']);
  throw new Error('no request');
}

describe('facet aggregations', () => {
  it('are asked only with facets, on the body that counts the whole match set, in every mode', () => {
    const cases: [Record<string, string>, SemanticQuery | undefined][] = [
      [{}, undefined],
      [{ search: 'water' }, undefined],
      [{ search: 'water', search_mode: 'semantic' }, vector()],
      [{ search: 'water', search_mode: 'hybrid' }, vector()],
    ];
    for (const [params, semantic] of cases) {
      expect(countingBody(q(params), semantic), JSON.stringify(params)).not.toHaveProperty('aggs');
      const body = countingBody(q({ ...params, facets: 'status,funder' }), semantic);
      expect(Object.keys(body.aggs as Dsl).sort(), JSON.stringify(params)).toEqual(['facet_funder', 'facet_status']);
      const plan = planQuery('grant', q({ ...params, facets: 'status' }), 1_000, semantic, undefined, FLOOR);
      // The ranked lists of a hybrid search never aggregate: the fused set's body does.
      if (plan.type === 'hybrid') expect(plan.bodies.filter((b) => 'aggs' in b)).toHaveLength(0);
    }
  });

  it('count terms exactly, most first then by key, and the national records as those missing states', () => {
    const { aggs } = facetAggregationsOf('grant', q({ facets: 'states,category' }));
    expect(aggs!.facet_states).toEqual({ terms: { field: 'states', size: 50, shard_size: TERM_SHARD_SIZE, order: [{ _count: 'desc' }, { _key: 'asc' }] } });
    expect(aggs!.facet_states_national).toEqual({ missing: { field: 'states' } });
    expect(aggs!.facet_category).toMatchObject({
      terms: { field: 'categories' },
      aggs: { spelling: { top_hits: { size: 1, sort: [{ id: { order: 'asc' } }] } } },
    });
    expect(facetAggregationsOf('funder', q({}, 'funder'))).toEqual({});
  });

  it('bucket deadlines by inclusive day windows from today', () => {
    const { aggs } = facetAggregationsOf('contract', q({ facets: 'deadline_within' }, 'contract'));
    expect((aggs!.facet_deadline_within as { filters: { filters: Dsl } }).filters.filters).toEqual({
      7: { range: { deadline_date: { gte: '2026-11-22', lte: '2026-11-29' } } },
      30: { range: { deadline_date: { gte: '2026-11-30', lte: '2026-12-22' } } },
      90: { range: { deadline_date: { gte: '2026-12-23', lte: '2027-02-20' } } },
      later: { range: { deadline_date: { gte: '2027-02-21' } } },
      none: { bool: { must_not: [{ exists: { field: 'deadline_date' } }] } },
      passed: { range: { deadline_date: { lte: '2026-11-21' } } },
    });
  });

  it('read back: fixed values in order with zeros, term values spelled as the smallest id spells them, national merged by count', () => {
    const facets = facetsOfAggregations('grant', ['status', 'category', 'states'], {
      facet_status: { buckets: { closed: { doc_count: 4 }, open: { doc_count: 7 } } },
      facet_category: { buckets: [{ key: 'health', doc_count: 5, spelling: { hits: { hits: [{ _source: { categories: ['Arts', 'Health'] } }] } } }] },
      facet_states: {
        buckets: [
          { key: 'TX', doc_count: 3 },
          { key: 'CA', doc_count: 3 },
        ],
      },
      facet_states_national: { doc_count: 4 },
    });
    expect(facets).toEqual({
      status: [
        { value: 'open', count: 7 },
        { value: 'forecasted', count: 0 },
        { value: 'closed', count: 4 },
      ],
      category: [{ value: 'Health', count: 5 }],
      states: [
        { value: 'national', count: 4 },
        { value: 'CA', count: 3 },
        { value: 'TX', count: 3 },
      ],
    });
    expect(() => facetsOfAggregations('grant', ['status'], undefined)).toThrow(/without its aggregations/);
  });

  it('group funders by funder_id, each value named by its first record and given the id, for the funder_id filter', () => {
    const { aggs } = facetAggregationsOf('grant', q({ facets: 'funder' }));
    expect(aggs!.facet_funder).toMatchObject({
      terms: { field: 'funder_id', order: [{ _count: 'desc' }, { _key: 'asc' }] },
      aggs: { spelling: { top_hits: { size: 1, sort: [{ id: { order: 'asc' } }], _source: { includes: ['funder_name'] } } } },
    });
    const facets = facetsOfAggregations('grant', ['funder'], {
      facet_funder: {
        buckets: [
          { key: 'f-treasury', doc_count: 2, spelling: { hits: { hits: [{ _source: { funder_name: 'Departmental Offices' } }] } } },
          { key: 'f-interior', doc_count: 2, spelling: { hits: { hits: [{ _source: { funder_name: 'Departmental Offices' } }] } } },
        ],
      },
    });
    expect(facets).toEqual({
      funder: [
        { value: 'Departmental Offices', count: 2, id: 'f-interior' },
        { value: 'Departmental Offices', count: 2, id: 'f-treasury' },
      ],
    });
  });
});
