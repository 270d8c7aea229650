import { randomBytes } from 'node:crypto';
import { DeleteApiKeyCommand, NotFoundException } from '@aws-sdk/client-api-gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiGatewayLegacyKeys } from '../../lambdas/adapters/aws/api-gateway-legacy-keys';
import { generateApiKey, generateKeyId, hashApiKey, shownPrefixOf } from '../../lambdas/core/auth/api-keys';
import { createKey, revokeKey, setKeyTier } from '../../lambdas/core/use-cases/manage-keys';
import { migrateGatewayKeys } from '../../lambdas/core/use-cases/migrate-gateway-keys';
import { type ApiKeyRecord, KeyStateConflict, type KeyStore } from '../../lambdas/ports/key-store';
import { type EmbeddedStack, startEmbeddedStack } from '../../local/embedded-stack';

/**
 * The move off per-customer gateway keys, on the embedded stack's key store (DynamoKeyStore on
 * dynalite), with a fake API Gateway client standing in for DeleteApiKey.
 */

/** Answers DeleteApiKey as API Gateway does: NotFoundException for a key it does not hold; can fail once on demand. */
function fakeApiGateway(held: string[]) {
  const keys = new Set(held);
  const deleted: string[] = [];
  let calls = 0;
  let failingCall = 0;
  return {
    keys,
    deleted,
    /** The nth call from now fails (a throttle, a lost connection). */
    failCall: (n: number) => {
      failingCall = calls + n;
    },
    client: {
      send: async (command: unknown) => {
        if (!(command instanceof DeleteApiKeyCommand)) throw new Error('the migration only deletes keys');
        if (++calls === failingCall) throw new Error('throttled');
        const id = command.input.apiKey!;
        if (!keys.delete(id)) throw new NotFoundException({ message: 'Invalid API Key identifier specified', $metadata: {} });
        deleted.push(id);
        return {};
      },
    } as unknown as ConstructorParameters<typeof ApiGatewayLegacyKeys>[0],
  };
}

/** A key record as earlier versions wrote it: with its own gateway key's id and value. */
async function legacyKey(keys: KeyStore, apiKeyId: string): Promise<string> {
  const key = generateApiKey(randomBytes);
  const record: ApiKeyRecord = {
    key_id: generateKeyId(randomBytes),
    prefix: shownPrefixOf(key),
    tier: 'basic',
    owner: 'acme',
    label: 'legacy',
    created_at: new Date().toISOString(),
    revoked_at: null,
    current_hash: hashApiKey(key),
    previous_hash: null,
    previous_valid_until: null,
    rotated_at: null,
    usage_key: `gcfu_${apiKeyId}`,
    api_key_id: apiKeyId,
  };
  await keys.create(record);
  return record.key_id;
}

let stack: EmbeddedStack;
beforeAll(async () => {
  stack = await startEmbeddedStack({ seed: false });
});
afterAll(() => stack?.close());

describe('keys migrate-gateway-keys', () => {
  it('deletes each per-customer gateway key and clears it from its record; resumes after a failure; a second run does nothing', async () => {
    const { keys } = stack.services;
    const ids = [await legacyKey(keys, 'ak1'), await legacyKey(keys, 'ak2'), await legacyKey(keys, 'ak3')];
    const tierKey = 'tier-key-basic'; // a key no record names is never touched
    const gateway = fakeApiGateway(['ak1', 'ak2', 'ak3', tierKey]);
    const legacy = new ApiGatewayLegacyKeys(gateway.client);

    const planned = await migrateGatewayKeys(keys, legacy, { dryRun: true });
    expect(planned.map((m) => m.gateway_key)).toEqual(['planned', 'planned', 'planned']);
    expect(gateway.deleted).toEqual([]);
    expect((await keys.get(ids[0]!))!.api_key_id).toBe('ak1');

    // A run that stops at the second key: the first is done, the rest untouched.
    gateway.keys.delete('ak3'); // deleted by hand meanwhile
    gateway.failCall(2);
    await expect(migrateGatewayKeys(keys, legacy, { dryRun: false })).rejects.toThrow('throttled');
    expect(gateway.deleted).toHaveLength(1);
    const first = gateway.deleted[0]!;

    const resumed = await migrateGatewayKeys(keys, legacy, { dryRun: false });
    expect(resumed.map((m) => m.api_key_id).sort()).toEqual(['ak1', 'ak2', 'ak3'].filter((id) => id !== first));
    expect(resumed.find((m) => m.api_key_id === 'ak3')!.gateway_key).toBe('absent');
    expect([...gateway.keys]).toEqual([tierKey]);
    for (const id of ids) {
      const record = (await keys.get(id))!;
      expect(record.api_key_id ?? null, id).toBeNull();
      expect(record.usage_key ?? null, id).toBeNull();
    }
    expect(await migrateGatewayKeys(keys, legacy, { dryRun: false })).toEqual([]);
  });

  it('a record whose gateway key is gone is cleared with "absent"', async () => {
    const { keys } = stack.services;
    const id = await legacyKey(keys, 'ak-gone');
    const migrated = await migrateGatewayKeys(keys, new ApiGatewayLegacyKeys(fakeApiGateway([]).client), { dryRun: false });
    expect(migrated).toEqual([{ key_id: id, api_key_id: 'ak-gone', gateway_key: 'absent' }]);
  });
});

describe('a tier change racing a revocation (DynamoDB conditional writes)', () => {
  it('leaves the key revoked whichever lands first; a tier change after a revocation is refused', async () => {
    const { keys } = stack.services;
    for (let round = 0; round < 10; round++) {
      const { record } = await createKey(keys, { tier: 'basic', owner: 'acme', label: 'race' }, randomBytes, new Date());
      const [tierChange, revocation] = await Promise.allSettled([setKeyTier(keys, record.key_id, 'developer'), revokeKey(keys, record.key_id, new Date())]);
      expect(revocation.status).toBe('fulfilled');
      if (tierChange.status === 'rejected') expect(tierChange.reason).toBeInstanceOf(KeyStateConflict);
      expect((await keys.get(record.key_id))!.revoked_at).not.toBeNull();
      expect(await keys.findByHash(record.current_hash)).toMatchObject({ revoked_at: expect.any(String) });
    }
    const { record } = await createKey(keys, { tier: 'basic', owner: 'acme', label: 'late' }, randomBytes, new Date());
    await revokeKey(keys, record.key_id, new Date());
    await expect(setKeyTier(keys, record.key_id, 'developer')).rejects.toThrow(/is revoked/);
    expect((await keys.get(record.key_id))!.tier).toBe('basic');
  });
});
