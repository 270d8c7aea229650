import type { TierQuotas } from '../lambdas/core/auth/tier-quotas';

/** The limits of the API's web ACL (lib/constructs/api-firewall.ts); WAF counts over five-minute windows. */
export interface EdgeProtectionSettings {
  /** Requests one client IP may make in five minutes before WAF answers 429. */
  readonly requestsPerIpPer5Min: number;
  /**
   * Requests one API key (Authorization header) may make in five minutes. WAF cannot tell a key's
   * tier, so this is one ceiling for every key; by default the fastest throttled tier's rate.
   */
  readonly requestsPerKeyPer5Min: number;
}

export const RATE_WINDOW_SECONDS = 300;
/** WAF's bounds on a rate-based rule's limit. */
const WAF_MIN_RATE_LIMIT = 10;
const WAF_MAX_RATE_LIMIT = 2_000_000_000;
const DEFAULT_REQUESTS_PER_IP_PER_5_MIN = 6_000;

/** The fastest throttled tier's rate over the window: a key of that tier never meets the WAF limit before its own throttle. */
export function defaultRequestsPerKeyPer5Min(tierQuotas: TierQuotas): number {
  const rates = Object.values(tierQuotas).flatMap(({ throttle }) => (throttle ? [throttle.rateLimit] : []));
  return Math.max(WAF_MIN_RATE_LIMIT, Math.ceil(Math.max(50, ...rates) * RATE_WINDOW_SECONDS));
}

export function edgeProtectionSettingsOf(tierQuotas: TierQuotas, overrides: Partial<EdgeProtectionSettings> = {}): EdgeProtectionSettings {
  const settings: EdgeProtectionSettings = {
    requestsPerIpPer5Min: overrides.requestsPerIpPer5Min ?? DEFAULT_REQUESTS_PER_IP_PER_5_MIN,
    requestsPerKeyPer5Min: overrides.requestsPerKeyPer5Min ?? defaultRequestsPerKeyPer5Min(tierQuotas),
  };
  for (const [name, limit] of Object.entries(settings)) {
    if (!Number.isInteger(limit) || limit < WAF_MIN_RATE_LIMIT || limit > WAF_MAX_RATE_LIMIT) {
      throw new Error(`Edge: ${name} must be a whole number from ${WAF_MIN_RATE_LIMIT} to ${WAF_MAX_RATE_LIMIT} (a WAF rate limit), not ${limit}`);
    }
  }
  return settings;
}
