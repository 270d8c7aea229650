import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_CHECK_STEPS, ApiCheckFailure, runApiCheck } from '../../lambdas/canary/api-check';
import { CANARY_KEY_LABEL, CANARY_KEY_TIER, parseCanaryKeySecret } from '../../lambdas/core/auth/canary-key';
import { provisionCanaryKey } from '../../lambdas/core/use-cases/provision-canary-key';
import { startTestApi, type TestApi } from '../support/api-server';

const SMALL = { funders: 30, grants: 120, contracts: 60, awardedGrants: 20, awardedContracts: 10 };
const SEARCH_TERM = 'research';

/** The failure runApiCheck rejects with (its message), or null when it passed. */
async function failureOf(check: Promise<unknown>): Promise<string | null> {
  try {
    await check;
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiCheckFailure);
    return (error as Error).message;
  }
}

describe('the canary API check over real HTTP against the local server', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ seed: SMALL });
  });
  afterAll(async () => api?.close());

  it('passes on a healthy server: a search with results, the record it returned, the OpenAPI document, as three steps', async () => {
    const steps: string[] = [];
    const result = await runApiCheck({ baseUrl: api.baseUrl, apiKey: api.keys.developer, searchTerm: SEARCH_TERM }, (name, step) => {
      steps.push(name);
      return step();
    });
    expect(steps).toEqual([API_CHECK_STEPS.search, API_CHECK_STEPS.get, API_CHECK_STEPS.openApi]);
    expect(result.searchTotal).toBeGreaterThan(0);
    expect(result.grantId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.openApiVersion).toMatch(/^3\./);
    expect((await api.get(`/grants-api/${result.grantId}`)).status).toBe(200);
  });

  it('fails on an empty search answer, naming the step', async () => {
    const message = await failureOf(runApiCheck({ baseUrl: api.baseUrl, apiKey: api.keys.developer, searchTerm: 'qqzzxxnotaword' }));
    expect(message).toMatch(/^search grants: GET \/grants-api\?search=qqzzxxnotaword.* found no grants/);
  });

  it('fails on a refused key with the status, and the message never holds the key', async () => {
    const wrongKey = `${api.keys.developer.slice(0, -4)}AAAA`;
    const message = await failureOf(runApiCheck({ baseUrl: api.baseUrl, apiKey: wrongKey, searchTerm: SEARCH_TERM }));
    expect(message).toMatch(/^search grants: GET .* answered 401, expected 2xx/);
    expect(message).not.toContain(wrongKey);
  });

  it('fails on a key whose tier has no API access (403)', async () => {
    const message = await failureOf(runApiCheck({ baseUrl: api.baseUrl, apiKey: api.keys.free, searchTerm: SEARCH_TERM }));
    expect(message).toMatch(/answered 403, expected 2xx/);
  });

  it('fails on a wrong base URL with the 404', async () => {
    const message = await failureOf(runApiCheck({ baseUrl: `${api.baseUrl}/v0`, apiKey: api.keys.developer, searchTerm: SEARCH_TERM }));
    expect(message).toMatch(/^search grants: GET \/grants-api.* answered 404/);
  });

  it('fails before any request without a key', async () => {
    expect(await failureOf(runApiCheck({ baseUrl: api.baseUrl, apiKey: ' ', searchTerm: SEARCH_TERM }))).toMatch(/provision the canary key/);
  });

  it('provisioning makes a working key on the canary tier, then rotates it (the old one honoured for the grace hour)', async () => {
    const keys = api.stack.services.keys;
    const first = await provisionCanaryKey(keys, parseCanaryKeySecret('{}'), randomBytes, new Date());
    expect(first.rotated).toBe(false);
    expect(first.record).toMatchObject({ tier: CANARY_KEY_TIER, label: CANARY_KEY_LABEL });
    const stored = parseCanaryKeySecret(JSON.stringify(first.secret));
    expect(stored).toEqual({ key_id: first.record.key_id, key: first.key });
    await runApiCheck({ baseUrl: api.baseUrl, apiKey: first.key, searchTerm: SEARCH_TERM });

    const second = await provisionCanaryKey(keys, stored, randomBytes, new Date());
    expect(second.rotated).toBe(true);
    expect(second.record.key_id).toBe(first.record.key_id);
    expect(second.key).not.toBe(first.key);
    await runApiCheck({ baseUrl: api.baseUrl, apiKey: second.key, searchTerm: SEARCH_TERM });
    expect((await api.get('/grants-api?limit=1', { key: first.key })).status).toBe(200);

    // A revoked canary key is replaced, not rotated.
    await keys.revoke(second.record.key_id, new Date().toISOString());
    const third = await provisionCanaryKey(keys, second.secret, randomBytes, new Date());
    expect(third.rotated).toBe(false);
    expect(third.record.key_id).not.toBe(second.record.key_id);
  });
});

describe('the canary API check against a stopped server', () => {
  it('fails with "got no answer" and the connection error', async () => {
    const api = await startTestApi({ seed: { funders: 2, grants: 2, contracts: 0, awardedGrants: 0, awardedContracts: 0 } });
    const { baseUrl } = api;
    const key = api.keys.developer;
    await api.close();
    const message = await failureOf(runApiCheck({ baseUrl, apiKey: key, searchTerm: SEARCH_TERM, timeoutMs: 2_000 }));
    expect(message).toMatch(/^search grants: GET \/grants-api.* got no answer \(ECONNREFUSED\)$/);
    expect(message).not.toContain(key);
  });
});
