import type { KeyStore } from '../../ports/key-store';
import type { RandomBytes } from '../auth/api-keys';
import { CANARY_KEY_LABEL, CANARY_KEY_OWNER, CANARY_KEY_TIER, type CanaryKeySecret } from '../auth/canary-key';
import { createKey, type IssuedKey, rotateKey } from './manage-keys';

/** How long the canary's previous key keeps working after a rotation: a run already under way finishes with it. */
export const CANARY_ROTATION_GRACE_HOURS = 1;

export interface ProvisionedCanaryKey extends IssuedKey {
  /** True when the key the secret held was rotated; false when a new key was made. */
  readonly rotated: boolean;
  /** The value to store in the canary's secret. */
  readonly secret: CanaryKeySecret;
}

/**
 * The canary's key: the one the secret holds, rotated, if it is still a live key; otherwise a new
 * key on the canary's tier (the first provisioning, or after the key was revoked or the secret replaced).
 */
export async function provisionCanaryKey(keys: KeyStore, stored: CanaryKeySecret | null, randomBytes: RandomBytes, now: Date): Promise<ProvisionedCanaryKey> {
  const current = stored ? await keys.get(stored.key_id) : null;
  const issued =
    current && current.revoked_at === null
      ? { ...(await rotateKey(keys, current.key_id, CANARY_ROTATION_GRACE_HOURS, randomBytes, now)), rotated: true }
      : { ...(await createKey(keys, { tier: CANARY_KEY_TIER, owner: CANARY_KEY_OWNER, label: CANARY_KEY_LABEL }, randomBytes, now)), rotated: false };
  return { ...issued, secret: { key_id: issued.record.key_id, key: issued.key } };
}
