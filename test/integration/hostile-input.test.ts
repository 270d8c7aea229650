import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_PARAMS } from '../../lambdas/core/query/list-query';
import type { ResourceKind } from '../../lambdas/core/records';
import { startTestApi, type TestApi } from '../support/api-server';

/**
 * Whatever a client sends, the answer is a 200 or a 400 with the JSON error body, never a 5xx:
 * every declared parameter of every list endpoint gets every hostile value below.
 */

const HOSTILE_VALUES = [
  '%',
  '%%',
  '%00',
  '\u0000',
  '\u001f',
  '"',
  "'",
  '\\',
  '*',
  '(',
  ')',
  'NEAR(',
  'AND',
  'OR NOT',
  '^',
  '-',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e309',
  '-0',
  '0x10',
  '1_000',
  ' 5 ',
  '5,',
  ',',
  ',,',
  '[]',
  '{}',
  'null',
  'undefined',
  'true',
  '9999999999999999999999',
  '2026-02-29',
  '0000-00-00',
  '9999-12-31',
  'CA;DROP TABLE grants',
  '日本語',
  '🙂',
  '\uD800',
  'a'.repeat(2000),
  'x,'.repeat(100),
];

const PATHS: Record<ResourceKind, string> = { grant: '/grants-api', contract: '/contracts-api', funder: '/funders-api' };

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ seed: { funders: 20, grants: 200, contracts: 80, awardedGrants: 20, awardedContracts: 10 } });
});
afterAll(async () => api?.close());

describe.each(Object.keys(PATHS) as ResourceKind[])('hostile input on %s lists', (kind) => {
  it.each(LIST_PARAMS[kind].map((p) => p.name))('%s never causes a 5xx', async (name) => {
    for (const value of HOSTILE_VALUES) {
      const qs = new URLSearchParams({ [name]: value, ...(name === 'search_mode' ? {} : { search: value.slice(0, 400) || 'x' }) });
      const res = await api.get(`${PATHS[kind]}?${qs}`);
      expect([200, 400], `${name}=${JSON.stringify(value.slice(0, 40))}: ${JSON.stringify(res.body).slice(0, 200)}`).toContain(res.status);
      if (res.status === 400) expect(res.body.error.code).toBe('INVALID_PARAMETER');
      else expect(Array.isArray(res.body.results) || typeof res.body.pagination?.total === 'number').toBe(true);
    }
  });
});

describe('hostile paths', () => {
  it.each(['/grants-api/%', '/grants-api/%E0%A4%A', '/grants-api/..%2F..%2Fetc%2Fpasswd', `/funders-api/${'f'.repeat(5000)}`, '/contracts-api/%00'])(
    '%s is a 4xx with a JSON body',
    async (path) => {
      const res = await api.get(path);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(typeof res.body.error.code).toBe('string');
    },
  );
});
