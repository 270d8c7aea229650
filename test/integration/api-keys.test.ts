import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIER_NAMES, TIERS } from '../../lambdas/core/auth/tiers';
import { createKey, revokeKey, rotateKey, setKeyTier } from '../../lambdas/core/use-cases/manage-keys';
import { KeyStateConflict } from '../../lambdas/ports/key-store';
import { localAuthorizer, localRoutes } from '../../local/api-routes';
import { startEmbeddedStack } from '../../local/embedded-stack';
import { createApiServer, listen } from '../../local/http-server';
import { runAdmin } from '../support/admin-cli';
import { startTestApi, type TestApi } from '../support/api-server';
import { movableClock } from '../support/movable-clock';
import { conformingFetch } from '../support/openapi-conformance';
import { rawRequest } from '../support/raw-http';

/**
 * Authentication, tiers, quotas and rate-limit headers over real HTTP, against the embedded
 * stack with the authorizer the local server runs before each data route.
 */

const SMALL = { funders: 10, grants: 40, contracts: 15, awardedGrants: 4, awardedContracts: 2 };
const DATA_ROUTES = ['/grants-api', '/contracts-api', '/funders-api', '/grants-api/{grant}', '/contracts-api/{contract}', '/funders-api/{funder}'];

describe('authentication and tiers on every endpoint', () => {
  let api: TestApi;
  const paths: string[] = [];
  beforeAll(async () => {
    api = await startTestApi({ seed: SMALL });
    const ids = {
      grant: (await api.get('/grants-api?limit=1')).body.results[0].id,
      contract: (await api.get('/contracts-api?limit=1')).body.results[0].id,
      funder: (await api.get('/funders-api?limit=1')).body.results[0].id,
    };
    for (const route of DATA_ROUTES) paths.push(route.replace(/\{(\w+)\}/, (_m, kind: keyof typeof ids) => ids[kind]));
  });
  afterAll(() => api?.close());

  it('401 UNAUTHORIZED without a usable key, on every data route, never a 5xx', async () => {
    const refused: Array<[string, Record<string, string>]> = [
      ['no header', {}],
      ['Bearer and no key', { Authorization: 'Bearer' }],
      ['Bearer and spaces', { Authorization: 'Bearer   ' }],
      ['Basic scheme', { Authorization: `Basic ${Buffer.from(`user:${api.keys.developer}`).toString('base64')}` }],
      ['key without scheme', { Authorization: api.keys.developer }],
      ['odd characters', { Authorization: 'Bearer gcf_live_%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%%' }],
      ['overlong key', { Authorization: `Bearer ${api.keys.developer}${'x'.repeat(5000)}` }],
      ['unknown well-formed key', { Authorization: `Bearer gcf_live_${'A'.repeat(32)}` }],
      ['two spaces', { Authorization: `Bearer  ${api.keys.developer}` }],
    ];
    for (const path of paths) {
      for (const [name, headers] of refused) {
        const { status, body } = await api.get(path, { key: null, headers });
        expect(status, `${name} ${path}`).toBe(401);
        expect(body.error.code, `${name} ${path}`).toBe('UNAUTHORIZED');
        expect(JSON.stringify(body), name).not.toContain(api.keys.developer);
      }
    }
  });

  it('401 when the Authorization header is sent twice, even with two good keys', async () => {
    const { status, body } = await rawRequest(api.baseUrl, '/grants-api', [
      `Authorization: Bearer ${api.keys.developer}`,
      `Authorization: Bearer ${api.keys.pro}`,
    ]);
    expect(status).toBe(401);
    expect(JSON.parse(body).error.message).toMatch(/exactly one Authorization header/);
  });

  it('the scheme is case-insensitive', async () => {
    expect((await api.get('/grants-api?limit=1', { key: null, headers: { Authorization: `bearer ${api.keys.developer}` } })).status).toBe(200);
  });

  it('403 FORBIDDEN for the free tier, with its rate-limit headers', async () => {
    for (const path of paths) {
      const { status, body, headers } = await api.get(path, { key: api.keys.free });
      expect(status, path).toBe(403);
      expect(body.error.code).toBe('FORBIDDEN');
      expect(headers.get('x-ratelimit-limit')).toBe('0');
      expect(headers.get('x-ratelimit-remaining')).toBe('0');
    }
  });

  it('basic and pro count down their daily quota; developer is unlimited (-1)', async () => {
    const basic = await api.get('/grants-api?limit=1', { key: api.keys.basic });
    expect(basic.status).toBe(200);
    expect(basic.headers.get('x-ratelimit-limit')).toBe('1000');
    const remaining = Number(basic.headers.get('x-ratelimit-remaining'));
    const next = await api.get(paths[3]!, { key: api.keys.basic });
    expect(Number(next.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
    const pro = await api.get('/funders-api?limit=1', { key: api.keys.pro });
    expect(pro.headers.get('x-ratelimit-limit')).toBe('10000');
    const developer = await api.get('/contracts-api?limit=1');
    expect([developer.headers.get('x-ratelimit-limit'), developer.headers.get('x-ratelimit-remaining')]).toEqual(['-1', '-1']);
  });

  it('rate-limit headers also ride on 4xx answers to an authenticated key', async () => {
    const invalid = await api.get('/grants-api?limit=1000', { key: api.keys.basic });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('x-ratelimit-limit')).toBe('1000');
    const missing = await api.get('/grants-api/00000000-0000-4000-8000-000000000000', { key: api.keys.pro });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  });

  it('the OpenAPI document stays public', async () => {
    expect((await api.get('/openapi.json', { key: null })).status).toBe(200);
  });
});

describe('daily quota', () => {
  let api: TestApi;
  const clock = movableClock('2026-11-22T23:59:00Z');
  beforeAll(async () => {
    api = await startTestApi({ seed: SMALL, clock });
    // The quota alone: the clock stands still, so the tier's request rate (test/integration/rate-limits.test.ts) is lifted here.
    api.stack.services.tiers = { ...TIERS, basic: { ...TIERS.basic, throttle: null } };
  });
  afterAll(() => api?.close());

  it('is exact under concurrency: 200 requests at once against a quota of 50 give 50 successes', async () => {
    const { record } = await createKey(api.stack.services.keys, { tier: 'basic', owner: 'test', label: 'concurrency' }, randomBytes, clock.now());
    const outcomes = await Promise.all(Array.from({ length: 200 }, () => api.stack.services.meter.consume(record.key_id, '2026-11-22', 50, clock.now())));
    expect(outcomes.filter((o) => o.allowed)).toHaveLength(50);
    expect(outcomes.filter((o) => !o.allowed)).toHaveLength(150);
    expect(new Set(outcomes.filter((o) => o.allowed).map((o) => o.used))).toEqual(new Set(Array.from({ length: 50 }, (_, i) => i + 1)));
  });

  it("over HTTP: with 50 of a basic key's 1,000 requests left, 200 concurrent requests give exactly 50 200s and 150 429s", async () => {
    const { key } = await createKey(api.stack.services.keys, { tier: 'basic', owner: 'test', label: 'http' }, randomBytes, clock.now());
    let lowest = 1000;
    for (let wave = 0; wave < 19; wave++) {
      const responses = await Promise.all(Array.from({ length: 50 }, () => api.get('/funders-api?limit=1&count_only=true', { key })));
      expect(responses.every((r) => r.status === 200)).toBe(true);
      lowest = Math.min(lowest, ...responses.map((r) => Number(r.headers.get('x-ratelimit-remaining'))));
    }
    expect(lowest).toBe(50);
    const statuses = (await Promise.all(Array.from({ length: 200 }, () => api.get('/funders-api?limit=1&count_only=true', { key })))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.filter((s) => s === 429)).toHaveLength(150);

    const refused = await api.get('/funders-api?limit=1', { key });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toBe('60'); // 23:59:00 -> 00:00:00 UTC
    expect([refused.headers.get('x-ratelimit-limit'), refused.headers.get('x-ratelimit-remaining')]).toEqual(['1000', '0']);

    clock.set('2026-11-23T00:00:01Z');
    const nextDay = await api.get('/funders-api?limit=1', { key });
    expect(nextDay.status).toBe(200);
    expect(nextDay.headers.get('x-ratelimit-remaining')).toBe('999');
  });
});

describe('rotation and revocation', () => {
  let api: TestApi;
  const clock = movableClock('2026-11-22T10:00:00Z');
  beforeAll(async () => {
    api = await startTestApi({ seed: SMALL, clock });
  });
  afterAll(() => api?.close());

  it('a rotated key works alongside the new one for the grace period, then gets 401', async () => {
    const { keys } = api.stack.services;
    const original = await createKey(keys, { tier: 'pro', owner: 'acme', label: 'rotating' }, randomBytes, clock.now());
    const rotated = await rotateKey(keys, original.record.key_id, 1, randomBytes, clock.now());
    expect(rotated.key).not.toBe(original.key);
    expect((await api.get('/grants-api?limit=1', { key: original.key })).status).toBe(200);
    expect((await api.get('/grants-api?limit=1', { key: rotated.key })).status).toBe(200);
    clock.set('2026-11-22T11:00:01Z');
    const old = await api.get('/grants-api?limit=1', { key: original.key });
    expect(old.status).toBe(401);
    expect(old.body.error.message).toMatch(/rotated/);
    expect((await api.get('/grants-api?limit=1', { key: rotated.key })).status).toBe(200);
  });

  it('revocation is immediate, for the current and the rotated-out key', async () => {
    const { keys } = api.stack.services;
    const original = await createKey(keys, { tier: 'developer', owner: 'acme', label: 'revoked' }, randomBytes, clock.now());
    const rotated = await rotateKey(keys, original.record.key_id, 24, randomBytes, clock.now());
    await revokeKey(keys, original.record.key_id, clock.now());
    for (const key of [original.key, rotated.key]) {
      const { status, body } = await api.get('/funders-api?limit=1', { key });
      expect(status).toBe(401);
      expect(body.error.message).toMatch(/revoked/);
    }
    await expect(rotateKey(keys, original.record.key_id, 24, randomBytes, clock.now())).rejects.toThrow(KeyStateConflict);
  });

  it('a tier change applies to the next request', async () => {
    const { keys } = api.stack.services;
    const { key, record } = await createKey(keys, { tier: 'free', owner: 'acme', label: 'upgrade' }, randomBytes, clock.now());
    expect((await api.get('/grants-api?limit=1', { key })).status).toBe(403);
    await setKeyTier(keys, record.key_id, 'basic');
    expect((await api.get('/grants-api?limit=1', { key })).status).toBe(200);
  });

  it('a downgrade applies to the next request too (pro to free: 403)', async () => {
    const { keys } = api.stack.services;
    const { key, record } = await createKey(keys, { tier: 'pro', owner: 'acme', label: 'downgrade' }, randomBytes, clock.now());
    expect((await api.get('/grants-api?limit=1', { key })).status).toBe(200);
    await setKeyTier(keys, record.key_id, 'free');
    expect((await api.get('/grants-api?limit=1', { key })).status).toBe(403);
  });

  it('a tier change racing a revocation: the revocation wins, the key answers 401', async () => {
    const { keys } = api.stack.services;
    const { key, record } = await createKey(keys, { tier: 'basic', owner: 'acme', label: 'race-tier' }, randomBytes, clock.now());
    const [tierChange] = await Promise.allSettled([setKeyTier(keys, record.key_id, 'developer'), revokeKey(keys, record.key_id, clock.now())]);
    if (tierChange.status === 'rejected') expect(tierChange.reason).toBeInstanceOf(KeyStateConflict);
    expect((await api.get('/grants-api?limit=1', { key })).status).toBe(401);
    await expect(setKeyTier(keys, record.key_id, 'pro')).rejects.toThrow(KeyStateConflict);
  });

  it('concurrent rotations and a revocation leave the key revoked, with at most one rotation applied', async () => {
    const { keys } = api.stack.services;
    const { key, record } = await createKey(keys, { tier: 'pro', owner: 'acme', label: 'race' }, randomBytes, clock.now());
    const revocation = revokeKey(keys, record.key_id, clock.now());
    const rotations = await Promise.allSettled(Array.from({ length: 5 }, () => rotateKey(keys, record.key_id, 24, randomBytes, clock.now())));
    await revocation;
    expect(rotations.filter((r) => r.status === 'fulfilled').length).toBeLessThanOrEqual(1);
    for (const r of rotations) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(KeyStateConflict);
    const final = await keys.get(record.key_id);
    expect(final?.revoked_at).not.toBeNull();
    const issued = [key, ...rotations.flatMap((r) => (r.status === 'fulfilled' ? [r.value.key] : []))];
    for (const candidate of issued) expect((await api.get('/grants-api?limit=1', { key: candidate })).status).toBe(401);
  });
});

describe('usage figures', () => {
  it('counts requests, errors and response times per key per day', async () => {
    const api = await startTestApi({ seed: SMALL });
    try {
      const { key, record } = await createKey(api.stack.services.keys, { tier: 'pro', owner: 'acme', label: 'usage' }, randomBytes, new Date());
      for (let i = 0; i < 8; i++) await api.get('/grants-api?limit=2', { key });
      for (let i = 0; i < 2; i++) await api.get('/grants-api?limit=500', { key });
      const [today] = await api.stack.services.meter.history(record.key_id, 7);
      expect(today).toMatchObject({ requests: 10, responses: 10, errors: 2 });
      expect(today!.p50Ms).toBeGreaterThan(0);
      expect(today!.p95Ms).toBeGreaterThanOrEqual(today!.p50Ms!);
      expect(today!.lastUsedAt).not.toBeNull();
      expect(TIER_NAMES).toContain(record.tier);
      // Unlimited keys are counted too (in batches: nothing to refuse, so no write per request).
      const developer = await createKey(api.stack.services.keys, { tier: 'developer', owner: 'acme', label: 'usage' }, randomBytes, new Date());
      for (let i = 0; i < 6; i++) await api.get('/funders-api?limit=1', { key: developer.key });
      expect((await api.stack.services.meter.history(developer.record.key_id, 1))[0]).toMatchObject({ requests: 6, responses: 6, errors: 0 });
    } finally {
      await api.close();
    }
  });
});

describe('admin keys (the CLI)', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'gcf-keys-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const admin = (...args: string[]) => runAdmin(['keys', ...args, '--data-dir', dataDir]);

  it('create, set-tier, rotate, usage, revoke and list, end to end', async () => {
    const created = await admin('create', '--tier', 'basic', '--owner', 'acme@example.org', '--label', 'prod');
    expect(created.code).toBe(0);
    const keyId = /^key id (key_\w+) \(basic, owner acme@example.org\)$/m.exec(created.stdout)![1]!;
    const key = /^key {4}(gcf_live_\w{32})$/m.exec(created.stdout)![1]!;
    expect(created.stderr).toContain('shown this once');

    expect((await admin('set-tier', keyId, 'pro')).stdout).toContain(`key id ${keyId} is now pro`);
    for (const hours of ['1e20', '721', '-1', 'Infinity', 'two']) {
      const refused = await admin('rotate', keyId, '--grace-hours', hours);
      expect([refused.code, refused.stderr.trim()], hours).toEqual([
        2,
        expect.stringContaining(`option '--grace-hours <hours>' argument '${hours}' is invalid. must be a number of hours from 0 to 720`),
      ]);
    }
    const rotated = await admin('rotate', keyId, '--grace-hours', '2');
    const newKey = /^key {4}(gcf_live_\w{32})$/m.exec(rotated.stdout)![1]!;
    expect(newKey).not.toBe(key);
    expect(rotated.stdout).toMatch(/the old one works until \d{4}-\d{2}-\d{2}T/);

    // Use both keys against the same state, as the server would.
    const stack = await startEmbeddedStack({ dataDir, seed: SMALL });
    const server = createApiServer(localRoutes(stack.services), localAuthorizer(stack.services));
    const baseUrl = await listen(server, 0);
    try {
      for (const k of [key, newKey, newKey])
        expect((await conformingFetch(`${baseUrl}/grants-api?limit=1`, { headers: { Authorization: `Bearer ${k}` } })).status).toBe(200);
      expect((await conformingFetch(`${baseUrl}/grants-api?limit=999`, { headers: { Authorization: `Bearer ${newKey}` } })).status).toBe(400);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stack.close();
    }

    const usage = await admin('usage', keyId);
    expect(usage.stdout).toContain(`key id ${keyId} (pro, daily quota 10000)`);
    expect(usage.stdout).toMatch(/^\d{4}-\d{2}-\d{2}\t4\t1\t25\.0%\t[\d.]+\t[\d.]+$/m);

    const listed = await admin('list');
    const row = listed.stdout.split('\n').find((line) => line.startsWith(keyId))!;
    expect(row).toContain(`${newKey.slice(0, 13)}…`);
    expect(row).toMatch(/\tpro\tacme@example\.org\tprod\t/);
    expect(row).toMatch(/rotated; old key valid until/);
    expect(listed.stdout).not.toContain(newKey);

    expect((await admin('revoke', keyId)).stdout).toMatch(new RegExp(`key id ${keyId} revoked \\d{4}-`));
    expect((await admin('list')).stdout.split('\n').find((line) => line.startsWith(keyId))).toMatch(/\trevoked /);
  });

  it('refuses an unknown tier as a usage error (exit 2) and unknown keys with one clear line and exit 1', async () => {
    const tier = await admin('create', '--tier', 'platinum', '--owner', 'x');
    expect(tier.code).toBe(2);
    expect(tier.stderr).toMatch(/unknown tier; use one of: free, basic, pro, developer/);
    const unknown = await admin('revoke', 'key_doesnotexist0000');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^admin: no key key_doesnotexist0000$/m);
    const rotation = await admin('rotate', 'key_doesnotexist0000');
    expect(rotation.code).toBe(1);
    expect(rotation.stderr).toMatch(/^admin: no key key_doesnotexist0000$/m);
  });
});
