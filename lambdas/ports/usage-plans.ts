import type { TierName } from '../core/auth/tiers';

/**
 * API Gateway's side of a key: an API key in its tier's usage plan, which the gateway meters and
 * throttles. The authorizer names it (usageIdentifierKey); customers never see it.
 */
export interface UsagePlanKeys {
  /** Creates the gateway key for a customer key and puts it in the tier's plan. */
  issue(keyId: string, tier: TierName): Promise<{ usageKey: string; apiKeyId: string }>;
  changeTier(apiKeyId: string, from: TierName, to: TierName): Promise<void>;
  /** Stops the gateway key (a revoked customer key). */
  disable(apiKeyId: string): Promise<void>;
  /** Deletes a gateway key whose customer key could not be stored. */
  remove(apiKeyId: string): Promise<void>;
}
