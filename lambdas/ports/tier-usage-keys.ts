import type { TierName } from '../core/auth/tiers';

/**
 * The API Gateway key of each tier's usage plan: one per tier per stage, shared by all the tier's
 * customers. The authorizer names it as usageIdentifierKey; customers never see it.
 */
export interface TierUsageKeys {
  valueOf(tier: TierName): Promise<string>;
}
