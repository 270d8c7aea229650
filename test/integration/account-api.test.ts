import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountApiRoute, accountRouteName } from '../../lambdas/http/account-router';
import type { ApiEvent } from '../../lambdas/http/api-gateway';
import { embeddedAccountServices } from '../../local/account-services';
import { localIdentityVerifier } from '../../local/oidc/local-openid-provider';
import { type AccountApiServer, startAccountApiServer } from '../support/account-api-server';

/**
 * The account API over real HTTP on the local server, with real ID tokens from the local OpenID
 * provider's code flow: an account made at the first sign-in, its keys (made, used on the public
 * API, rotated, revoked), their usage and request log, and the audit log.
 */

let api: AccountApiServer;
let ada: string;

beforeAll(async () => {
  api = await startAccountApiServer();
  ada = await api.idTokenFor('Ada@Example.org');
}, 60_000);
afterAll(async () => api?.close());

describe('GET /account', () => {
  it('makes the account at the first sign-in, on the basic plan, and answers with the same one after', async () => {
    const first = await api.call('GET', '/account', { token: ada });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      owner_email: 'ada@example.org',
      plan: 'basic',
      limits: { api_access: true, daily_quota: 1000, matching: false, webhooks: false, rate: { per_second: 10, burst: 20 } },
    });
    expect(first.body.account_id).toMatch(/^acct_[0-9A-Za-z]{16}$/);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const again = await api.call('GET', '/account', { token: await api.idTokenFor('ada@example.org') });
    expect(again.body.account_id).toBe(first.body.account_id);
    const audit = await api.call('GET', '/account/audit', { token: ada });
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual(['account.created']);
  });
});

