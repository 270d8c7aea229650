import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_PARAMS } from '../../lambdas/core/query/list-query';
import type { ResourceKind } from '../../lambdas/core/records';
import { startTestApi, TEST_CATALOGUE, type TestApi } from '../support/api-server';

/**
 * Every parameter of every list endpoint, once with a valid and once with an invalid value, over
 * real HTTP. The table must name every parameter the endpoint declares, so a new parameter
 * without a test fails here.
 */

const PATHS: Record<ResourceKind, string> = { grant: '/grants-api', contract: '/contracts-api', funder: '/funders-api' };

type Case = { valid: string[]; invalid: string[] };
const common: Record<string, Case> = {
  limit: { valid: ['1', '100'], invalid: ['0', '101', '2.5', 'x'] },
  offset: { valid: ['0', '40'], invalid: ['-1', 'abc', '10001'] },
  order: { valid: ['asc', 'desc'], invalid: ['sideways'] },
  count_only: { valid: ['true', 'false'], invalid: ['perhaps'] },
  // format=csv answers CSV, not the envelope this table reads: test/integration/csv-export.test.ts.
  format: { valid: ['json', 'JSON'], invalid: ['xml', 'csv,json', 'text/csv'] },
  // A valid cursor comes from a page: test/integration/deep-paging.test.ts.
  cursor: { valid: [], invalid: ['abc', 'x.y', '   ', 'a'.repeat(8_001)] },
  search: { valid: ['water'], invalid: ['a'.repeat(501), '   '] },
  search_mode: { valid: ['keyword'], invalid: ['fuzzy', 'semantic', 'hybrid'] },
};
const opportunity: Record<string, Case> = {
  ...common,
  sort_by: { valid: ['created_at', 'deadline_date', 'amount_min', 'amount_max', 'title'], invalid: ['name', 'relevance'] },
  opportunity_type: { valid: ['open', 'awarded', 'all'], invalid: ['expired'] },
  category: { valid: ['Health'], invalid: ['c'.repeat(101)] },
  states: { valid: ['CA', 'ca,ny,PR', 'national', 'TX,National'], invalid: ['CAL', 'CA,ZZ', 'CA,', 'nationwide'] },
  include_national: { valid: ['true', '0'], invalid: ['yes'] },
  geography: { valid: ['national', 'Texas', 'Local: Austin, TX'], invalid: ['g'.repeat(101)] },
  deadline_after: { valid: ['2026-01-31'], invalid: ['2026-02-30', '2026-1-31', 'tomorrow'] },
  deadline_before: { valid: ['2030-12-31'], invalid: ['2026-04-31', '31/12/2030'] },
  posted_after: { valid: ['2024-02-29'], invalid: ['2023-02-29', '2026-00-10'] },
  min_amount: { valid: ['0', '25000.50'], invalid: ['-1', 'ten', '1e400'] },
  max_amount: { valid: ['1000000'], invalid: ['-100', 'NaN'] },
  facets: { valid: ['status', 'category,states,funder,deadline_within', 'DEADLINE_WITHIN'], invalid: ['agency', 'status,', 'status,status2'] },
  // Ids are case-sensitive: an upper-case one would match nothing, so it is refused rather than ignored.
  funder_id: {
    valid: ['13c1d59c-bcf1-5b4d-8b58-b0656c61ba94', '13c1d59c-bcf1-5b4d-8b58-b0656c61ba94, cee19b13-3563-513a-aa53-29d55c2c2e43'],
    invalid: ['nih', '13C1D59C-BCF1-5B4D-8B58-B0656C61BA94', '13c1d59c-bcf1-5b4d-8b58-b0656c61ba94,', '13c1d59cbcf15b4d8b58b0656c61ba94'],
  },
};
const CASES: Record<ResourceKind, Record<string, Case>> = {
  grant: { ...opportunity, status: { valid: ['open', 'posted', 'closed', 'forecasted', 'upcoming', 'open,upcoming'], invalid: ['archived', 'open,'] } },
  contract: {
    ...opportunity,
    status: { valid: ['open', 'closed'], invalid: ['forecasted'] },
    naics: { valid: ['541512', '54,236220'], invalid: ['5415121', 'abc', '5'] },
    set_aside: { valid: ['SBA', 'wosb,8A'], invalid: ['SMALL'] },
  },
  funder: { ...common, sort_by: { valid: ['name', 'created_at'], invalid: ['title', 'deadline_date'] } },
};

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ seed: TEST_CATALOGUE });
});
afterAll(async () => api?.close());

describe.each(Object.keys(PATHS) as ResourceKind[])('GET %s list parameters', (kind) => {
  it('the table covers every declared parameter', () => {
    expect(Object.keys(CASES[kind]).sort()).toEqual(LIST_PARAMS[kind].map((p) => p.name).sort());
  });

  const rows = Object.entries(CASES[kind]).flatMap(([name, c]) => [
    ...c.valid.map((value) => [name, value, true] as const),
    ...c.invalid.map((value) => [name, value, false] as const),
  ]);

  it.each(rows)('%s=%s (valid: %s)', async (name, value, valid) => {
    // relevance sorting and search_mode need a search term to be valid at all.
    const needsSearch = name === 'search_mode' || (name === 'sort_by' && value === 'relevance');
    const qs = new URLSearchParams({ [name]: value, ...(needsSearch && valid ? { search: 'water' } : {}) });
    const res = await api.get(`${PATHS[kind]}?${qs}`);
    if (valid) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.pagination.total).toBeGreaterThanOrEqual(0);
    } else {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_PARAMETER');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(name);
      expect(res.body.error.message).toContain(name);
    }
  });

  it('refuses unknown parameters, naming each with a "did you mean" for a near miss', async () => {
    const res = await api.get(`${PATHS[kind]}?utm_source=newsletter&limt=3&search=water`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_PARAMETER');
    expect(res.body.error.details).toEqual([
      { field: 'utm_source', issue: expect.stringMatching(new RegExp(`^is not a parameter of the ${kind} list \\(it takes: limit, offset, `)) },
      { field: 'limt', issue: `is not a parameter of the ${kind} list; did you mean limit?` },
    ]);
    expect(res.body.error.message).toBe('Invalid parameter: utm_source, limt');
  });

  it('rejects a known parameter given twice', async () => {
    const res = await api.get(`${PATHS[kind]}?limit=3&limit=4`);
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toEqual({ field: 'limit', issue: 'must be given at most once' });
  });
});
