import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Contract, Funder, Grant } from '../../lambdas/core/records';
import { COMMON_TERM_FRACTION } from '../../lambdas/core/search/keyword-query';
import { generateContracts, generateFunders, generateGrants } from '../../local/synthetic-catalogue';
import { startTestApi, TEST_CATALOGUE, type TestApi } from '../support/api-server';
import { matches, sortRecords } from '../support/oracle';

/**
 * Filters, sorts, pages and counts over real HTTP, checked against an independent oracle run on
 * the very catalogue the server seeded: every returned record satisfies the filter, and no
 * record that satisfies it is missed.
 */

let api: TestApi;
let today: string;
let grants: Grant[];
let contracts: Contract[];
let funders: Funder[];

beforeAll(async () => {
  api = await startTestApi({ seed: TEST_CATALOGUE });
  const spec = api.stack.seededCatalogue!;
  today = spec.today;
  funders = generateFunders(spec);
  grants = [...generateGrants(spec, funders)].flat();
  contracts = [...generateContracts(spec, funders)].flat();
});
afterAll(async () => {
  await api?.close();
});

async function fetchAllIds(path: string, params: Record<string, string>): Promise<{ ids: string[]; total: number }> {
  const ids: string[] = [];
  let total = -1;
  for (let offset = 0; ; offset += 100) {
    const qs = new URLSearchParams({ ...params, limit: '100', offset: String(offset) });
    const res = await api.get(`${path}?${qs}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    total = res.body.pagination.total;
    expect(res.body.pagination.returned).toBe(res.body.results.length);
    ids.push(...res.body.results.map((r: { id: string }) => r.id));
    if (res.body.results.length < 100) break;
  }
  return { ids, total };
}

function expectedIds(records: (Grant | Contract)[], params: Record<string, string>): string[] {
  const field = params.sort_by ?? 'created_at';
  const order = (params.order ?? 'desc') as 'asc' | 'desc';
  return sortRecords(
    records.filter((r) => matches(r, params, today)),
    field,
    order,
  ).map((r) => r.id);
}

const GRANT_FILTERS: Record<string, string>[] = [
  {},
  { opportunity_type: 'awarded' },
  { opportunity_type: 'all' },
  { status: 'open' },
  { status: 'posted' },
  { status: 'closed' },
  { status: 'forecasted' },
  { status: 'upcoming,open', opportunity_type: 'all' },
  { status: 'closed', opportunity_type: 'all' },
  { category: 'health' },
  { states: 'CA,NY' },
  { states: 'CA,NY', include_national: 'true' },
  { states: 'WY', include_national: 'true', status: 'open' },
  { geography: 'national' },
  { geography: 'international' },
  { geography: 'state' },
  { geography: 'local' },
  { geography: 'Texas' },
  { deadline_after: '__today__' },
  { deadline_before: '__today__', opportunity_type: 'all' },
  { deadline_after: '__today__', deadline_before: '__in90days__' },
  { posted_after: '__yearago__' },
  { min_amount: '500000' },
  { max_amount: '50000' },
  { min_amount: '100000', max_amount: '100000' },
  { states: 'CA,NY', include_national: 'true', deadline_after: '__today__', sort_by: 'deadline_date', order: 'asc' },
];

const CONTRACT_FILTERS: Record<string, string>[] = [
  {},
  { opportunity_type: 'awarded' },
  { status: 'open' },
  { status: 'closed', opportunity_type: 'all' },
  { naics: '541512' },
  { naics: '54' },
  { naics: '236220,5415' },
  { set_aside: 'SBA,8A' },
  { states: 'VA,MD', include_national: 'true' },
  { category: 'Information Technology' },
  { min_amount: '1000000', deadline_after: '__today__' },
];

function resolveDates(params: Record<string, string>): Record<string, string> {
  const shift = (days: number) => new Date(Date.parse(`${today}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    out[k] = v === '__today__' ? today : v === '__in90days__' ? shift(90) : v === '__yearago__' ? shift(-365) : v;
  }
  return out;
}

describe('grant filters return exactly the matching records, in order, across pages', () => {
  it.each(GRANT_FILTERS.map((p) => [JSON.stringify(p), p] as const))('%s', async (_label, raw) => {
    const params = resolveDates(raw);
    const expected = expectedIds(grants, params);
    const { ids, total } = await fetchAllIds('/grants-api', params);
    expect(total).toBe(expected.length);
    expect(ids).toEqual(expected);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('the filters are not vacuous: each selects some but not all records', () => {
    for (const raw of GRANT_FILTERS.filter((p) => Object.keys(p).length > 0 && p.opportunity_type !== 'all')) {
      const n = expectedIds(grants, resolveDates(raw)).length;
      expect(n, JSON.stringify(raw)).toBeGreaterThan(0);
      expect(n, JSON.stringify(raw)).toBeLessThan(grants.length);
    }
  });
});

describe('contract filters', () => {
  it.each(CONTRACT_FILTERS.map((p) => [JSON.stringify(p), p] as const))('%s', async (_label, raw) => {
    const params = resolveDates(raw);
    const expected = expectedIds(contracts, params);
    expect(expected.length, 'filter selects something').toBeGreaterThan(0);
    const { ids, total } = await fetchAllIds('/contracts-api', params);
    expect(total).toBe(expected.length);
    expect(ids).toEqual(expected);
  });
});

describe('funder_id', () => {
  it('keeps exactly the records of the funders named, alone and with other filters, across pages', async () => {
    const fundersOf = (records: (Grant | Contract)[]) => [...new Set(records.map((r) => r.funder_id))].sort();
    const grantFunders = fundersOf(grants);
    const contractFunders = fundersOf(contracts);
    const cases: ['/grants-api' | '/contracts-api', (Grant | Contract)[], Record<string, string>][] = [
      ['/grants-api', grants, { funder_id: grantFunders[0]!, opportunity_type: 'all' }],
      ['/grants-api', grants, { funder_id: `${grantFunders[1]},${grantFunders[2]}` }],
      ['/grants-api', grants, { funder_id: grantFunders[3]!, status: 'open', sort_by: 'deadline_date', order: 'asc' }],
      ['/contracts-api', contracts, { funder_id: contractFunders[0]!, opportunity_type: 'all' }],
      ['/contracts-api', contracts, { funder_id: contractFunders.slice(0, 3).join(','), naics: '54' }],
      // A funder with no records, and one of funders only: nothing.
      ['/grants-api', grants, { funder_id: '00000000-0000-4000-8000-000000000000' }],
    ];
    for (const [path, records, params] of cases) {
      const expected = expectedIds(records, params);
      const { ids, total } = await fetchAllIds(path, params);
      expect(ids, JSON.stringify(params)).toEqual(expected);
      expect(total).toBe(expected.length);
    }
    // Not vacuous: the first cases each keep some records but not all.
    for (const [, records, params] of cases.slice(0, 5)) {
      const n = expectedIds(records, params).length;
      expect(n, JSON.stringify(params)).toBeGreaterThan(0);
      expect(n, JSON.stringify(params)).toBeLessThan(records.length);
    }
  });
});

describe('sorting', () => {
  const fields = ['created_at', 'deadline_date', 'amount_min', 'amount_max', 'title'];
  it.each(
    fields.flatMap(
      (f) =>
        [
          [f, 'asc'],
          [f, 'desc'],
        ] as const,
    ),
  )('grants by %s %s', async (field, order) => {
    const params = { sort_by: field, order, opportunity_type: 'all' };
    const res = await api.get(`/grants-api?${new URLSearchParams({ ...params, limit: '100', offset: '37' })}`);
    expect(res.status).toBe(200);
    expect(res.body.meta.sort_by).toBe(field);
    expect(res.body.meta.order).toBe(order);
    expect(res.body.results.map((r: Grant) => r.id)).toEqual(expectedIds(grants, params).slice(37, 137));
  });

  it.each(
    fields.flatMap(
      (f) =>
        [
          [f, 'asc'],
          [f, 'desc'],
        ] as const,
    ),
  )('contracts by %s %s', async (field, order) => {
    const params = { sort_by: field, order, opportunity_type: 'all' };
    const res = await api.get(`/contracts-api?${new URLSearchParams({ ...params, limit: '100', offset: '11' })}`);
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: Contract) => r.id)).toEqual(expectedIds(contracts, params).slice(11, 111));
  });

  it('order defaults to desc and nulls sort last both ways', async () => {
    const asc = await api.get(`/grants-api?sort_by=amount_min&order=asc&opportunity_type=all&limit=100&offset=${grants.length - 100}`);
    expect(asc.body.results.at(-1).amount_min).toBeNull();
    const desc = await api.get(`/grants-api?sort_by=amount_min&opportunity_type=all&limit=100&offset=${grants.length - 100}`);
    expect(desc.body.meta.order).toBe('desc');
    expect(desc.body.results.at(-1).amount_min).toBeNull();
  });

  it.each([
    ['name', 'asc'],
    ['name', 'desc'],
    ['created_at', 'asc'],
    ['created_at', 'desc'],
  ] as const)('funders by %s %s', async (field, order) => {
    const res = await api.get(`/funders-api?sort_by=${field}&order=${order}&limit=100`);
    expect(res.body.results.map((f: Funder) => f.id)).toEqual(
      sortRecords(funders, field, order)
        .slice(0, 100)
        .map((f) => f.id),
    );
  });

  it('funders default to alphabetical', async () => {
    const res = await api.get('/funders-api?limit=100&offset=20');
    expect(res.body.meta).toMatchObject({ sort_by: 'name', order: 'asc' });
    expect(res.body.results.map((f: Funder) => f.id)).toEqual(
      sortRecords(funders, 'name', 'asc')
        .slice(20, 120)
        .map((f) => f.id),
    );
  });
});

