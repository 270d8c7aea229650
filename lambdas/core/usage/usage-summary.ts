import type { DailyUsage, HourlyUsage, UsageFigures } from '../../ports/usage-meter';
import { LATENCY_BUCKETS, percentileOf } from '../auth/latency-histogram';
import { daysFrom } from './hour-buckets';

/**
 * The account API's usage figures, per key and per account, from the meter's day or hour rows.
 * Totals over periods or keys add the counters and merge the latency histograms bucket by bucket
 * before taking p50 and p95, so a merged percentile is the percentile of all the responses (within
 * the histogram's bucket width), never an average of percentiles.
 */

export interface UsageTotals {
  requests: number;
  responses: number;
  errors: number;
  errors_4xx: number;
  errors_5xx: number;
  rate_limited: number;
  /** errors / responses, or null without responses. */
  error_rate: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
}

/** A day (`YYYY-MM-DD`) or an hour (`YYYY-MM-DDTHH`) and its figures. */
export interface UsagePeriod extends UsageTotals {
  period: string;
}

/** Today's quota of a key: the count the quota refuses on (UsageMeter.used), the tier's quota and what is left. */
export interface QuotaToday {
  day: string;
  used: number;
  /** Null: unlimited. */
  quota: number | null;
  remaining: number | null;
}

export interface KeyUsageSummary {
  key_id: string;
  totals: UsageTotals;
  /** Every day or hour of the range, oldest first, zeros where there was no usage. */
  periods: UsagePeriod[];
  today: QuotaToday;
}

export interface AccountUsageSummary {
  granularity: 'day' | 'hour';
  from: string;
  to: string;
  totals: UsageTotals;
  periods: UsagePeriod[];
  keys: KeyUsageSummary[];
}

export type UsageRow = DailyUsage | HourlyUsage;
export const periodOf = (row: UsageRow) => ('day' in row ? row.day : row.hour);

/** The merged figures of rows: counters added, histograms merged. */
export function mergeFigures(rows: readonly UsageFigures[]): UsageFigures {
  const latencyCounts = Array.from({ length: LATENCY_BUCKETS }, (_, bucket) => rows.reduce((sum, row) => sum + (row.latencyCounts[bucket] ?? 0), 0));
  const sum = (pick: (row: UsageFigures) => number) => rows.reduce((total, row) => total + pick(row), 0);
  return {
    requests: sum((r) => r.requests),
    responses: sum((r) => r.responses),
    errors: sum((r) => r.errors),
    errors4xx: sum((r) => r.errors4xx),
    errors5xx: sum((r) => r.errors5xx),
    rateLimited: sum((r) => r.rateLimited),
    latencyCounts,
    p50Ms: percentileOf(latencyCounts, 0.5),
    p95Ms: percentileOf(latencyCounts, 0.95),
  };
}

export function totalsOf(figures: UsageFigures): UsageTotals {
  return {
    requests: figures.requests,
    responses: figures.responses,
    errors: figures.errors,
    errors_4xx: figures.errors4xx,
    errors_5xx: figures.errors5xx,
    rate_limited: figures.rateLimited,
    error_rate: figures.responses > 0 ? Math.round((figures.errors / figures.responses) * 10_000) / 10_000 : null,
    p50_ms: figures.p50Ms,
    p95_ms: figures.p95Ms,
  };
}

export function quotaToday(day: string, used: number, dailyQuota: number | null): QuotaToday {
  return { day, used, quota: dailyQuota, remaining: dailyQuota === null ? null : Math.max(0, dailyQuota - used) };
}

/** Every period of the range, oldest first: the days, or the 24 hours of each day. */
export function periodsOf(granularity: 'day' | 'hour', from: string, to: string): string[] {
  const days = daysFrom(from, to);
  if (granularity === 'day') return days;
  return days.flatMap((day) => Array.from({ length: 24 }, (_, hour) => `${day}T${String(hour).padStart(2, '0')}`));
}

/** The figures of each period of the range (rows of several keys merged), oldest first. */
function seriesOf(periods: readonly string[], rows: readonly UsageRow[]): { period: string; figures: UsageFigures }[] {
  const byPeriod = new Map<string, UsageRow[]>();
  for (const row of rows) byPeriod.set(periodOf(row), [...(byPeriod.get(periodOf(row)) ?? []), row]);
  return periods.map((period) => ({ period, figures: mergeFigures(byPeriod.get(period) ?? []) }));
}

export interface KeyUsageInput {
  keyId: string;
  /** The key's day rows (granularity day) or hour rows (hour) covering the range; rows outside it are ignored. */
  rows: readonly UsageRow[];
  usedToday: number;
  dailyQuota: number | null;
}

export function summariseAccountUsage(
  range: { granularity: 'day' | 'hour'; from: string; to: string; today: string },
  keys: readonly KeyUsageInput[],
): AccountUsageSummary {
  const periods = periodsOf(range.granularity, range.from, range.to);
  const inRange = new Set(periods);
  const perKey = keys.map((key) => {
    const rows = key.rows.filter((row) => inRange.has(periodOf(row)));
    return {
      rows,
      summary: {
        key_id: key.keyId,
        totals: totalsOf(mergeFigures(rows)),
        periods: seriesOf(periods, rows).map(({ period, figures }) => ({ period, ...totalsOf(figures) })),
        today: quotaToday(range.today, key.usedToday, key.dailyQuota),
      },
    };
  });
  const allRows = perKey.flatMap((key) => key.rows);
  return {
    granularity: range.granularity,
    from: range.from,
    to: range.to,
    totals: totalsOf(mergeFigures(allRows)),
    periods: seriesOf(periods, allRows).map(({ period, figures }) => ({ period, ...totalsOf(figures) })),
    keys: perKey.map((key) => key.summary),
  };
}