describe('keys', () => {
  it('creates a key shown once that then works on the public API, and lists it without its value', async () => {
    const created = await api.call('POST', '/account/keys', { token: ada, body: { label: '  staging server ' } });
    expect(created.status).toBe(201);
    const { key, api_key: apiKey } = created.body;
    expect(apiKey).toMatch(/^gcf_live_[0-9A-Za-z]{32}$/);
    expect(key).toMatchObject({ label: 'staging server', tier: 'basic', revoked_at: null, rotated_at: null, last_used_at: null });
    expect(apiKey.startsWith(key.prefix)).toBe(true);

    const grants = await fetch(`${api.baseUrl}/grants-api?limit=1`, { headers: { Authorization: `Bearer ${apiKey}` } });
    expect(grants.status).toBe(200);
    const requestId = grants.headers.get('x-request-id');

    const listed = await api.call('GET', '/account/keys', { token: ada });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ api_access: true, notice: null, live_keys: 1, max_live_keys: 20 });
    expect(listed.body.keys).toHaveLength(1);
    expect(listed.body.keys[0].key_id).toBe(key.key_id);
    expect(listed.body.keys[0].last_used_at).not.toBeNull();
    expect(JSON.stringify(listed.body)).not.toContain(apiKey);

    const log = await api.call('GET', `/account/keys/${key.key_id}/requests`, { token: ada });
    expect(log.status).toBe(200);
    expect(log.body.entries).toEqual([expect.objectContaining({ method: 'GET', path: '/functions/v1/grants-api', status: 200, request_id: requestId })]);
    expect(log.body.next_cursor).toBeNull();

    const usage = await api.call('GET', `/account/usage?granularity=hour&days=1&key_id=${key.key_id}`, { token: ada });
    expect(usage.status).toBe(200);
    expect(usage.body.granularity).toBe('hour');
    expect(usage.body.totals.requests).toBe(1);
    expect(usage.body.keys).toHaveLength(1);
    expect(usage.body.keys[0].today).toMatchObject({ used: 1, quota: 1000, remaining: 999 });
    const daily = await api.call('GET', '/account/usage', { token: ada });
    expect(daily.body.granularity).toBe('day');
    expect(daily.body.periods).toHaveLength(30);
    expect(daily.body.totals.requests).toBe(1);
  });

  it('keeps a label with markup as plain text in JSON', async () => {
    const label = '<img src=x onerror=alert(1)>';
    const created = await api.call('POST', '/account/keys', { token: ada, body: { label } });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(created.body.key.label).toBe(label);
    await api.call('POST', `/account/keys/${created.body.key.key_id}/revoke`, { token: ada });
  });

  it('honours Idempotency-Key: a retry answers with the key made first and no value', async () => {
    const headers = { 'Idempotency-Key': 'provision-ci-1' };
    const first = await api.call('POST', '/account/keys', { token: ada, body: { label: 'ci' }, headers });
    const retry = await api.call('POST', '/account/keys', { token: ada, body: { label: 'ci' }, headers });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body.key.key_id).toBe(first.body.key.key_id);
    expect(retry.body.api_key).toBeNull();
    const other = await api.call('POST', '/account/keys', { token: ada, body: { label: 'something else' }, headers });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('CONFLICT');
  });

  it('rotates with a grace period, then revokes (idempotently), each audited as the owner', async () => {
    const { body } = await api.call('POST', '/account/keys', { token: ada, body: { label: 'to rotate' } });
    const oldKey = body.api_key;
    const rotated = await api.call('POST', `/account/keys/${body.key.key_id}/rotate`, { token: ada, body: { grace_hours: 2 } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.api_key).not.toBe(oldKey);
    const graceMs = Date.parse(rotated.body.key.previous_valid_until) - Date.parse(rotated.body.key.rotated_at);
    expect(graceMs).toBe(2 * 3_600_000);
    const byDefault = await api.call('POST', `/account/keys/${body.key.key_id}/rotate`, { token: ada });
    expect(Date.parse(byDefault.body.key.previous_valid_until) - Date.parse(byDefault.body.key.rotated_at)).toBe(24 * 3_600_000);

    const revoked = await api.call('POST', `/account/keys/${body.key.key_id}/revoke`, { token: ada });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    const again = await api.call('POST', `/account/keys/${body.key.key_id}/revoke`, { token: ada, body: {} });
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    const refused = await fetch(`${api.baseUrl}/grants-api?limit=1`, { headers: { Authorization: `Bearer ${rotated.body.api_key}` } });
    expect(refused.status).toBe(401);
    const rotateRevoked = await api.call('POST', `/account/keys/${body.key.key_id}/rotate`, { token: ada });
    expect(rotateRevoked.status).toBe(409);

    const audit = await api.call('GET', '/account/audit?limit=3', { token: ada });
    expect(audit.body.entries.map((e: { action: string; target: string; actor: string }) => [e.action, e.target, e.actor])).toEqual([
      ['key.revoked', body.key.key_id, 'owner'],
      ['key.rotated', body.key.key_id, 'owner'],
      ['key.rotated', body.key.key_id, 'owner'],
    ]);
    expect(audit.body.next_cursor).not.toBeNull();
    const older = await api.call('GET', `/account/audit?limit=3&before=${encodeURIComponent(audit.body.next_cursor)}`, { token: ada });
    expect(older.body.entries[0].action).toBe('key.created');
  });
});

describe('another account', () => {
  it('never sees, changes or reads the usage or log of the first account’s keys: 404', async () => {
    const { body } = await api.call('POST', '/account/keys', { token: ada, body: { label: 'private' } });
    const keyId = body.key.key_id;
    const grace = await api.idTokenFor('grace@example.org');
    const own = await api.call('GET', '/account', { token: grace });
    const adas = await api.call('GET', '/account', { token: ada });
    expect(own.body.account_id).not.toBe(adas.body.account_id);
    expect((await api.call('GET', '/account/keys', { token: grace })).body.keys).toEqual([]);
    for (const [method, path] of [
      ['POST', `/account/keys/${keyId}/rotate`],
      ['POST', `/account/keys/${keyId}/revoke`],
      ['GET', `/account/keys/${keyId}/requests`],
      ['GET', `/account/usage?key_id=${keyId}`],
    ] as const) {
      const answer = await api.call(method, path, { token: grace });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error.code).toBe('NOT_FOUND');
    }
    const usage = await api.call('GET', '/account/usage', { token: grace });
    expect(usage.body.keys).toEqual([]);
    const audit = await api.call('GET', '/account/audit', { token: grace });
    expect(audit.body.entries.map((e: { action: string }) => e.action)).toEqual(['account.created']);
    expect((await api.call('GET', '/account/keys', { token: ada })).body.keys.find((k: { key_id: string }) => k.key_id === keyId).revoked_at).toBeNull();
  });
});

