/**
 * The synthetic canary's API key and the value its Secrets Manager secret holds: read by the canary
 * (lambdas/canary), written by `admin canary provision`.
 */
import type { TierName } from './tiers';

/** The canary's key is an ordinary customer key on this tier, so it goes through the same authorizer, plan and quota. */
export const CANARY_KEY_TIER: TierName = 'pro';
/** Owner and label of the canary's key in `keys list`. */
export const CANARY_KEY_OWNER = 'synthetic-canary';
export const CANARY_KEY_LABEL = 'CloudWatch Synthetics canary (admin canary provision)';

/** Authenticated requests a canary run makes (the search and the record). */
export const CANARY_REQUESTS_PER_RUN = 2;

/** The provisioned secret value; the stack creates the secret as `{}` (not provisioned). */
export interface CanaryKeySecret {
  readonly key_id: string;
  readonly key: string;
}

/** The key in a secret's value; null when it is not provisioned (empty, `{}` or not this shape). */
export function parseCanaryKeySecret(value: string | undefined): CanaryKeySecret | null {
  if (!value) return null;
  try {
    const parsed = JSON.parse(value) as Partial<CanaryKeySecret>;
    return typeof parsed.key_id === 'string' && typeof parsed.key === 'string' && parsed.key !== '' ? { key_id: parsed.key_id, key: parsed.key } : null;
  } catch {
    return null;
  }
}
