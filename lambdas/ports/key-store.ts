import type { TierName } from '../core/auth/tiers';

/** A customer's API key as stored: never the key itself, only its SHA-256. */
export interface ApiKeyRecord {
  key_id: string;
  /** The key's first characters, for lists ("gcf_live_AbCd"). */
  prefix: string;
  tier: TierName;
  owner: string;
  /** The account the key belongs to; absent on keys made before accounts (`accounts migrate` sets it). */
  account_id?: string;
  label: string;
  created_at: string;
  revoked_at: string | null;
  /** SHA-256 (hex) of the current key. */
  current_hash: string;
  /** SHA-256 of the key it replaced at the last rotation, accepted until previous_valid_until. */
  previous_hash: string | null;
  previous_valid_until: string | null;
  rotated_at: string | null;
  /**
   * Left by earlier versions, which made an API Gateway key per customer key: its value and id.
   * New keys have neither (the authorizer names the tier's key); `keys migrate-gateway-keys` clears them.
   */
  usage_key?: string | null;
  api_key_id?: string | null;
}

export class KeyStateConflict extends Error {}

/** An idempotency key's claim: the key a create made (or is making) under it, and what was asked. */
export interface IdempotencyClaim {
  key_id: string;
  /** The request the claim was made for (tier, owner, label): a retry must ask the same. */
  fingerprint: string;
  /** ISO time the claim lapses (24 h after it was made); DynamoDB's TTL removes it after. */
  expires_at: string;
}

/** API keys (DynamoDB in AWS; the same adapter against dynalite locally). */
export interface KeyStore {
  create(key: ApiKeyRecord): Promise<void>;
  /** The key a hash belongs to, current or previous; null when no key has it. */
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  get(keyId: string): Promise<ApiKeyRecord | null>;
  list(): Promise<ApiKeyRecord[]>;
  /** The account's keys (revoked ones too), oldest first, without reading any other account's. */
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /**
   * Puts a key made before accounts into an account (idempotent). KeyStateConflict when there is
   * no such key or it belongs to another account already.
   */
  assignAccount(keyId: string, accountId: string): Promise<ApiKeyRecord>;
  /**
   * Replaces the current hash if it is still `expectedCurrentHash` and the key is not revoked;
   * the old hash stays valid until `graceUntil`. Throws KeyStateConflict when the key changed
   * meanwhile (a concurrent rotation or revocation), leaving it as that change left it.
   */
  rotate(keyId: string, expectedCurrentHash: string, next: { hash: string; prefix: string }, graceUntil: string, now: string): Promise<ApiKeyRecord>;
  /** Marks the key revoked (idempotent): both its hashes stop working. */
  revoke(keyId: string, now: string): Promise<ApiKeyRecord>;
  /** Moves a key to another tier; KeyStateConflict when it is revoked (a racing revocation wins). */
  setTier(keyId: string, tier: TierName): Promise<ApiKeyRecord>;
  /** Removes a legacy per-customer gateway key's id and value from the record (idempotent). */
  clearGatewayKey(keyId: string): Promise<ApiKeyRecord>;
  /**
   * Claims an idempotency key (by its hash) with a conditional write: null when this claim now
   * holds it, else the live claim an earlier create holds. A lapsed claim is replaced.
   */
  claimIdempotencyKey(hash: string, claim: IdempotencyClaim, now: string): Promise<IdempotencyClaim | null>;
}
