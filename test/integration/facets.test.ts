import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Contract, Funder, Grant } from '../../lambdas/core/records';
import { generateContracts, generateFunders, generateGrants } from '../../local/synthetic-catalogue';
import { startTestApi, TEST_CATALOGUE, type TestApi } from '../support/api-server';
import { matches, type Opportunity } from '../support/oracle';

/**
 * Facets over real HTTP on the embedded stack: the parameter's 400s, the envelopes, counts equal
 * to a plain count over the whole filtered catalogue (the test oracle's records) or over every page
 * of a search, in every mode, and each status, category and state value passed back as a filter
 * selecting exactly its count.
 */

type FacetList = { value: string; count: number; id?: string }[];
type Facets = Record<string, FacetList>;
const ALL = 'status,category,states,funder,deadline_within';

let api: TestApi;
let today: string;
let grants: Grant[];
let contracts: Contract[];

beforeAll(async () => {
  api = await startTestApi({ seed: TEST_CATALOGUE });
  const spec = api.stack.seededCatalogue!;
  today = spec.today;
  const funders: Funder[] = generateFunders(spec);
  grants = [...generateGrants(spec, funders)].flat();
  contracts = [...generateContracts(spec, funders)].flat();
});
afterAll(async () => api?.close());

const shift = (days: number) => new Date(Date.parse(`${today}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

async function list(path: string, params: Record<string, string>) {
  const res = await api.get(`${path}?${new URLSearchParams(params)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Every record of a query, page by page. */
async function everyRecord(path: string, params: Record<string, string>): Promise<Opportunity[]> {
  const records: Opportunity[] = [];
  for (let offset = 0; ; offset += 100) {
    const body = await list(path, { ...params, limit: '100', offset: String(offset) });
    records.push(...body.results);
    if (body.results.length < 100) return records;
  }
}

/**
 * The facets of a set of records, stated plainly (no code shared with the service): a status value
 * is the oracle's status filter, the term facets group ignoring case (the funder facet by
 * funder_id) under the spelling of the smallest id, the deadline windows count days from today.
 */
function plainFacets(kind: 'grant' | 'contract', records: readonly Opportunity[]): Facets {
  const statusValues = kind === 'grant' ? ['open', 'forecasted', 'closed'] : ['open', 'closed'];
  const status = statusValues.map((value) => ({ value, count: records.filter((r) => matches(r, { opportunity_type: 'all', status: value }, today)).length }));
  // A group is named by its first record by id. Funders group by funder_id, the 50 kept by count then id.
  const terms = (valuesOf: (r: Opportunity) => string[], refOf?: (r: Opportunity) => string) => {
    const groups = new Map<string, { value: string; count: number; ref?: string }>();
    for (const r of [...records].sort((a, b) => (a.id < b.id ? -1 : 1))) {
      const keys = refOf ? [refOf(r)] : [...new Set(valuesOf(r).map((v) => v.toLowerCase()))];
      for (const key of keys) {
        const group = groups.get(key);
        if (group) group.count++;
        else groups.set(key, { value: refOf ? valuesOf(r)[0]! : valuesOf(r).find((v) => v.toLowerCase() === key)!, count: 1, ...(refOf ? { ref: key } : {}) });
      }
    }
    const byCount = (a: { count: number }, b: { count: number }) => b.count - a.count;
    const kept = refOf ? [...groups.values()].sort((a, b) => byCount(a, b) || (a.ref! < b.ref! ? -1 : 1)).slice(0, 50) : [...groups.values()];
    return kept
      .sort(
        (a, b) =>
          byCount(a, b) ||
          (a.value.toLowerCase() < b.value.toLowerCase() ? -1 : a.value.toLowerCase() > b.value.toLowerCase() ? 1 : (a.ref ?? '') < (b.ref ?? '') ? -1 : 1),
      )
      .slice(0, 50)
      .map(({ value, count, ref }) => (ref === undefined ? { value, count } : { value, count, id: ref }));
  };
  const days = (deadline: string) => Math.round((Date.parse(deadline) - Date.parse(today)) / 86_400_000);
  const bucket = (d: string | null) =>
    d === null ? 'none' : days(d) < 0 ? 'passed' : days(d) <= 7 ? '7' : days(d) <= 30 ? '30' : days(d) <= 90 ? '90' : 'later';
  return {
    status,
    category: terms((r) => [...r.categories]),
    states: terms((r) => (r.states.length > 0 ? [...r.states] : ['national'])),
    funder: terms(
      (r) => [r.funder_name],
      (r) => r.funder_id,
    ),
    deadline_within: ['7', '30', '90', 'later', 'none', 'passed'].map((value) => ({
      value,
      count: records.filter((r) => bucket(r.deadline_date) === value).length,
    })),
  };
}

const sum = (values: FacetList) => values.reduce((total, v) => total + v.count, 0);

describe('the facets parameter', () => {
  it('answers 400 naming facets for an unknown name, listing the allowed ones', async () => {
    for (const path of ['/grants-api', '/contracts-api']) {
      const res = await api.get(`${path}?facets=status,agency`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_PARAMETER');
      expect(res.body.error.details).toEqual([
        { field: 'facets', issue: expect.stringContaining('"agency" is not one of the accepted values (status, category, states, funder, deadline_within)') },
      ]);
    }
    const empty = await api.get('/grants-api?facets=');
    expect(empty.status).toBe(400);
    expect(empty.body.error.details[0].field).toBe('facets');
  });

  it('answers 400 on funders, which have none', async () => {
    const res = await api.get('/funders-api?facets=status');
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'facets', issue: expect.stringContaining('funders have no facets') }]);
  });

  it('adds only the facets asked, to the list and the count_only envelopes, and nothing unasked', async () => {
    const page = await list('/grants-api', { facets: 'deadline_within,status', limit: '3' });
    expect(Object.keys(page.facets).sort()).toEqual(['deadline_within', 'status']);
    expect(page.results).toHaveLength(3);
    const counted = await list('/grants-api', { facets: 'deadline_within,status', count_only: 'true' });
    expect(counted).toEqual({ pagination: { total: page.pagination.total, total_relation: 'eq' }, facets: page.facets, meta: expect.any(Object) });
    expect(await list('/grants-api', {})).not.toHaveProperty('facets');
    expect(await list('/contracts-api', { count_only: 'true' })).not.toHaveProperty('facets');
  });
});

const LISTINGS: ['grant' | 'contract', Record<string, string>][] = [
  ['grant', {}],
  ['grant', { opportunity_type: 'all' }],
  ['grant', { opportunity_type: 'awarded' }],
  ['grant', { status: 'open,closed', category: 'health' }],
  ['grant', { states: 'CA,NY', include_national: 'true', deadline_after: '__today__' }],
  ['grant', { states: 'national', min_amount: '100000' }],
  ['contract', {}],
  ['contract', { status: 'open,closed', naics: '54' }],
];

function resolved(params: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v === '__today__' ? today : v]));
}

