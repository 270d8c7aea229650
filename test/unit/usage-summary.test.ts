import { describe, expect, it } from 'vitest';
import { LATENCY_BUCKETS, latencyBucketOf } from '../../lambdas/core/auth/latency-histogram';
import { ServiceError } from '../../lambdas/core/errors';
import { dayBefore, daysFrom, statusCountsOf, utcHourOf } from '../../lambdas/core/usage/hour-buckets';
import {
  decodeRequestLogCursor,
  encodeRequestLogCursor,
  parseRequestLogQuery,
  requestLogEntryOf,
  requestLogHorizon,
} from '../../lambdas/core/usage/request-log';
import { mergeFigures, periodsOf, quotaToday, summariseAccountUsage } from '../../lambdas/core/usage/usage-summary';
import { parseUsageQuery, readAccountUsage } from '../../lambdas/core/use-cases/account-usage';
import type { DailyUsage, HourlyUsage, UsageMeter } from '../../lambdas/ports/usage-meter';

/** Figures of `times` (ms) with the given statuses, as the meter reads them. */
function figures(times: number[], statuses: number[] = times.map(() => 200)) {
  const latencyCounts = Array.from({ length: LATENCY_BUCKETS }, () => 0);
  for (const ms of times) latencyCounts[latencyBucketOf(ms)]!++;
  const counts = statuses.map(statusCountsOf);
  const sum = (pick: (c: ReturnType<typeof statusCountsOf>) => number) => counts.reduce((total, c) => total + pick(c), 0);
  return {
    requests: times.length,
    responses: times.length,
    errors: sum((c) => c.errors),
    errors4xx: sum((c) => c.errors4xx),
    errors5xx: sum((c) => c.errors5xx),
    rateLimited: sum((c) => c.rateLimited),
    latencyCounts,
    p50Ms: null,
    p95Ms: null,
  };
}
const hourRow = (hour: string, times: number[], statuses?: number[]): HourlyUsage => ({ hour, ...figures(times, statuses) });
const dayRow = (day: string, times: number[], statuses?: number[]): DailyUsage => ({ day, ...figures(times, statuses), lastUsedAt: null });

