import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareCodePoints,
  DEADLINE_BUCKETS,
  deadlineBucketOf,
  deadlineWindows,
  emptyFacets,
  FACET_NAMES,
  FACET_VALUE_CAP,
  FacetCounter,
  rankedTermValues,
  statusFacetValueOf,
  TermTally,
} from '../../lambdas/core/query/facets';
import type { ResourceKind } from '../../lambdas/core/records';
import { parseQueryString, queryStringIssues } from '../support/list-query-strings';

const TODAY = '2026-11-22';

const parse = (kind: ResourceKind, qs: string) => parseQueryString(kind, qs, TODAY);
const issuesOf = (kind: ResourceKind, qs: string) => queryStringIssues(kind, qs, TODAY);

describe('the facets parameter', () => {
  it('takes any subset of the facet names, in any case, once each', () => {
    expect(parse('grant', 'facets=status,Category,states,status').facets).toEqual(['status', 'category', 'states']);
    expect(parse('contract', `facets=${FACET_NAMES.join(',')}`).facets).toEqual([...FACET_NAMES]);
    expect(parse('grant', '').facets).toBeUndefined();
  });

  it('refuses unknown names, listing the allowed ones, and any facets on funders', () => {
    const [unknown] = issuesOf('grant', 'facets=status,agency');
    expect(unknown).toEqual({
      field: 'facets',
      issue: expect.stringContaining('"agency" is not one of the accepted values (status, category, states, funder, deadline_within)'),
    });
    expect(issuesOf('contract', 'facets=')).toEqual([{ field: 'facets', issue: 'must not be empty' }]);
    const [funders] = issuesOf('funder', 'facets=status');
    expect(funders).toEqual({ field: 'facets', issue: expect.stringContaining('funders have no facets') });
  });
});

describe('states=national', () => {
  it('stands for include_national; alone it keeps only the national records', () => {
    expect(parse('grant', 'states=national').filters).toMatchObject({ states: [], includeNational: true });
    expect(parse('grant', 'states=CA,National').filters).toMatchObject({ states: ['CA'], includeNational: true });
    expect(parse('grant', 'states=CA').filters).toMatchObject({ states: ['CA'], includeNational: false });
    expect(issuesOf('grant', 'states=nation')).toEqual([{ field: 'states', issue: expect.stringContaining('or national') }]);
  });
});

describe('status facet values', () => {
  it('are the status filter values, mutually exclusive on the query date', () => {
    expect(statusFacetValueOf('grant', 'posted', true)).toBe('open');
    expect(statusFacetValueOf('grant', 'posted', false)).toBe('closed');
    expect(statusFacetValueOf('grant', 'forecasted', true)).toBe('forecasted');
    expect(statusFacetValueOf('grant', 'forecasted', false)).toBe('closed');
    expect(statusFacetValueOf('grant', 'closed', true)).toBe('closed');
    expect(statusFacetValueOf('contract', 'open', true)).toBe('open');
    expect(statusFacetValueOf('contract', 'open', false)).toBe('closed');
    expect(statusFacetValueOf('contract', 'closed', false)).toBe('closed');
  });
});

