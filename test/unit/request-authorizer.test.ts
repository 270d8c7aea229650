import { randomBytes } from 'node:crypto';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { TIER_NAMES, type TierName } from '../../lambdas/core/auth/tiers';
import { createKey, revokeKey, setKeyTier } from '../../lambdas/core/use-cases/manage-keys';
import { requestAuthorizerHandler } from '../../lambdas/http/request-authorizer';
import { type ApiKeyRecord, KeyStateConflict, type KeyStore } from '../../lambdas/ports/key-store';
import type { TierUsageKeys } from '../../lambdas/ports/tier-usage-keys';

/** The AWS REQUEST authorizer on events as API Gateway sends them, with an in-memory key store. */

function memoryKeys(): KeyStore {
  const byId = new Map<string, ApiKeyRecord>();
  return {
    create: async (key) => {
      byId.set(key.key_id, { ...key });
    },
    findByHash: async (hash) => [...byId.values()].find((k) => k.current_hash === hash || k.previous_hash === hash) ?? null,
    get: async (id) => byId.get(id) ?? null,
    list: async () => [...byId.values()],
    listByAccount: async (accountId) => [...byId.values()].filter((k) => k.account_id === accountId),
    assignAccount: async () => {
      throw new Error('not used');
    },
    rotate: async () => {
      throw new Error('not used');
    },
    revoke: async (id, now) => {
      const key = byId.get(id)!;
      key.revoked_at = now;
      return key;
    },
    setTier: async (id, tier) => {
      const key = byId.get(id)!;
      if (key.revoked_at !== null) throw new KeyStateConflict(`key ${id} is revoked`);
      key.tier = tier;
      return key;
    },
    clearGatewayKey: async () => {
      throw new Error('not used');
    },
    claimIdempotencyKey: async () => {
      throw new Error('not used');
    },
  };
}

const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/functions/GET/v1/grants-api';
const event = (headers: Record<string, string>, multi?: Record<string, string[]>): APIGatewayRequestAuthorizerEvent => ({
  type: 'REQUEST',
  methodArn: METHOD_ARN,
  resource: '/v1/grants-api',
  path: '/v1/grants-api',
  httpMethod: 'GET',
  headers,
  multiValueHeaders: multi ?? Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
  pathParameters: null,
  queryStringParameters: null,
  multiValueQueryStringParameters: null,
  stageVariables: null,
  requestContext: {} as APIGatewayRequestAuthorizerEvent['requestContext'],
});

/** The tier keys as the authorizer reads them in AWS: one value per tier. */
const tierKeys: TierUsageKeys = { valueOf: async (tier) => `tier-key-value-of-${tier}` };

