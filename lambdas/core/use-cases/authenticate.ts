import type { KeyStore } from '../../ports/key-store';
import { bearerKeyOf, hashApiKey, unauthorized } from '../auth/api-keys';
import type { TierName } from '../auth/tiers';

/** Who is calling: what the authorizer passes on to the route (as API Gateway's authorizer context). */
export interface Principal {
  keyId: string;
  tier: TierName;
}

/**
 * The authorizer's decision: the key of the Authorization header, looked up by its SHA-256.
 * Unknown, revoked, and rotated-out keys are 401; the tier is checked by the route (admitRequest),
 * which also answers with the key's rate-limit figures.
 */
export async function authenticate(authorization: readonly string[] | undefined, keys: KeyStore, now: Date): Promise<Principal> {
  const hash = hashApiKey(bearerKeyOf(authorization));
  const key = await keys.findByHash(hash);
  if (!key) throw unauthorized('Unknown API key');
  if (key.revoked_at !== null) throw unauthorized('This API key has been revoked');
  if (hash !== key.current_hash && (key.previous_valid_until === null || key.previous_valid_until <= now.toISOString())) {
    throw unauthorized('This API key was rotated and its grace period has ended; use the new key');
  }
  return { keyId: key.key_id, tier: key.tier };
}