describe('bad requests', () => {
  it('refuses a missing, garbage or API-key bearer with 401, and an ID token on the public API', async () => {
    for (const token of [null, 'not-a-jwt', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', api.keys.developer]) {
      const answer = await api.call('GET', '/account', { token });
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('UNAUTHORIZED');
    }
    const publicApi = await fetch(`${api.baseUrl}/grants-api?limit=1`, { headers: { Authorization: `Bearer ${ada}` } });
    expect(publicApi.status).toBe(401);
  });

  it('refuses tokens signed with the issuer key but expired, for another client or with an unverified e-mail', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await api.call('GET', '/account', { token: await api.forgedIdToken({}) })).status).toBe(200);
    for (const claims of [{ exp: now - 120, iat: now - 3600 }, { aud: 'another-client' }, { email_verified: false }, { iss: 'https://issuer.example.org' }]) {
      const answer = await api.call('GET', '/account', { token: await api.forgedIdToken(claims) });
      expect(answer.status, JSON.stringify(claims)).toBe(401);
      expect(answer.body.error.code).toBe('UNAUTHORIZED');
    }
  });

  it('names unknown fields and parameters, bad values and forged cursors with 400', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/account/keys', { label: 'x', tier: 'developer' }, 'tier'],
      ['POST', '/account/keys', {}, 'label'],
      ['POST', '/account/keys', '[1]', 'body'],
      ['POST', '/account/keys', { label: '   ' }, 'label'],
      ['POST', '/account/keys/key_missing/rotate', { grace_hours: 169 }, 'grace_hours'],
      ['POST', '/account/keys/key_missing/rotate', { grace_hours: 1.5 }, 'grace_hours'],
      ['POST', '/account/keys/key_missing/revoke', { now: true }, 'now'],
      ['GET', '/account/usage?granularity=week', undefined, 'granularity'],
      ['GET', '/account/usage?days=31', undefined, 'days'],
      ['GET', '/account/usage?day=3', undefined, 'day'],
      ['GET', '/account/audit?before=forged', undefined, 'before'],
      ['GET', '/account/audit?limit=0', undefined, 'limit'],
      ['GET', '/account?verbose=1', undefined, 'verbose'],
    ];
    for (const [method, path, body, field] of cases) {
      const answer = await api.call(method, path, { token: ada, body });
      expect(answer.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect(answer.body.error.code).toBe('INVALID_PARAMETER');
      expect(answer.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const { body } = await api.call('POST', '/account/keys', { token: ada, body: { label: 'logged' } });
    const forged = await api.call('GET', `/account/keys/${body.key.key_id}/requests?cursor=forged`, { token: ada });
    expect(forged.status).toBe(400);
    expect(forged.body.error.details[0].field).toBe('cursor');
  });

  it('answers a browser preflight without a token, allowing the Idempotency-Key header', async () => {
    const preflight = await fetch(`${api.baseUrl}/account/keys`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, idempotency-key' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
  });

  it('answers 404 for unknown paths and 405 for a path served with another method', async () => {
    expect((await api.call('GET', '/account/nothing', { token: ada })).status).toBe(404);
    const wrongMethod = await api.call('PATCH', '/account/keys', { token: ada });
    expect(wrongMethod.status).toBe(405);
  });
});

describe('the handler as API Gateway calls it on AWS', () => {
  it('routes a {proxy+} event by its proxy parameter, with the ID token checked the same way', async () => {
    const services = embeddedAccountServices(
      api.stack,
      localIdentityVerifier(() => api.provider),
    );
    const route = accountApiRoute(() => services);
    const event = {
      resource: '/v1/account/{proxy+}',
      path: '/v1/account/keys',
      httpMethod: 'GET',
      headers: { Authorization: `Bearer ${ada}` },
      multiValueHeaders: { Authorization: [`Bearer ${ada}`] },
      pathParameters: { proxy: 'keys' },
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { requestId: 'req-1' },
    } as unknown as ApiEvent;
    expect(accountRouteName(event)).toBe('GET /account/{proxy+}');
    const answer = await route(event);
    expect(answer.statusCode).toBe(200);
    const adaKeys = (await api.call('GET', '/account/keys', { token: ada })).body;
    expect(JSON.parse(answer.body)).toEqual(adaKeys);
    const noToken = await route({ ...event, headers: {}, multiValueHeaders: {} });
    expect(noToken.statusCode).toBe(401);
    expect(JSON.parse(noToken.body).error).toMatchObject({ code: 'UNAUTHORIZED', request_id: 'req-1' });
  });
});