describe('deadline windows', () => {
  const windows = deadlineWindows(TODAY);
  it.each([
    ['2026-11-22', '7'],
    ['2026-11-29', '7'],
    ['2026-11-30', '30'],
    ['2026-12-22', '30'],
    ['2026-12-23', '90'],
    ['2027-02-20', '90'],
    ['2027-02-21', 'later'],
    ['2099-01-01', 'later'],
    [null, 'none'],
    ['2026-11-21', 'passed'],
    ['2001-01-01', 'passed'],
  ] as const)('%s is in %s', (deadline, bucket) => {
    expect(deadlineBucketOf(deadline, windows)).toBe(bucket);
  });

  it('cover every day exactly once', () => {
    fc.assert(
      fc.property(fc.integer({ min: -4000, max: 4000 }), (days) => {
        const day = new Date(Date.parse(`${TODAY}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
        const holding = windows.filter((w) => !w.missing && (w.from === null || day >= w.from) && (w.to === null || day <= w.to));
        expect(holding).toHaveLength(1);
      }),
    );
  });
});

describe('term facets', () => {
  it('group ignoring case, count a record once, and take the spelling of the smallest id', () => {
    const tally = new TermTally();
    tally.add('b', ['health', 'Health', 'Arts']);
    tally.add('a', ['Health']);
    tally.add('c', ['HEALTH', 'arts']);
    expect(tally.ranked()).toEqual([
      { value: 'Health', count: 3 },
      { value: 'Arts', count: 2 },
    ]);
  });

  it('group funders by id, named as the record with the smallest id spells them; one name, two ids, two values', () => {
    const counter = new FacetCounter('grant', ['funder'], TODAY);
    const add = (id: string, funder_name: string, funder_id: string) =>
      counter.add({ id, status: 'posted', live: true, categories: [], states: [], funder_name, funder_id, deadline_date: null });
    add('b', 'Departmental Offices', 'id-treasury');
    add('a', 'Departmental Offices', 'id-interior');
    add('c', 'DEPARTMENTAL OFFICES', 'id-treasury');
    add('e', 'National Science Foundation', 'id-nsf');
    add('d', 'NSF', 'id-nsf');
    expect(counter.facets()).toEqual({
      funder: [
        { value: 'Departmental Offices', count: 2, id: 'id-treasury' },
        { value: 'NSF', count: 2, id: 'id-nsf' },
        { value: 'Departmental Offices', count: 1, id: 'id-interior' },
      ],
    });
  });

  it('keep the funder values of the cap by count then id, and list them by count then name', () => {
    const values = Array.from({ length: 60 }, (_, i) => ({
      value: `Fund ${String(59 - i).padStart(2, '0')}`,
      count: 1,
      id: `id-${String(i).padStart(2, '0')}`,
    }));
    const ranked = rankedTermValues(values);
    expect(ranked).toHaveLength(FACET_VALUE_CAP);
    // ids 00-49 are kept: the funds named 10 to 59, listed by name.
    expect([ranked[0]!.value, ranked.at(-1)!.value]).toEqual(['Fund 10', 'Fund 59']);
  });

  it('list by count, ties by value (code points, as OpenSearch orders terms), at most the cap', () => {
    const values = Array.from({ length: 80 }, (_, i) => ({ value: `v${i}`, count: i % 3 }));
    const ranked = rankedTermValues(values);
    expect(ranked).toHaveLength(FACET_VALUE_CAP);
    expect(ranked.every((v) => v.count > 0)).toBe(true);
    expect(ranked.slice(0, 3).map((v) => v.value)).toEqual(['v11', 'v14', 'v17']);
    expect(compareCodePoints('\u{1F600}', '\uFFFD')).toBeGreaterThan(0);
    expect(compareCodePoints('ab', 'a')).toBeGreaterThan(0);
  });
});

describe('FacetCounter', () => {
  it('counts the facets asked, with fixed values always listed and national for records without states', () => {
    const counter = new FacetCounter('grant', ['status', 'states', 'deadline_within'], TODAY);
    counter.add({ id: '1', status: 'posted', live: true, categories: [], states: [], funder_name: 'F', funder_id: 'f', deadline_date: '2026-11-25' });
    counter.add({
      id: '2',
      status: 'posted',
      live: false,
      categories: [],
      states: ['CA', 'TX'],
      funder_name: 'F',
      funder_id: 'f',
      deadline_date: '2026-11-01',
    });
    expect(counter.facets()).toEqual({
      status: [
        { value: 'open', count: 1 },
        { value: 'forecasted', count: 0 },
        { value: 'closed', count: 1 },
      ],
      states: [
        { value: 'CA', count: 1 },
        { value: 'national', count: 1 },
        { value: 'TX', count: 1 },
      ],
      deadline_within: [
        { value: '7', count: 1 },
        { value: '30', count: 0 },
        { value: '90', count: 0 },
        { value: 'later', count: 0 },
        { value: 'none', count: 0 },
        { value: 'passed', count: 1 },
      ],
    });
  });

  it('gives zeros and empty lists for an empty set', () => {
    expect(emptyFacets('contract', ['status', 'funder', 'deadline_within'])).toEqual({
      status: [
        { value: 'open', count: 0 },
        { value: 'closed', count: 0 },
      ],
      funder: [],
      deadline_within: DEADLINE_BUCKETS.map((value) => ({ value, count: 0 })),
    });
  });
});
