import type { TierName } from '../../core/auth/tiers';
import type { ApiKeyRecord, IdempotencyClaim, KeyStore } from '../../ports/key-store';

/**
 * The local counterpart of API Gateway's authorizer cache: lookups by hash are remembered for a
 * while, so a request costs no store read. Unlike the gateway's cache it forgets a key the moment
 * it is rotated, revoked or re-tiered through this store, and the local state folder admits one
 * process at a time, so local changes still take effect at once.
 */
export class CachedKeyStore implements KeyStore {
  private readonly byHash = new Map<string, { key: ApiKeyRecord | null; until: number }>();

  constructor(
    private readonly store: KeyStore,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async findByHash(hash: string): Promise<ApiKeyRecord | null> {
    const cached = this.byHash.get(hash);
    if (cached && cached.until > this.now()) return cached.key;
    const key = await this.store.findByHash(hash);
    // Unknown hashes are not remembered: a flood of made-up keys must not grow the cache.
    if (key) this.byHash.set(hash, { key, until: this.now() + this.ttlMs });
    return key;
  }

  private forget(keyId: string): void {
    for (const [hash, entry] of this.byHash) if (entry.key?.key_id === keyId) this.byHash.delete(hash);
  }

  create(key: ApiKeyRecord): Promise<void> {
    return this.store.create(key);
  }

  get(keyId: string): Promise<ApiKeyRecord | null> {
    return this.store.get(keyId);
  }

  claimIdempotencyKey(hash: string, claim: IdempotencyClaim, now: string): Promise<IdempotencyClaim | null> {
    return this.store.claimIdempotencyKey(hash, claim, now);
  }

  list(): Promise<ApiKeyRecord[]> {
    return this.store.list();
  }

  listByAccount(accountId: string): Promise<ApiKeyRecord[]> {
    return this.store.listByAccount(accountId);
  }

  assignAccount(keyId: string, accountId: string): Promise<ApiKeyRecord> {
    return this.changing(keyId, () => this.store.assignAccount(keyId, accountId));
  }

  rotate(keyId: string, expectedCurrentHash: string, next: { hash: string; prefix: string }, graceUntil: string, now: string): Promise<ApiKeyRecord> {
    return this.changing(keyId, () => this.store.rotate(keyId, expectedCurrentHash, next, graceUntil, now));
  }

  revoke(keyId: string, now: string): Promise<ApiKeyRecord> {
    return this.changing(keyId, () => this.store.revoke(keyId, now));
  }

  setTier(keyId: string, tier: TierName): Promise<ApiKeyRecord> {
    return this.changing(keyId, () => this.store.setTier(keyId, tier));
  }

  clearGatewayKey(keyId: string): Promise<ApiKeyRecord> {
    return this.changing(keyId, () => this.store.clearGatewayKey(keyId));
  }

  /** A change to a key: forgotten before (no stale answer meanwhile) and after (no answer cached meanwhile). */
  private async changing(keyId: string, change: () => Promise<ApiKeyRecord>): Promise<ApiKeyRecord> {
    this.forget(keyId);
    try {
      return await change();
    } finally {
      this.forget(keyId);
    }
  }
}
