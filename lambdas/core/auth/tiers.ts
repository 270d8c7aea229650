/**
 * Subscription tiers: the one place their features and default quotas live (DESIGN.md section 3).
 * The service, the local server, the CDK usage plans and the docs all read this object; a deployed
 * stage may change a tier's daily quota and throttling in cdk.json (tier-quotas.ts).
 */

export const TIER_NAMES = ['free', 'basic', 'pro', 'developer'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export interface TierPolicy {
  /** Whether the tier may call the API at all (free: 403 FORBIDDEN). */
  readonly apiAccess: boolean;
  /** Requests per UTC day; null is unlimited. */
  readonly dailyQuota: number | null;
  /** POST /match-grants-api (other tiers: 403 NO_API_ACCESS). */
  readonly matching: boolean;
  readonly webhooks: boolean;
  /** Steady requests per second and burst for the API Gateway usage plan; null is not throttled. */
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number } | null;
}

export const TIERS: Readonly<Record<TierName, TierPolicy>> = {
  free: { apiAccess: false, dailyQuota: 0, matching: false, webhooks: false, throttle: null },
  basic: { apiAccess: true, dailyQuota: 1_000, matching: false, webhooks: false, throttle: { rateLimit: 10, burstLimit: 20 } },
  pro: { apiAccess: true, dailyQuota: 10_000, matching: true, webhooks: false, throttle: { rateLimit: 50, burstLimit: 100 } },
  developer: { apiAccess: true, dailyQuota: null, matching: true, webhooks: true, throttle: null },
};

export function isTierName(value: unknown): value is TierName {
  return typeof value === 'string' && (TIER_NAMES as readonly string[]).includes(value);
}
