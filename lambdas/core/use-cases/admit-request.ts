import type { UsageMeter } from '../../ports/usage-meter';
import { rateLimitHeaders, secondsUntilUtcMidnight, utcDayOf } from '../auth/quota';
import { rateWindowOf, secondsUntilWindowEnds } from '../auth/rate-window';
import type { TierPolicies } from '../auth/tier-quotas';
import { TIERS } from '../auth/tiers';
import { ServiceError } from '../errors';
import type { Principal } from './authenticate';

/** What a route needs from a tier: the API, or the API and grant matching. */
export type RouteFeature = 'api' | 'matching';

/**
 * A route's admission of an authenticated request: the tier's access, then one request off the
 * day's quota and the tier's rate window (atomically, in the usage meter). Returns the rate-limit headers for the response;
 * a refusal is a ServiceError that carries them too (and Retry-After on a 429). `tiers` are the
 * deployment's quotas (the stage's config in AWS).
 */
export async function admitRequest(
  principal: Principal,
  feature: RouteFeature,
  meter: UsageMeter,
  now: Date,
  tiers: TierPolicies = TIERS,
): Promise<Record<string, string>> {
  const tier = tiers[principal.tier];
  const day = utcDayOf(now);
  // Interface section 5: the matching endpoint answers NO_API_ACCESS to every tier without matching, free included.
  if (feature === 'matching' && !tier.matching) {
    const used = tier.apiAccess ? await meter.used(principal.keyId, day) : 0;
    throw new ServiceError(
      403,
      'NO_API_ACCESS',
      `Grant matching needs the pro or developer tier (this key is ${principal.tier})`,
      undefined,
      rateLimitHeaders(tier, used),
    );
  }
  if (!tier.apiAccess) {
    throw new ServiceError(403, 'FORBIDDEN', `The ${principal.tier} tier has no API access; upgrade to basic or above`, undefined, rateLimitHeaders(tier, 0));
  }
  const window = rateWindowOf(tier.throttle, now);
  const { allowed, used, refusedBy } = await meter.consume(principal.keyId, day, tier.dailyQuota, now, window);
  if (!allowed && refusedBy === 'rate' && window && tier.throttle) {
    const { rateLimit, burstLimit } = tier.throttle;
    const retryAfter = secondsUntilWindowEnds(window, now);
    throw new ServiceError(
      429,
      'RATE_LIMITED',
      `The ${principal.tier} tier allows ${rateLimit} requests a second per key (bursts of ${burstLimit}); retry in ${retryAfter} s`,
      undefined,
      { ...rateLimitHeaders(tier, used), 'Retry-After': String(retryAfter) },
    );
  }
  if (!allowed) {
    throw new ServiceError(429, 'RATE_LIMITED', `Daily quota of ${tier.dailyQuota} requests reached; it resets at 00:00 UTC`, undefined, {
      ...rateLimitHeaders(tier, used),
      'Retry-After': String(secondsUntilUtcMidnight(now)),
    });
  }
  return rateLimitHeaders(tier, used);
}
