import { parseTierQuotas, type TierPolicies, tierPoliciesWith } from '../core/auth/tier-quotas';
import { TIERS } from '../core/auth/tiers';

/**
 * The stage's tier quotas (JSON of TierQuotas), set by the CDK app on the functions that admit
 * requests, from the same config as the usage plans. The CDK app reads this name too.
 */
export const TIER_QUOTAS_ENV = 'TIER_QUOTAS';

/** The tiers a function enforces: TIER_QUOTAS when set (validated: a bad value fails the cold start), TIERS otherwise (the local server). */
export function tierPoliciesFromEnv(env: NodeJS.ProcessEnv): TierPolicies {
  const json = env[TIER_QUOTAS_ENV];
  if (json === undefined || json === '') return TIERS;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error(`${TIER_QUOTAS_ENV} is not JSON: ${json.slice(0, 80)}`);
  }
  return tierPoliciesWith(parseTierQuotas(value, TIER_QUOTAS_ENV));
}