/** The oracle knows states as codes and include_national; `national` in states is that flag. */
function oracleParams(params: Record<string, string>): Record<string, string> {
  if (!params.states?.split(',').includes('national')) return params;
  const codes = params.states.split(',').filter((s) => s !== 'national');
  return { ...params, states: codes.length > 0 ? codes.join(',') : 'none', include_national: 'true' };
}

describe('facets of a listing are the counts over the whole filtered catalogue', () => {
  it.each(LISTINGS.map(([kind, p]) => [`${kind} ${JSON.stringify(p)}`, kind, p] as const))('%s', async (_label, kind, raw) => {
    const params = resolved(raw);
    const path = kind === 'grant' ? '/grants-api' : '/contracts-api';
    const catalogue: Opportunity[] = kind === 'grant' ? grants : contracts;
    const expected = catalogue.filter((r) => matches(r, oracleParams(params), today));
    expect(expected.length).toBeGreaterThan(0);
    const body = await list(path, { ...params, facets: ALL, limit: '5' });
    expect(body.pagination.total).toBe(expected.length);
    expect(body.facets).toEqual(plainFacets(kind, expected));
    expect(sum(body.facets.status)).toBe(expected.length);
    expect(sum(body.facets.deadline_within)).toBe(expected.length);
  });
});

const SEARCHES: [string, Record<string, string>][] = [
  ['keyword', { search: 'health clinics' }],
  ['keyword with filters', { search: 'education', opportunity_type: 'all', states: 'TX,national' }],
  ['semantic', { search: 'mental health services for veterans', search_mode: 'semantic' }],
  ['semantic with filters', { search: 'school programs for children', search_mode: 'semantic', status: 'open,closed,forecasted' }],
  ['hybrid', { search: 'rural broadband infrastructure', search_mode: 'hybrid', opportunity_type: 'all' }],
];

describe('facets of a search are the counts over every page of it, in every mode', () => {
  it.each(SEARCHES)('%s', async (_mode, params) => {
    const records = await everyRecord('/grants-api', params);
    expect(records.length).toBeGreaterThan(0);
    const body = await list('/grants-api', { ...params, facets: ALL, limit: '1' });
    expect(body.pagination.total).toBe(records.length);
    expect(body.facets).toEqual(plainFacets('grant', records));
    expect((await list('/grants-api', { ...params, facets: ALL, count_only: 'true' })).facets).toEqual(body.facets);
  });
});

