import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseListQuery } from '../../lambdas/core/query/list-query';
import { ContractSchema, FunderSchema, GrantSchema } from '../../lambdas/core/records';
import { removeLocalIndex, startEmbeddedStack } from '../../local/embedded-stack';
import { startTestApi, type TestApi } from '../support/api-server';
import { countingEmbedder } from '../support/embedding-doubles';

const SMALL = { funders: 30, grants: 120, contracts: 60, awardedGrants: 20, awardedContracts: 10 };

describe('single records over HTTP', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ seed: SMALL });
  });
  afterAll(async () => api?.close());

  it.each([
    ['/grants-api', GrantSchema],
    ['/contracts-api', ContractSchema],
    ['/funders-api', FunderSchema],
  ] as const)('%s/{id}: 200 with the record itself, the same as in the list', async (path, schema) => {
    const list = await api.get(`${path}?limit=3&sort_by=created_at`);
    const listed = list.body.results[1];
    const res = await api.get(`${path}/${listed.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual(listed);
    expect(schema.safeParse(res.body).success).toBe(true);
  });

  it('an upper-case id finds the same record', async () => {
    const { body } = await api.get('/grants-api?limit=1');
    const res = await api.get(`/grants-api/${body.results[0].id.toUpperCase()}`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(body.results[0].id);
  });

  it('awarded records carry project_end_date and a null deadline', async () => {
    const { body } = await api.get('/grants-api?opportunity_type=awarded&limit=5');
    expect(body.results.length).toBeGreaterThan(0);
    for (const g of body.results) {
      expect(g.deadline_date).toBeNull();
      expect(g.project_end_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(g.opportunity_type).toBe('awarded');
    }
  });

  it.each(['/grants-api', '/contracts-api', '/funders-api'])('%s/{id}: 404 for an unknown id, 400 for a malformed one', async (path) => {
    const missing = await api.get(`${path}/00000000-0000-4000-8000-000000000000`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    for (const bad of ['123', 'not-a-uuid', '3f2b8c1e6a4d4c8e9b1a2d5e7f9a0b3c', '%E2%9C%93', "1'%20OR%20'1'='1"]) {
      const res = await api.get(`${path}/${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'INVALID_PARAMETER', details: [{ field: 'id' }] });
    }
  });

  it('unknown paths and methods get JSON errors', async () => {
    const unknown = await api.get('/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    const post = await fetch(`${api.baseUrl}/grants-api`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, OPTIONS');
    expect(((await post.json()) as { error: { code: string } }).error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('a write reaches the list, its count and get-by-id at once (local change feed, caches invalidated)', async () => {
    const query = '/grants-api?search=lighthouse%20restoration&states=ME&count_only=true';
    expect((await api.get(query)).body.pagination.total).toBe(0);
    const { body: listed } = await api.get('/grants-api?limit=1');
    const fresh = {
      ...listed.results[0],
      id: '7d1c2a3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      title: 'Historic Lighthouse Restoration Grants',
      description: 'Restoration of historic lighthouses on the coast of Maine.',
      states: ['ME'],
      geography: 'Maine',
    };
    await api.stack.services.store.put('grant', [fresh]);
    expect((await api.get(query)).body.pagination.total).toBe(1);
    const byId = await api.get(`/grants-api/${fresh.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body.title).toBe(fresh.title);
    await api.stack.services.store.put('grant', [{ ...fresh, title: 'Coastal Heritage Grants', description: 'Heritage.' }]);
    expect((await api.get(query)).body.pagination.total).toBe(0);
  });

  it('serves the OpenAPI document', async () => {
    const res = await api.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/grants-api', '/grants-api/{id}', '/funders-api/{id}']));
  });
});

describe('local state', () => {
  it('survives a restart, and the index is rebuilt from the store when it is lost', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gcf-state-'));
    try {
      const first = await startTestApi({ dataDir, seed: SMALL });
      const before = await first.get('/grants-api?limit=5&opportunity_type=all');
      expect(first.stack.seededCatalogue).not.toBeNull();
      await first.close();

      const second = await startTestApi({ dataDir, seed: SMALL });
      const after = await second.get('/grants-api?limit=5&opportunity_type=all');
      expect(after.body.pagination.total).toBe(SMALL.grants); // grants counts the awarded ones too
      expect(after.body.results).toEqual(before.body.results);
      await second.close();

      removeLocalIndex(dataDir);
      const third = await startTestApi({ dataDir, seed: SMALL });
      const rebuilt = await third.get('/grants-api?limit=5&opportunity_type=all');
      expect(rebuilt.body.results).toEqual(before.body.results);
      const semantic = await third.get('/grants-api?search=community%20health%20programs&search_mode=semantic&limit=3');
      expect(semantic.body.results.length).toBeGreaterThan(0); // the rebuilt index has the vectors too
      await third.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('rebuilds at start-up an index built with another embedder, saying so, and serves from the new vectors', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gcf-state-'));
    try {
      const first = await startEmbeddedStack({ dataDir, seed: SMALL });
      const builtWith = first.services.embedder.space.embedder;
      await first.close();
      const other = countingEmbedder(100);
      const messages: string[] = [];
      const second = await startEmbeddedStack({ dataDir, seed: false, embedder: other, semanticFloor: 0.5, onProgress: (m) => messages.push(m) });
      expect(messages.join('\n')).toContain(`the search index holds vectors from ${builtWith}`);
      expect(messages.join('\n')).toContain('now embeds with test-hash (100 dimensions): rebuilding it from the record store');
      expect(new Set(other.embedded).size).toBeGreaterThan(SMALL.grants);
      const count = parseListQuery('grant', { count_only: ['true'], opportunity_type: ['all'] }, '2026-11-22');
      expect((await second.services.index.query('grant', count)).total).toBe(SMALL.grants);
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
