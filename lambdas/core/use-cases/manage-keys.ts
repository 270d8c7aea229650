import { generateApiKey, generateKeyId, hashApiKey, shownPrefixOf, type RandomBytes } from '../auth/api-keys';
import type { TierName } from '../auth/tiers';
import { KeyStateConflict, type ApiKeyRecord, type KeyStore } from '../../ports/key-store';
import type { DailyUsage, UsageMeter } from '../../ports/usage-meter';

/**
 * The key lifecycle the admin CLI drives: create (the key is shown once, only its hash is kept),
 * rotate (a new key, the old one honoured for a grace period), revoke, change tier, and usage.
 */

export const DEFAULT_ROTATION_GRACE_HOURS = 24;

export interface IssuedKey {
  /** The key itself: shown once, never stored. */
  key: string;
  record: ApiKeyRecord;
}

export async function createKey(
  keys: KeyStore,
  request: { tier: TierName; owner: string; label: string },
  randomBytes: RandomBytes,
  now: Date,
): Promise<IssuedKey> {
  const key = generateApiKey(randomBytes);
  const record: ApiKeyRecord = {
    key_id: generateKeyId(randomBytes),
    prefix: shownPrefixOf(key),
    tier: request.tier,
    owner: request.owner,
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

async function existing(keys: KeyStore, keyId: string): Promise<ApiKeyRecord> {
  const record = await keys.get(keyId);
  if (!record) throw new KeyStateConflict(`no key ${keyId}`);
  return record;
}

export async function rotateKey(keys: KeyStore, keyId: string, graceHours: number, randomBytes: RandomBytes, now: Date): Promise<IssuedKey> {
  const current = await existing(keys, keyId);
  if (current.revoked_at !== null) throw new KeyStateConflict(`key ${keyId} is revoked; create a new one`);
  const key = generateApiKey(randomBytes);
  const graceUntil = new Date(now.getTime() + graceHours * 3_600_000).toISOString();
  const record = await keys.rotate(keyId, current.current_hash, { hash: hashApiKey(key), prefix: shownPrefixOf(key) }, graceUntil, now.toISOString());
  return { key, record };
}

export async function revokeKey(keys: KeyStore, keyId: string, now: Date): Promise<ApiKeyRecord> {
  return keys.revoke(keyId, now.toISOString());
}

export async function setKeyTier(keys: KeyStore, keyId: string, tier: TierName): Promise<ApiKeyRecord> {
  return keys.setTier(keyId, tier);
}

export interface KeyListing extends ApiKeyRecord {
  last_used_at: string | null;
}

export async function listKeys(keys: KeyStore, meter: UsageMeter): Promise<KeyListing[]> {
  const records = await keys.list();
  return Promise.all(records.map(async (record) => ({
    ...record,
    last_used_at: (await meter.history(record.key_id, 1))[0]?.lastUsedAt ?? null,
  })));
}

export async function keyUsage(keys: KeyStore, meter: UsageMeter, keyId: string, days: number): Promise<{ key: ApiKeyRecord; days: DailyUsage[] }> {
  return { key: await existing(keys, keyId), days: await meter.history(keyId, days) };
}
