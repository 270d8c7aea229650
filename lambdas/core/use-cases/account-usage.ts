import type { RequestLog } from '../../ports/request-log';
import type { UsageMeter } from '../../ports/usage-meter';
import type { TierPolicies } from '../auth/tier-quotas';
import { TIERS, type TierName } from '../auth/tiers';
import { invalidParameters } from '../errors';
import { dayBefore } from '../usage/hour-buckets';
import { type AccountUsageSummary, summariseAccountUsage } from '../usage/usage-summary';

/** How far back the dashboard's usage reaches. */
export const USAGE_MAX_DAYS = 30;

export interface UsageQuery {
  granularity: 'day' | 'hour';
  days: number;
}

/** `granularity` (day, the default, or hour) and `days` (1 to 30, default 30) from query parameters, or a 400 naming each bad one. */
export function parseUsageQuery(query: { granularity?: string | null; days?: string | null }): UsageQuery {
  const issues = [];
  const granularity = query.granularity ?? 'day';
  if (granularity !== 'day' && granularity !== 'hour') issues.push({ field: 'granularity', issue: 'must be day or hour' });
  const days = query.days === undefined || query.days === null ? USAGE_MAX_DAYS : /^\d{1,2}$/.test(query.days) ? Number(query.days) : Number.NaN;
  if (!(days >= 1 && days <= USAGE_MAX_DAYS)) issues.push({ field: 'days', issue: `must be an integer from 1 to ${USAGE_MAX_DAYS}` });
  if (issues.length > 0) throw invalidParameters(issues);
  return { granularity: granularity as UsageQuery['granularity'], days };
}

/**
 * The usage of some keys (an account's) over the last `days` UTC days up to `now`, per key and
 * together, with each key's quota for today from its tier (the stage's quotas when given).
 */
export async function readAccountUsage(
  ports: { meter: UsageMeter; tiers?: TierPolicies },
  keys: readonly { key_id: string; tier: TierName }[],
  query: UsageQuery,
  now: Date,
): Promise<AccountUsageSummary> {
  const today = now.toISOString().slice(0, 10);
  const from = dayBefore(today, query.days);
  const inputs = await Promise.all(
    keys.map(async (key) => ({
      keyId: key.key_id,
      rows: query.granularity === 'day' ? await ports.meter.history(key.key_id, query.days) : await ports.meter.hourly(key.key_id, from, today),
      usedToday: await ports.meter.used(key.key_id, today),
      dailyQuota: (ports.tiers ?? TIERS)[key.tier].dailyQuota,
    })),
  );
  return summariseAccountUsage({ granularity: query.granularity, from, to: today, today }, inputs);
}

/** A page of the key's recent-requests log as the account API and the admin CLI show it. */
export interface RequestLogView {
  entries: { at: string; method: string; path: string; status: number; latency_ms: number; request_id: string }[];
  next_cursor: string | null;
}

export async function readRequestLog(log: RequestLog, keyId: string, page: { limit: number; cursor: string | null }, now: Date): Promise<RequestLogView> {
  const { entries, nextCursor } = await log.recent(keyId, { ...page, now });
  return {
    entries: entries.map((e) => ({ at: e.at, method: e.method, path: e.path, status: e.status, latency_ms: e.latencyMs, request_id: e.requestId })),
    next_cursor: nextCursor,
  };
}