describe('the request authorizer', () => {
  it("allows a known key for the whole stage, passing key id and tier on, and its tier's gateway key", async () => {
    const keys = memoryKeys();
    const clock = { now: () => new Date('2026-11-22T10:00:00Z') };
    const { key, record } = await createKey(keys, { tier: 'pro', owner: 'acme', label: '' }, randomBytes, clock.now());
    const result = await requestAuthorizerHandler(() => ({ keys, clock, tierKeys }))(event({ authorization: `Bearer ${key}` }));
    expect(result).toEqual({
      principalId: record.key_id,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-west-1:123456789012:abc123/functions/*/*' }],
      },
      context: { keyId: record.key_id, tier: 'pro' },
      usageIdentifierKey: 'tier-key-value-of-pro',
    });
    expect(record).not.toHaveProperty('api_key_id'); // no gateway key per customer key
  });

  it('names the tier key of each tier, and of the new tier after a tier change', async () => {
    const keys = memoryKeys();
    const clock = { now: () => new Date('2026-11-22T10:00:00Z') };
    const authorize = requestAuthorizerHandler(() => ({ keys, clock, tierKeys }));
    for (const tier of TIER_NAMES) {
      const { key } = await createKey(keys, { tier, owner: 'acme', label: '' }, randomBytes, clock.now());
      expect((await authorize(event({ Authorization: `Bearer ${key}` }))).usageIdentifierKey, tier).toBe(`tier-key-value-of-${tier}`);
    }
    const { key, record } = await createKey(keys, { tier: 'basic', owner: 'acme', label: '' }, randomBytes, clock.now());
    await setKeyTier(keys, record.key_id, 'developer' satisfies TierName);
    const result = await authorize(event({ Authorization: `Bearer ${key}` }));
    expect(result.context).toEqual({ keyId: record.key_id, tier: 'developer' });
    expect(result.usageIdentifierKey).toBe('tier-key-value-of-developer');
  });

  it('names no gateway key without tier keys (the local server)', async () => {
    const keys = memoryKeys();
    const clock = { now: () => new Date('2026-11-22T10:00:00Z') };
    const { key } = await createKey(keys, { tier: 'pro', owner: 'acme', label: '' }, randomBytes, clock.now());
    expect(await requestAuthorizerHandler(() => ({ keys, clock }))(event({ Authorization: `Bearer ${key}` }))).not.toHaveProperty('usageIdentifierKey');
  });

  it('refuses a key whose tier change raced its revocation, in either order', async () => {
    const keys = memoryKeys();
    const clock = { now: () => new Date('2026-11-22T10:00:00Z') };
    const authorize = requestAuthorizerHandler(() => ({ keys, clock, tierKeys }));
    const first = await createKey(keys, { tier: 'basic', owner: 'acme', label: '' }, randomBytes, clock.now());
    await setKeyTier(keys, first.record.key_id, 'pro');
    await revokeKey(keys, first.record.key_id, clock.now());
    const second = await createKey(keys, { tier: 'basic', owner: 'acme', label: '' }, randomBytes, clock.now());
    await revokeKey(keys, second.record.key_id, clock.now());
    await expect(setKeyTier(keys, second.record.key_id, 'pro')).rejects.toThrow(KeyStateConflict);
    for (const { key } of [first, second]) await expect(authorize(event({ Authorization: `Bearer ${key}` }))).rejects.toThrow(/^Unauthorized$/);
  });

  it('answers "Unauthorized" (API Gateway\'s 401) for missing, doubled, malformed, unknown and revoked keys', async () => {
    const keys = memoryKeys();
    const clock = { now: () => new Date('2026-11-22T10:00:00Z') };
    const { key, record } = await createKey(keys, { tier: 'developer', owner: 'acme', label: '' }, randomBytes, clock.now());
    const authorize = requestAuthorizerHandler(() => ({ keys, clock }));
    const refused = [
      event({}),
      event({ Authorization: `Basic ${key}` }),
      event({ Authorization: `Bearer ${key}` }, { Authorization: [`Bearer ${key}`, `Bearer ${key}`] }),
      event({ Authorization: `Bearer gcf_live_${'B'.repeat(32)}` }),
    ];
    for (const e of refused) await expect(authorize(e)).rejects.toThrow(/^Unauthorized$/);
    await revokeKey(keys, record.key_id, clock.now());
    await expect(authorize(event({ Authorization: `Bearer ${key}` }))).rejects.toThrow(/^Unauthorized$/);
  });

  it('never writes a key to the logs, refused or allowed', async () => {
    const keys = memoryKeys();
    const clock = { now: () => new Date('2026-11-22T10:00:00Z') };
    const { key } = await createKey(keys, { tier: 'basic', owner: 'acme', label: '' }, randomBytes, clock.now());
    const authorize = requestAuthorizerHandler(() => ({ keys, clock }));
    const written: string[] = [];
    const capture = (chunk: unknown) => {
      written.push(String(chunk));
      return true;
    };
    const [stdout, stderr] = [process.stdout.write, process.stderr.write];
    process.stdout.write = capture as typeof process.stdout.write;
    process.stderr.write = capture as typeof process.stderr.write;
    try {
      await authorize(event({ Authorization: `Bearer ${key}` }));
      await authorize(event({ Authorization: `Bearer ${key.slice(0, -1)}X` })).catch(() => {});
      await authorize(event({ Authorization: `Basic ${key}` })).catch(() => {});
    } finally {
      process.stdout.write = stdout;
      process.stderr.write = stderr;
    }
    expect(written.join('')).toContain('refused a request'); // the refusals were logged...
    expect(written.join('')).not.toContain(key.slice('gcf_live_'.length, -1)); // ...without the key
  });
});
