import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../lambdas/core/query/list-query';
import type { Grant } from '../../lambdas/core/records';
import type { Clock } from '../../lambdas/ports/clock';
import type { Embedder } from '../../lambdas/ports/embedder';
import { type CatalogueSpec, generateContracts, generateFunders, generateGrants } from '../../local/synthetic-catalogue';
import { startTestApi, TEST_CATALOGUE, type TestApi } from '../support/api-server';
import { sortRecords } from '../support/oracle';

/**
 * Deep paging over real HTTP on the embedded stack: `pagination.next_cursor` continues a list
 * right after its page, in every mode and sort, with no offset cap; a walk returns what offset
 * paging returns, each record once; and every bad cursor is a 400 naming `cursor`.
 */

/** A clock the tests can move (cursor expiry); real time otherwise. */
let shift = 0;
const clock: Clock = { now: () => new Date(Date.now() + shift) };

let api: TestApi;
let spec: CatalogueSpec;

beforeAll(async () => {
  api = await startTestApi({ seed: TEST_CATALOGUE, clock });
  spec = api.stack.seededCatalogue!;
}, 300_000);
afterAll(async () => api?.close());

type Page = { results: { id: string }[]; pagination: { total: number; limit: number; offset: number; returned: number; next_cursor?: string } };

async function page(path: string, params: Record<string, string>): Promise<Page> {
  const res = await api.get(`${path}?${new URLSearchParams(params)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Page;
}

/** Every result by offset pages of 100 (as far as offset paging reaches). */
async function walkByOffset(path: string, params: Record<string, string>): Promise<{ ids: string[]; total: number }> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const body = await page(path, { ...params, limit: '100', offset: String(offset) });
    ids.push(...body.results.map((r) => r.id));
    // An offset page links to the rest by cursor too, exactly when more follow.
    expect(body.pagination.next_cursor !== undefined, `next_cursor at offset ${offset}`).toBe(offset + body.results.length < body.pagination.total);
    if (body.results.length < 100) return { ids, total: body.pagination.total };
  }
}

/** Every result by cursor, with page sizes taken in turn from `limits` (limit may change along the walk). */
async function walkByCursor(path: string, params: Record<string, string>, limits: readonly number[] = [100]): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; ; pages++) {
    const limit = limits[pages % limits.length]!;
    const body = await page(path, { ...params, limit: String(limit), ...(cursor ? { cursor } : {}) });
    expect(body.pagination.offset, 'offset: the results the walk returned before this page').toBe(ids.length);
    expect(body.pagination.limit).toBe(limit);
    ids.push(...body.results.map((r) => r.id));
    cursor = body.pagination.next_cursor;
    if (!cursor) {
      expect(ids.length, 'the last page ends the set').toBe(body.pagination.total);
      return { ids, pages: pages + 1 };
    }
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(body.results, 'a page with a cursor after it is full').toHaveLength(limit);
  }
}

async function expectWalksAgree(path: string, params: Record<string, string>, limits?: readonly number[]): Promise<string[]> {
  const offsets = await walkByOffset(path, params);
  const cursors = await walkByCursor(path, params, limits);
  expect(cursors.ids).toEqual(offsets.ids);
  expect(new Set(cursors.ids).size).toBe(offsets.total);
  return cursors.ids;
}

describe('deep paging with cursors', () => {
  it("walks the whole catalogue of each kind, every record once, in offset paging's order", async () => {
    const funders = generateFunders(spec);
    const grants = [...generateGrants(spec, funders)].flat();
    const contracts = [...generateContracts(spec, funders)].flat();
    const all = { opportunity_type: 'all', status: 'open,closed,forecasted' };
    const grantIds = await expectWalksAgree('/grants-api', { ...all, sort_by: 'deadline_date', order: 'asc' }, [100, 37, 1, 100]);
    expect(grantIds).toEqual(sortRecords(grants, 'deadline_date', 'asc').map((g) => g.id));
    const contractIds = await expectWalksAgree('/contracts-api', { opportunity_type: 'all', status: 'open,closed' });
    expect(contractIds).toEqual(sortRecords(contracts, 'created_at', 'desc').map((c) => c.id));
    const funderIds = await expectWalksAgree('/funders-api', {});
    expect(funderIds).toEqual(sortRecords(funders, 'name', 'asc').map((f) => f.id));
  }, 120_000);

  const WALKS: [string, string, Record<string, string>][] = [
    ['grants, newest first (default)', '/grants-api', {}],
    ['grants by title', '/grants-api', { opportunity_type: 'all', sort_by: 'title', order: 'asc' }],
    ['grants by amount, largest first, nulls last', '/grants-api', { opportunity_type: 'all', sort_by: 'amount_max', order: 'desc' }],
    ['grants by deadline, latest first', '/grants-api', { sort_by: 'deadline_date', order: 'desc', states: 'CA,TX', include_national: 'true' }],
    ['keyword relevance', '/grants-api', { search: 'community health', opportunity_type: 'all' }],
    ['keyword relevance, ascending', '/grants-api', { search: 'water infrastructure', order: 'asc', opportunity_type: 'all' }],
    ['keyword by deadline', '/grants-api', { search: 'education', sort_by: 'deadline_date', order: 'asc' }],
    ['semantic relevance', '/grants-api', { search: 'rural broadband internet access', search_mode: 'semantic', opportunity_type: 'all' }],
    ['semantic by amount', '/grants-api', { search: 'public health research', search_mode: 'semantic', sort_by: 'amount_min', order: 'asc' }],
    ['hybrid relevance', '/grants-api', { search: 'clean energy for schools', search_mode: 'hybrid', opportunity_type: 'all' }],
    ['hybrid relevance, ascending', '/grants-api', { search: 'youth mentoring', search_mode: 'hybrid', order: 'asc' }],
    ['hybrid by title', '/grants-api', { search: 'housing', search_mode: 'hybrid', sort_by: 'title', order: 'desc', opportunity_type: 'all' }],
    ['contracts, keyword', '/contracts-api', { search: 'software services', opportunity_type: 'all' }],
    ['contracts, hybrid', '/contracts-api', { search: 'construction', search_mode: 'hybrid', opportunity_type: 'all' }],
    ['funders, keyword', '/funders-api', { search: 'foundation' }],
    ['funders, semantic by creation', '/funders-api', { search: 'community foundation', search_mode: 'semantic', sort_by: 'created_at' }],
  ];

  it.each(WALKS)(
    'walks %s by cursor, as offset paging orders it',
    async (_name, path, params) => {
      const ids = await expectWalksAgree(path, params, [10, 25, 3]);
      expect(ids.length, 'the walk has more than one page').toBeGreaterThan(10);
    },
    60_000,
  );

  it('has no next_cursor with count_only or on the last page', async () => {
    const counted = await api.get('/grants-api?count_only=true&limit=1');
    expect(counted.status).toBe(200);
    expect(counted.body.pagination).toEqual({ total: expect.any(Number), total_relation: 'eq' });
    const total = counted.body.pagination.total as number;
    const last = await page('/grants-api', { limit: '100', offset: String(total - 3) });
    expect(last.results).toHaveLength(3);
    expect(last.pagination.next_cursor).toBeUndefined();
  });

  it('continues from a cursor with count_only as a count of the whole set', async () => {
    const first = await page('/grants-api', { limit: '5' });
    const counted = await api.get(`/grants-api?${new URLSearchParams({ cursor: first.pagination.next_cursor!, count_only: 'true' })}`);
    expect(counted.status).toBe(200);
    expect(counted.body.pagination).toEqual({ total: first.pagination.total, total_relation: 'eq' });
  });
});

describe('bad cursors: 400 INVALID_PARAMETER naming cursor', () => {
  let cursor: string;
  const params = { search: 'community health', status: 'open', limit: '10' };
  beforeAll(async () => {
    cursor = (await page('/grants-api', params)).pagination.next_cursor!;
    expect(cursor).toBeDefined();
  });

  async function expectRefused(path: string, query: Record<string, string>, issue: RegExp, fields = ['cursor']): Promise<void> {
    const res = await api.get(`${path}?${new URLSearchParams(query)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('INVALID_PARAMETER');
    expect(res.body.error.message).toBe(`Invalid parameter: ${fields.join(', ')}`);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(fields);
    expect(res.body.error.details[0].issue).toMatch(issue);
  }

  it('the same cursor continues the same query (limit may change)', async () => {
    const next = await page('/grants-api', { ...params, limit: '3', cursor });
    expect(next.pagination.offset).toBe(10);
    expect(next.results).toHaveLength(3);
  });

  it('a malformed cursor', async () => {
    await expectRefused('/grants-api', { ...params, cursor: 'not-a-cursor' }, /is not a cursor/);
    await expectRefused('/grants-api', { ...params, cursor: 'x'.repeat(8_001) }, /at most 8000 characters/);
  });

  it('a tampered cursor (its payload or its signature changed)', async () => {
    const [body, signature] = cursor.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = `${Buffer.from(JSON.stringify({ ...payload, n: 0 })).toString('base64url')}.${signature}`;
    await expectRefused('/grants-api', { ...params, cursor: forged }, /altered, or was not issued by this service/);
    const flipped = `${body}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    await expectRefused('/grants-api', { ...params, cursor: flipped }, /signature does not match/);
  });

  it('an expired cursor: start again from the first page', async () => {
    shift = 24 * 3_600_000 + 60_000;
    try {
      await expectRefused('/grants-api', { ...params, cursor }, /has expired.*start again from the first page/);
    } finally {
      shift = 0;
    }
  });

  it('a cursor for a different query, endpoint or sort', async () => {
    await expectRefused('/grants-api', { ...params, search: 'water', cursor }, /different query/);
    await expectRefused('/grants-api', { ...params, status: 'closed', cursor }, /different query/);
    await expectRefused('/grants-api', { ...params, search_mode: 'hybrid', cursor }, /different query/);
    await expectRefused('/contracts-api', { ...params, cursor }, /issued for a list of grants, not contracts/);
    await expectRefused('/grants-api', { ...params, sort_by: 'deadline_date', cursor }, /different sort \(sort_by=relevance, order=desc\)/);
  });

  it('a cursor with an offset other than 0, naming both', async () => {
    await expectRefused('/grants-api', { ...params, offset: '10', cursor }, /cannot be combined with offset/, ['cursor', 'offset']);
  });
});

/** Records that embed to nothing: a catalogue past the offset cap is indexed in a second, with no model. */
const NO_VECTORS: Embedder = { space: { embedder: 'test:no-vectors', dimensions: 4 }, embed: async (texts) => texts.map(() => null) };

describe('deep paging past the offset cap', () => {
  let big: TestApi;
  let grants: Grant[];
  const GRANTS = LIMITS.offsetMax + 1_500;

  beforeAll(async () => {
    big = await startTestApi({ seed: false, embedder: NO_VECTORS, semanticFloor: 0.5 });
    const catalogue: CatalogueSpec = {
      seed: 7,
      today: new Date().toISOString().slice(0, 10),
      funders: 50,
      grants: GRANTS,
      contracts: 1,
      awardedGrants: 500,
      awardedContracts: 0,
    };
    const funders = generateFunders(catalogue);
    grants = [];
    // Straight into the search index, which alone serves lists: the record store is not what is paged.
    for (const batch of generateGrants(catalogue, funders)) {
      await big.stack.services.index.upsert('grant', batch);
      grants.push(...batch);
    }
  }, 120_000);
  afterAll(async () => big?.close());

  it(`walks ${GRANTS.toLocaleString('en-US')} grants by cursor, where offset paging stops at ${LIMITS.offsetMax.toLocaleString('en-US')}`, async () => {
    const params = { opportunity_type: 'all', status: 'open,closed,forecasted', sort_by: 'created_at', order: 'asc' };
    const beyond = await big.get(`/grants-api?${new URLSearchParams({ ...params, offset: String(LIMITS.offsetMax + 1) })}`);
    expect(beyond.status).toBe(400);
    expect(beyond.body.error.details[0].field).toBe('offset');

    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await big.get(`/grants-api?${new URLSearchParams({ ...params, limit: '100', ...(cursor ? { cursor } : {}) })}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.pagination.total).toBe(GRANTS);
      ids.push(...res.body.results.map((r: { id: string }) => r.id));
      cursor = res.body.pagination.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil(GRANTS / 100));
    expect(ids).toEqual(sortRecords(grants, 'created_at', 'asc').map((g) => g.id));
  }, 120_000);

  it('walks keyword matches past the cap too', async () => {
    const params = { search: 'program', opportunity_type: 'all', status: 'open,closed,forecasted' };
    const total = (await big.get(`/grants-api?${new URLSearchParams({ ...params, count_only: 'true' })}`)).body.pagination.total as number;
    const ids = new Set<string>();
    let cursor: string | undefined;
    let walked = 0;
    do {
      const res = await big.get(`/grants-api?${new URLSearchParams({ ...params, limit: '100', ...(cursor ? { cursor } : {}) })}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      for (const r of res.body.results as { id: string }[]) ids.add(r.id);
      walked += res.body.results.length;
      cursor = res.body.pagination.next_cursor;
    } while (cursor);
    expect(walked).toBe(total);
    expect(ids.size).toBe(total);
  }, 120_000);
});