describe('a facet value passed back as a filter selects exactly its count', () => {
  const CASES: [string, '/grants-api' | '/contracts-api', Record<string, string>][] = [
    ['every grant', '/grants-api', { opportunity_type: 'all' }],
    ['a grant keyword search', '/grants-api', { search: 'health', opportunity_type: 'all' }],
    // A status value replaces the query's own status, so the query's status must hold every value (the default holds open and forecasted: closed counts 0 there).
    ['a grant semantic search', '/grants-api', { search: 'community development', search_mode: 'semantic', status: 'open,forecasted,closed' }],
    ['what can be applied for', '/grants-api', { search: 'water', search_mode: 'hybrid' }],
    ['contracts', '/contracts-api', { status: 'open,closed' }],
  ];
  it.each(CASES)('%s: status, category and states', async (_label, path, params) => {
    const { facets } = await list(path, { ...params, facets: 'status,category,states', count_only: 'true' });
    const totalWith = async (extra: Record<string, string>) => (await list(path, { ...params, ...extra, count_only: 'true' })).pagination.total;
    for (const { value, count } of facets.status) {
      if (count > 0 || params.status || params.opportunity_type) expect(await totalWith({ status: value }), `status=${value}`).toBe(count);
    }
    for (const { value, count } of facets.category.slice(0, 8)) expect(await totalWith({ category: value }), `category=${value}`).toBe(count);
    for (const { value, count } of facets.states.slice(0, 8)) expect(await totalWith({ states: value }), `states=${value}`).toBe(count);
    if (!params.search) expect(facets.states.map((v: { value: string }) => v.value)).toContain('national');
  });
});

describe('a funder value passed back as funder_id', () => {
  it.each([
    ['grant', '/grants-api', { opportunity_type: 'all' }],
    ['contract', '/contracts-api', { status: 'open,closed' }],
    ['grant', '/grants-api', { category: 'health' }],
  ] as const)('%s %s %j: selects exactly the records of that funder, as many as its count', async (kind, path, params) => {
    const { facets } = await list(path, { ...params, facets: 'funder', count_only: 'true' });
    const catalogue: Opportunity[] = kind === 'grant' ? grants : contracts;
    expect(facets.funder.length).toBeGreaterThan(1);
    for (const { value, count, id } of (facets.funder as FacetList).slice(0, 6)) {
      expect(id, value).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      const expected = catalogue
        .filter((r) => matches(r, { ...params, funder_id: id! }, today))
        .map((r) => r.id)
        .sort();
      const found = (await everyRecord(path, { ...params, funder_id: id! })).map((r) => r.id).sort();
      expect(found, `funder_id=${id} (${value})`).toEqual(expected);
      // The synthetic catalogue gives each funder its own name, so the value's count is the id's.
      expect(found.length, `funder_id=${id} (${value})`).toBe(count);
    }
  });
});

describe('random filters', () => {
  it('give facets equal to the counts over the whole filtered catalogue', async () => {
    const filters = fc.record(
      {
        opportunity_type: fc.constantFrom('open', 'awarded', 'all'),
        status: fc.option(
          fc.subarray(['open', 'closed', 'forecasted', 'posted'], { minLength: 1 }).map((s) => s.join(',')),
          { nil: undefined },
        ),
        category: fc.option(fc.constantFrom('Health', 'education', 'Community Development', 'Agriculture'), { nil: undefined }),
        states: fc.option(
          fc.subarray(['CA', 'TX', 'NY', 'WY', 'national'], { minLength: 1 }).map((s) => s.join(',')),
          { nil: undefined },
        ),
        deadline_after: fc.option(fc.integer({ min: -60, max: 120 }).map(shift), { nil: undefined }),
        min_amount: fc.option(fc.constantFrom('10000', '250000', '1000000'), { nil: undefined }),
      },
      { requiredKeys: ['opportunity_type'] },
    );
    await fc.assert(
      fc.asyncProperty(filters, async (raw) => {
        const params = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)) as Record<string, string>;
        const expected = grants.filter((r) => matches(r, oracleParams(params), today));
        const body = await list('/grants-api', { ...params, facets: ALL, count_only: 'true' });
        expect(body.pagination.total).toBe(expected.length);
        expect(body.facets).toEqual(plainFacets('grant', expected));
      }),
      { numRuns: 40 },
    );
  });
});