describe('hour buckets', () => {
  it('names the UTC hour of a moment, whatever its offset', () => {
    expect(utcHourOf(new Date('2026-11-22T13:59:59.999Z'))).toBe('2026-11-22T13');
    expect(utcHourOf(new Date('2026-11-22T00:30:00-05:00'))).toBe('2026-11-22T05');
  });

  it('counts 4xx and 5xx as errors apart, and 429 also on its own', () => {
    expect(statusCountsOf(200)).toEqual({ errors: 0, errors4xx: 0, errors5xx: 0, rateLimited: 0 });
    expect(statusCountsOf(404)).toEqual({ errors: 1, errors4xx: 1, errors5xx: 0, rateLimited: 0 });
    expect(statusCountsOf(429)).toEqual({ errors: 1, errors4xx: 1, errors5xx: 0, rateLimited: 1 });
    expect(statusCountsOf(503)).toEqual({ errors: 1, errors4xx: 0, errors5xx: 1, rateLimited: 0 });
  });

  it('lists days across a month end and counts ranges back from a day', () => {
    expect(daysFrom('2026-02-27', '2026-03-02')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
    expect(dayBefore('2026-11-29', 30)).toBe('2026-10-31');
    expect(periodsOf('hour', '2026-11-28', '2026-11-29')).toHaveLength(48);
    expect(periodsOf('hour', '2026-11-28', '2026-11-28').at(-1)).toBe('2026-11-28T23');
    expect(() => daysFrom('2026-11-1', '2026-11-02')).toThrow(/YYYY-MM-DD/);
  });
});

describe('usage summaries', () => {
  it('merges percentiles across keys from the histograms, not by averaging', () => {
    // One key answered 90 fast responses, another 10 slow ones: the p50 of all is fast, the p95 slow.
    const merged = mergeFigures([figures(Array(90).fill(10)), figures(Array(10).fill(1000))]);
    expect(merged.responses).toBe(100);
    expect(merged.p50Ms).toBeGreaterThan(9);
    expect(merged.p50Ms).toBeLessThan(11.5);
    expect(merged.p95Ms).toBeGreaterThan(900);
    expect(merged.p95Ms).toBeLessThan(1130);
  });

  it("gives totals, error rates, every period of the range and each key's quota for today", () => {
    const summary = summariseAccountUsage({ granularity: 'day', from: '2026-11-27', to: '2026-11-29', today: '2026-11-29' }, [
      { keyId: 'key_a', rows: [dayRow('2026-11-29', [5, 5, 5, 5], [200, 200, 404, 500]), dayRow('2026-11-26', [5])], usedToday: 4, dailyQuota: 1000 },
      { keyId: 'key_b', rows: [dayRow('2026-11-27', [50, 50, 50, 50], [200, 429, 429, 200])], usedToday: 0, dailyQuota: null },
    ]);
    expect(summary.totals).toMatchObject({ requests: 8, responses: 8, errors: 4, errors_4xx: 3, errors_5xx: 1, rate_limited: 2, error_rate: 0.5 });
    expect(summary.periods.map((p) => [p.period, p.requests, p.error_rate])).toEqual([
      ['2026-11-27', 4, 0.5],
      ['2026-11-28', 0, null],
      ['2026-11-29', 4, 0.5],
    ]);
    const [a, b] = summary.keys;
    // key_a's day before the range is left out.
    expect(a!.totals).toMatchObject({ requests: 4, errors_4xx: 1, errors_5xx: 1, error_rate: 0.5 });
    expect(a!.today).toEqual({ day: '2026-11-29', used: 4, quota: 1000, remaining: 996 });
    expect(b!.today).toEqual({ day: '2026-11-29', used: 0, quota: null, remaining: null });
    expect(b!.totals.p50_ms).toBeGreaterThan(45);
    expect(summary.periods[1]).toMatchObject({ p50_ms: null, p95_ms: null });
  });

  it('never reports a negative remainder', () => {
    expect(quotaToday('2026-11-29', 1200, 1000).remaining).toBe(0);
  });

  it('reads day or hour rows and the quota count from the meter', async () => {
    const asked: string[] = [];
    const meter: UsageMeter = {
      consume: async () => ({ allowed: true, used: 0 }),
      used: async (keyId, day) => {
        asked.push(`used ${keyId} ${day}`);
        return 7;
      },
      record: async () => {},
      history: async (keyId, days) => {
        asked.push(`history ${keyId} ${days}`);
        return [dayRow('2026-11-29', [3])];
      },
      hourly: async (keyId, from, to) => {
        asked.push(`hourly ${keyId} ${from} ${to}`);
        return [hourRow('2026-11-29T06', [3, 3])];
      },
    };
    const now = new Date('2026-11-29T06:30:00Z');
    const hourly = await readAccountUsage({ meter }, [{ key_id: 'key_a', tier: 'basic' }], { granularity: 'hour', days: 2 }, now);
    expect(hourly.periods).toHaveLength(48);
    expect(hourly.periods.find((p) => p.requests > 0)?.period).toBe('2026-11-29T06');
    expect(hourly.keys[0]!.today).toEqual({ day: '2026-11-29', used: 7, quota: 1000, remaining: 993 });
    await readAccountUsage({ meter }, [{ key_id: 'key_a', tier: 'pro' }], { granularity: 'day', days: 30 }, now);
    expect(asked).toEqual(['hourly key_a 2026-11-28 2026-11-29', 'used key_a 2026-11-29', 'history key_a 30', 'used key_a 2026-11-29']);
  });

  it('parses the usage query, refusing bad values with a 400 naming each', () => {
    expect(parseUsageQuery({})).toEqual({ granularity: 'day', days: 30 });
    expect(parseUsageQuery({ granularity: 'hour', days: '7' })).toEqual({ granularity: 'hour', days: 7 });
    for (const bad of [{ days: '0' }, { days: '31' }, { days: '1.5' }, { granularity: 'week' }]) {
      expect(() => parseUsageQuery(bad), JSON.stringify(bad)).toThrow(ServiceError);
    }
    try {
      parseUsageQuery({ granularity: 'minute', days: 'x' });
    } catch (error) {
      expect((error as ServiceError).details?.map((d) => d.field)).toEqual(['granularity', 'days']);
    }
  });
});

describe('request log entries', () => {
  it('keep the path without its query string, upper-case the method and round the time', () => {
    const entry = requestLogEntryOf({
      at: new Date('2026-11-29T06:00:00Z'),
      method: 'get',
      path: '/grants-api?search=water&key=secret',
      status: 200,
      latencyMs: 12.3456,
      requestId: 'req-1',
    });
    expect(entry).toEqual({ at: '2026-11-29T06:00:00.000Z', method: 'GET', path: '/grants-api', status: 200, latencyMs: 12.3, requestId: 'req-1' });
  });

  it('reach back seven days', () => {
    expect(requestLogHorizon(new Date('2026-11-29T06:00:00Z')).toISOString()).toBe('2026-11-22T06:00:00.000Z');
  });

  it('page with a default of 50, at most 200, and only cursors the log made', () => {
    expect(parseRequestLogQuery({})).toEqual({ limit: 50, cursor: null });
    const cursor = encodeRequestLogCursor('2026-11-29T06:00:00.000Z#0b9c-4d1e');
    expect(decodeRequestLogCursor(cursor)).toBe('2026-11-29T06:00:00.000Z#0b9c-4d1e');
    expect(parseRequestLogQuery({ limit: '200', cursor })).toEqual({ limit: 200, cursor });
    for (const bad of [{ limit: '0' }, { limit: '201' }, { limit: '-1' }, { limit: 'ten' }, { cursor: 'bm90IGEgY3Vyc29y' }, { cursor: '%%%' }]) {
      expect(() => parseRequestLogQuery(bad), JSON.stringify(bad)).toThrow(expect.objectContaining({ status: 400, code: 'INVALID_PARAMETER' }));
    }
  });
});