describe('pages and counts', () => {
  it('pages of every size tile the list without overlap or gap', async () => {
    const expected = expectedIds(grants, {});
    for (const size of [7, 20, 100]) {
      const seen: string[] = [];
      for (let offset = 0; offset < 300; offset += size) {
        const res = await api.get(`/grants-api?limit=${size}&offset=${offset}`);
        const { next_cursor: nextCursor, ...pagination } = res.body.pagination;
        expect(pagination).toEqual({ total: expected.length, total_relation: 'eq', limit: size, offset, returned: res.body.results.length });
        // More follow every one of these pages: the cursor to them (test/integration/deep-paging.test.ts).
        expect(typeof nextCursor).toBe('string');
        seen.push(...res.body.results.map((r: Grant) => r.id));
      }
      expect(seen.slice(0, 300)).toEqual(expected.slice(0, seen.slice(0, 300).length));
    }
  });

  it('an offset past the end returns an empty page with the true total', async () => {
    const res = await api.get('/grants-api?offset=10000');
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([]);
    expect(res.body.pagination.returned).toBe(0);
    expect(res.body.pagination.total).toBe(expectedIds(grants, {}).length);
  });

  it('count_only returns the total and no results', async () => {
    const params = { states: 'CA', include_national: 'true', status: 'open' };
    const res = await api.get(`/grants-api?${new URLSearchParams({ ...params, count_only: 'true' })}`);
    expect(res.status).toBe(200);
    expect(res.body.results).toBeUndefined();
    expect(res.body.pagination).toEqual({ total: expectedIds(grants, params).length, total_relation: 'eq' });
    expect(res.body.meta.response_time_ms).toBeGreaterThanOrEqual(0);
    const funderCount = await api.get('/funders-api?count_only=true');
    expect(funderCount.body.pagination.total).toBe(funders.length);
  });

  it("the envelope is exactly the interface's", async () => {
    const res = await api.get('/contracts-api?limit=2');
    expect(Object.keys(res.body).sort()).toEqual(['meta', 'pagination', 'results']);
    // next_cursor: more results follow this page (deep paging).
    expect(Object.keys(res.body.pagination).sort()).toEqual(['limit', 'next_cursor', 'offset', 'returned', 'total', 'total_relation']);
    expect(Object.keys(res.body.meta).sort()).toEqual(['order', 'response_time_ms', 'sort_by']);
    expect(typeof res.body.meta.response_time_ms).toBe('number');
  });
});

