import { describe, expect, it } from 'vitest';
import { CachedKeyStore } from '../../lambdas/adapters/embedded/cached-key-store';
import type { ApiKeyRecord, KeyStore } from '../../lambdas/ports/key-store';

const record = (overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  key_id: 'key_1',
  prefix: 'gcf_live_abcd',
  tier: 'pro',
  owner: 'o',
  label: '',
  created_at: '2026-11-22T00:00:00Z',
  revoked_at: null,
  current_hash: 'h1',
  previous_hash: null,
  previous_valid_until: null,
  rotated_at: null,
  ...overrides,
});

/** A store that counts lookups and can be changed behind the cache's back. */
function countingStore() {
  let current = record();
  const calls = { findByHash: 0 };
  const store: KeyStore = {
    create: async () => {},
    findByHash: async (hash) => {
      calls.findByHash++;
      return hash === current.current_hash || hash === current.previous_hash ? current : null;
    },
    get: async () => current,
    list: async () => [current],
    listByAccount: async () => [current],
    assignAccount: async (_id, accountId) => (current = { ...current, account_id: accountId }),
    rotate: async (_id, _expected, next) => (current = { ...current, previous_hash: current.current_hash, current_hash: next.hash }),
    revoke: async (_id, now) => (current = { ...current, revoked_at: now }),
    setTier: async (_id, tier) => (current = { ...current, tier }),
    clearGatewayKey: async () => current,
    claimIdempotencyKey: async () => null,
  };
  return { store, calls };
}

describe('CachedKeyStore', () => {
  it('answers repeated lookups from memory until the TTL passes', async () => {
    const { store, calls } = countingStore();
    let now = 0;
    const cached = new CachedKeyStore(store, 60_000, () => now);
    for (let i = 0; i < 5; i++) expect((await cached.findByHash('h1'))?.key_id).toBe('key_1');
    expect(calls.findByHash).toBe(1);
    now = 60_001;
    await cached.findByHash('h1');
    expect(calls.findByHash).toBe(2);
  });

  it('forgets a key the moment it is revoked, rotated or re-tiered through it', async () => {
    const { store } = countingStore();
    const cached = new CachedKeyStore(store, 60_000, () => 0);
    await cached.findByHash('h1');
    await cached.setTier('key_1', 'basic');
    expect((await cached.findByHash('h1'))?.tier).toBe('basic');
    await cached.revoke('key_1', '2026-11-22T01:00:00Z');
    expect((await cached.findByHash('h1'))?.revoked_at).toBe('2026-11-22T01:00:00Z');
  });

  it('does not remember unknown hashes', async () => {
    const { store, calls } = countingStore();
    const cached = new CachedKeyStore(store, 60_000, () => 0);
    await cached.findByHash('nope');
    await cached.findByHash('nope');
    expect(calls.findByHash).toBe(2);
  });
});
