import { type ApiKeyRecord, KeyStateConflict, type KeyStore } from '../../ports/key-store';
import type { DailyUsage, UsageMeter } from '../../ports/usage-meter';
import { generateApiKey, generateKeyId, hashApiKey, type RandomBytes, shownPrefixOf } from '../auth/api-keys';
import type { TierName } from '../auth/tiers';

/**
 * The key lifecycle the admin CLI drives: create (the key is shown once, only its hash is kept),
 * rotate (a new key, the old one honoured for a grace period), revoke, change tier, and usage.
 */

export const DEFAULT_ROTATION_GRACE_HOURS = 24;
/** The longest an old key keeps working after a rotation: 30 days, as for a webhook secret. */
export const MAX_ROTATION_GRACE_HOURS = 720;

export interface IssuedKey {
  /** The key itself: shown once, never stored. */
  key: string;
  record: ApiKeyRecord;
}

/**
 * A key is only its record: in AWS the authorizer names the tier's shared gateway key, so no
 * gateway key is made per customer key (API Gateway allows 10,000 per account and Region).
 */
/** What a key is made for; `account_id` puts it in an account (manage-accounts.ts makes keys that way). */
export interface KeyRequest {
  tier: TierName;
  owner: string;
  label: string;
  account_id?: string;
}

export async function createKey(
  keys: KeyStore,
  request: KeyRequest,
  randomBytes: RandomBytes,
  now: Date,
  keyId: string = generateKeyId(randomBytes),
): Promise<IssuedKey> {
  const key = generateApiKey(randomBytes);
  const record: ApiKeyRecord = {
    key_id: keyId,
    prefix: shownPrefixOf(key),
    tier: request.tier,
    owner: request.owner,
    ...(request.account_id === undefined ? {} : { account_id: request.account_id }),
    label: request.label,
    created_at: now.toISOString(),
    revoked_at: null,
    current_hash: hashApiKey(key),
    previous_hash: null,
    previous_valid_until: null,
    rotated_at: null,
  };
  await keys.create(record);
  return { key, record };
}

/** How long a retry with the same idempotency key gets the key made first, not a second one. */
export const IDEMPOTENCY_HOURS = 24;

export interface IdempotentIssue {
  /** The key, shown once: null when an earlier create with the same idempotency key made it (it was shown then). */
  key: string | null;
  record: ApiKeyRecord;
  /** True when this call made no key and answers with the one made earlier. */
  replayed: boolean;
}

/**
 * createKey under an idempotency key, for provisioning scripts that retry: the first call claims
 * the idempotency key (a conditional write) and makes the key; any call with the same idempotency
 * key within IDEMPOTENCY_HOURS, concurrent ones included, answers with that key's record and makes
 * none. The same idempotency key for another request (tier, owner or label) is a conflict.
 */
export async function createKeyOnce(
  keys: KeyStore,
  request: KeyRequest,
  idempotencyKey: string,
  randomBytes: RandomBytes,
  now: Date,
  wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<IdempotentIssue> {
  const keyId = generateKeyId(randomBytes);
  // The account joins the fingerprint only when given, so claims made before accounts still match.
  const fingerprint = JSON.stringify([request.tier, request.owner, request.label, ...(request.account_id ? [request.account_id] : [])]);
  const expiresAt = new Date(now.getTime() + IDEMPOTENCY_HOURS * 3_600_000).toISOString();
  const held = await keys.claimIdempotencyKey(
    hashApiKey(`idempotency:${idempotencyKey}`),
    { key_id: keyId, fingerprint, expires_at: expiresAt },
    now.toISOString(),
  );
  if (!held) return { ...(await createKey(keys, request, randomBytes, now, keyId)), replayed: false };
  if (held.fingerprint !== fingerprint) {
    throw new KeyStateConflict(`idempotency key ${idempotencyKey} was used for another request (tier, owner or label differ) until ${held.expires_at}`);
  }
  // A concurrent first call may still be making its key.
  for (let attempt = 0; attempt < 50; attempt++) {
    const record = await keys.get(held.key_id);
    if (record) return { key: null, record, replayed: true };
    await wait(200);
  }
  throw new KeyStateConflict(
    `the create that holds idempotency key ${idempotencyKey} made no key (it failed, or is still running): check keys list, or use another idempotency key`,
  );
}

async function existing(keys: KeyStore, keyId: string): Promise<ApiKeyRecord> {
  const record = await keys.get(keyId);
  if (!record) throw new KeyStateConflict(`no key ${keyId}`);
  return record;
}

export async function rotateKey(keys: KeyStore, keyId: string, graceHours: number, randomBytes: RandomBytes, now: Date): Promise<IssuedKey> {
  if (!(graceHours >= 0 && graceHours <= MAX_ROTATION_GRACE_HOURS)) throw new RangeError(`the grace period must be 0 to ${MAX_ROTATION_GRACE_HOURS} hours`);
  const current = await existing(keys, keyId);
  if (current.revoked_at !== null) throw new KeyStateConflict(`key ${keyId} is revoked; create a new one`);
  const key = generateApiKey(randomBytes);
  const graceUntil = new Date(now.getTime() + graceHours * 3_600_000).toISOString();
  const record = await keys.rotate(keyId, current.current_hash, { hash: hashApiKey(key), prefix: shownPrefixOf(key) }, graceUntil, now.toISOString());
  return { key, record };
}

/**
 * Revocation and tier change are writes to the key record alone. The local server sees them at
 * once; in AWS, at the authorizer cache's expiry for that Authorization header (60 s by default).
 */
export async function revokeKey(keys: KeyStore, keyId: string, now: Date): Promise<ApiKeyRecord> {
  return keys.revoke(keyId, now.toISOString());
}

/** A revoked key keeps its tier (KeyStateConflict): a tier change racing a revocation never re-activates it. */
export async function setKeyTier(keys: KeyStore, keyId: string, tier: TierName): Promise<ApiKeyRecord> {
  return keys.setTier(keyId, tier);
}

export interface KeyListing extends ApiKeyRecord {
  last_used_at: string | null;
}

export async function listKeys(keys: KeyStore, meter: UsageMeter): Promise<KeyListing[]> {
  const records = await keys.list();
  return Promise.all(
    records.map(async (record) => ({
      ...record,
      last_used_at: (await meter.history(record.key_id, 1))[0]?.lastUsedAt ?? null,
    })),
  );
}

export async function keyUsage(keys: KeyStore, meter: UsageMeter, keyId: string, days: number): Promise<{ key: ApiKeyRecord; days: DailyUsage[] }> {
  return { key: await existing(keys, keyId), days: await meter.history(keyId, days) };
}
