import type { TierPolicy } from './tiers';

/** Daily quotas run per UTC day and reset at 00:00 UTC. */

export function utcDayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** Whole seconds until the next 00:00 UTC (at least 1): the Retry-After of a 429. */
export function secondsUntilUtcMidnight(now: Date): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
}

/** X-RateLimit-Limit / -Remaining for a key's tier after `used` requests today; -1/-1 when unlimited. */
export function rateLimitHeaders(tier: TierPolicy, used: number): Record<string, string> {
  if (tier.dailyQuota === null) return { 'X-RateLimit-Limit': '-1', 'X-RateLimit-Remaining': '-1' };
  return { 'X-RateLimit-Limit': String(tier.dailyQuota), 'X-RateLimit-Remaining': String(Math.max(0, tier.dailyQuota - used)) };
}
