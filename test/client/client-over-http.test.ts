import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { ApiError, createClient, type DataServiceClient, type ListItem } from '../../clients/typescript/src/index';
import type { Grant } from '../../lambdas/core/records';
import { generateFunders, generateGrants } from '../../local/synthetic-catalogue';
import { startTestApi, TEST_CATALOGUE, type TestApi } from '../support/api-server';
import { matches, sortRecords } from '../support/oracle';

/**
 * The typed client end to end over real HTTP against the local server on the embedded stack:
 * lists, records, counts, semantic search and grant matching return the seeded catalogue's
 * records; the iterator walks whole lists with their filters; errors carry the service's code,
 * details and request id.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
let api: TestApi;
let client: DataServiceClient;
let grants: Grant[];
let today: string;

beforeAll(async () => {
  api = await startTestApi({ seed: TEST_CATALOGUE });
  client = createClient({ baseUrl: api.baseUrl, apiKey: api.keys.developer });
  const spec = api.stack.seededCatalogue!;
  today = spec.today;
  grants = [...generateGrants(spec, generateFunders(spec))].flat();
});
afterAll(async () => api?.close());

/** The ids of a list read the plain way: offset pages of 100 over fetch, until a short page. */
async function offsetPagedIds(path: string, params: Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const res = await api.get(`${path}?${new URLSearchParams({ ...params, limit: '100', offset: String(offset) })}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(...res.body.results.map((r: { id: string }) => r.id));
    if (res.body.results.length < 100) return ids;
  }
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe('typed calls', () => {
  it('list, get and count grants, contracts and funders from the catalogue', async () => {
    const page = await client.listGrants({ states: 'CA', include_national: true, sort_by: 'deadline_date', order: 'asc', limit: 7 });
    expectTypeOf(page.results).toEqualTypeOf<ListItem<'grants'>[]>();
    expect(page.results).toHaveLength(7);
    expect(page.pagination).toMatchObject({ limit: 7, offset: 0, returned: 7 });
    const expected = sortRecords(
      grants.filter((g) => matches(g, { states: 'CA', include_national: 'true' }, today)),
      'deadline_date',
      'asc',
    );
    expect(page.pagination.total).toBe(expected.length);
    expect(page.results.map((g) => g.id)).toEqual(expected.slice(0, 7).map((g) => g.id));
    expect(await client.count('grants', { states: 'CA', include_national: true })).toBe(expected.length);

    const first = page.results[0]!;
    const record = await client.getGrant(first.id);
    expectTypeOf(record.title).toEqualTypeOf<string>();
    expect(record).toMatchObject({ id: first.id, title: expected[0]!.title, funder_id: expected[0]!.funder_id });

    const contracts = await client.listContracts({ limit: 3 });
    expect(contracts.results).toHaveLength(3);
    expect((await client.getContract(contracts.results[0]!.id)).id).toBe(contracts.results[0]!.id);

    const funders = await client.list('funders', { limit: 5 });
    expect(funders.meta.sort_by).toBe('name');
    expect(funders.results.map((f) => f.name)).toEqual([...funders.results.map((f) => f.name)].sort((a, b) => a.localeCompare(b)));
    expect((await client.getFunder(funders.results[0]!.id)).name).toBe(funders.results[0]!.name);
  });

  it('semantic search and grant matching return real records', async () => {
    const found = await client.semanticSearch({ query: 'mental health support for first responders', type: 'grants', limit: 5 });
    expect(found.count).toBeGreaterThan(0);
    expect(found.results).toHaveLength(found.count);
    for (const result of found.results) {
      expect(result.type).toBe('grant');
      expect(result.relevance).toBeGreaterThanOrEqual(0.5);
      expect((await client.getGrant(result.id)).title).toBe(result.title);
    }

    const matched = await client.matchGrants({
      profile: {
        mission: 'Community health workers and clinics for rural families, with telehealth and behavioral health care.',
        geography: 'rural Kansas',
        applicant_type: 'nonprofit',
      },
      limit: 5,
    });
    expect(matched.count).toBeGreaterThan(0);
    for (const match of matched.matches) {
      expect(match.why_it_fits.length).toBeGreaterThan(0);
      expect((await client.getGrant(match.id)).title).toBe(match.title);
    }
  });
});

describe('paginate', () => {
  it('walks the whole grants list: the same ids, in order, as one offset-paged read', async () => {
    const params = { opportunity_type: 'all' as const, sort_by: 'title' as const, order: 'asc' as const };
    const expected = await offsetPagedIds('/grants-api', params);
    expect(expected.length).toBe(grants.length);
    // An odd page size, so that pages and the offset-paged read fall differently.
    const walked = await collect(client.paginate('grants', { ...params, limit: 37 }));
    expect(walked.map((g) => g.id)).toEqual(expected);
    expect(new Set(walked.map((g) => g.id)).size).toBe(walked.length);

    const pages = await collect(client.pages('grants', { ...params, limit: 37 }));
    expect(pages).toHaveLength(Math.ceil(expected.length / 37));
    expect(pages.every((p, i) => i === pages.length - 1 || p.results.length === 37)).toBe(true);
  });

  it('keeps the filters on every page', async () => {
    const filters = { states: 'CA,NY', include_national: 'true', category: 'health' };
    const expected = new Set(grants.filter((g) => matches(g, filters, today)).map((g) => g.id));
    expect(expected.size).toBeGreaterThan(20);
    const walked = await collect(client.paginate('grants', { states: 'CA,NY', include_national: true, category: 'health', limit: 20 }));
    expect(new Set(walked.map((g) => g.id))).toEqual(expected);
    expect(walked).toHaveLength(expected.size);
  });

  it('walks contracts and funders too', async () => {
    const contracts = await collect(client.paginate('contracts', { sort_by: 'title', order: 'asc' }));
    expect(contracts.map((c) => c.id)).toEqual(await offsetPagedIds('/contracts-api', { sort_by: 'title', order: 'asc' }));
    const funders = await collect(client.paginate('funders', { limit: 50 }));
    expect(funders.map((f) => f.id)).toEqual(await offsetPagedIds('/funders-api', {}));
    expect(funders).toHaveLength(TEST_CATALOGUE.funders);
  });
});

describe('errors', () => {
  it('a bad parameter is an ApiError with the code, the field and the request id', async () => {
    const error = (await client.listGrants({ limit: 500 }).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(400);
    expect(error.code).toBe('INVALID_PARAMETER');
    expect(error.details.map((d) => d.field)).toContain('limit');
    expect(error.requestId).toMatch(UUID);
    const raw = await client.raw.GET('/grants-api', { params: { query: { limit: 500 } } });
    expect(raw.response.headers.get('x-request-id')).toMatch(UUID);
    expect(raw.error?.error.code).toBe('INVALID_PARAMETER');
  });

  it('an unknown id is NOT_FOUND, a bad key UNAUTHORIZED, each with its own request id', async () => {
    const missing = (await client.getGrant('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e)) as ApiError;
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    expect(missing.requestId).toMatch(UUID);
    const stranger = createClient({ baseUrl: api.baseUrl, apiKey: 'gcf_not_a_key' });
    const refused = (await stranger.listGrants().catch((e: unknown) => e)) as ApiError;
    expect(refused).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(refused.requestId).toMatch(UUID);
    expect(refused.requestId).not.toBe(missing.requestId);
    expect(refused.message.length).toBeGreaterThan(0);
  });
});