describe('keyword search', () => {
  const containsWord = (
    word: string,
    r: { title: string; description?: string; name?: string; summary?: string | null; funder_name?: string; categories?: string[] },
  ) =>
    new RegExp(`\\b${word}\\b`, 'i').test(`${r.title ?? r.name} ${r.description ?? r.summary ?? ''} ${r.funder_name ?? ''} ${(r.categories ?? []).join(' ')}`);

  it('finds every applyable grant that mentions the word, most relevant first, whatever the model thinks of it', async () => {
    const expected = grants.filter((g) => matches(g, {}, today) && containsWord('broadband', g));
    expect(expected.length).toBeGreaterThan(0);
    const { ids, total } = await fetchAllIds('/grants-api', { search: 'broadband' });
    expect(total).toBe(expected.length);
    expect(new Set(ids)).toEqual(new Set(expected.map((g) => g.id)));
    const first = await api.get('/grants-api?search=broadband&limit=5');
    expect(first.body.meta.sort_by).toBe('relevance');
    for (const g of first.body.results) expect(g.title.toLowerCase()).toContain('broadband');
  });

  it('keeps records holding both words and those holding a telling one, by BM25; filters still apply, and an explicit sort wins', async () => {
    const words = ['rural', 'broadband'];
    const params = { search: words.join(' '), states: 'TX', include_national: 'true' };
    // Telling: in at most 5% of all grants (the index counts every record of the kind).
    const telling = words.filter((w) => grants.filter((g) => containsWord(w, g)).length <= COMMON_TERM_FRACTION * grants.length);
    expect(telling.length).toBeGreaterThan(0);
    const candidates = grants.filter((g) => matches(g, params, today) && words.some((w) => containsWord(w, g)));
    const holdsBoth = (g: Grant) => words.every((w) => containsWord(w, g));
    const full = candidates.filter(holdsBoth);
    const partial = candidates.filter((g) => !holdsBoth(g) && telling.some((w) => containsWord(w, g)));
    expect(full.length).toBeGreaterThan(0);
    expect(partial.length).toBeGreaterThan(0);
    // A record holding only the common word is no match.
    expect(candidates.length).toBeGreaterThan(full.length + partial.length);

    const { ids } = await fetchAllIds('/grants-api', params);
    expect(new Set(ids)).toEqual(new Set([...full, ...partial].map((g) => g.id)));
    expect(full.map((g) => g.id)).toContain(ids[0]);
    const byDeadline = await fetchAllIds('/grants-api', { ...params, sort_by: 'deadline_date', order: 'asc' });
    expect(byDeadline.ids).toEqual(sortRecords([...full, ...partial], 'deadline_date', 'asc').map((g) => g.id));
  });

  it('a query with no meaningful word or no match returns an empty list', async () => {
    for (const q of ['the of and', 'qwxz zzkv']) {
      const res = await api.get(`/grants-api?search=${encodeURIComponent(q)}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ results: [], pagination: { total: 0 } });
    }
  });

  it('search text with query-language characters is treated as words, never a 500', async () => {
    for (const q of ['"unbalanced', 'NEAR(a b)', '*', 'title:water', "o'reilly -- drop table", '日本語 テキスト', '%00%01']) {
      const res = await api.get(`/grants-api?search=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
    }
  });

  it('funders match on name and summary', async () => {
    const word = funders
      .find((f) => f.summary)!
      .summary!.match(/[A-Za-z]{7,}/)![0]!
      .toLowerCase();
    const expected = funders.filter((f) => containsWord(word, { title: f.name, description: f.summary ?? '' }));
    expect(expected.length).toBeGreaterThan(0);
    const { ids } = await fetchAllIds('/funders-api', { search: word });
    // Stemming may also match other forms of the word, so: nothing missed, nothing unrelated.
    expect(ids).toEqual(expect.arrayContaining(expected.map((f) => f.id)));
    const stem = new RegExp(`\\b${word.slice(0, 5)}`, 'i');
    for (const id of ids) {
      const f = funders.find((x) => x.id === id)!;
      expect(stem.test(`${f.name} ${f.summary ?? ''}`), f.name).toBe(true);
    }
  });

  it('contracts search title and description', async () => {
    const res = await api.get('/contracts-api?search=services&limit=100&opportunity_type=all');
    expect(res.status).toBe(200);
    expect(res.body.pagination.total).toBeGreaterThan(0);
    for (const c of res.body.results) expect(`${c.title} ${c.description}`.toLowerCase()).toMatch(/servic/);
  });
});
