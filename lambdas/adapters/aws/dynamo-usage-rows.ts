import { LATENCY_BUCKETS, latencyBucketOf, percentileOf } from '../../core/auth/latency-histogram';
import { statusCountsOf } from '../../core/usage/hour-buckets';
import type { DailyUsage, HourlyUsage, UsageFigures } from '../../ports/usage-meter';

/**
 * The usage items' attributes and how rows are read from them. A key's partition ("usage#<key_id>")
 * holds one day item per UTC day ("day#YYYY-MM-DD": the quota's count `requests`, its count per
 * hour `requests_hHH`, the rate window) and one hour item per UTC hour with responses
 * ("hour#YYYY-MM-DDTHH": responses, errors by class, latency buckets). Responses go to the small
 * hour item rather than the day item: a write costs a unit per KB of the item it changes, and a
 * day item carrying 24 hours of histograms would grow to several KB. Day items written before the
 * hour items existed carry responses, errors and latency buckets themselves; reads add them in.
 */

export const usagePartition = (keyId: string) => `usage#${keyId}`;
export const dayItemKey = (keyId: string, day: string) => ({ pk: usagePartition(keyId), sk: `day#${day}` });
export const hourItemKey = (keyId: string, hour: string) => ({ pk: usagePartition(keyId), sk: `hour#${hour}` });
export const hourlyRequestsAttribute = (hourOfDay: number) => `requests_h${String(hourOfDay).padStart(2, '0')}`;

/** The ADDs one response makes to its hour item (attribute: increment). */
export function responseAdds(status: number, latencyMs: number): Record<string, number> {
  const counts = statusCountsOf(status);
  const adds: Record<string, number> = { responses: 1, [`lat_${latencyBucketOf(latencyMs)}`]: 1 };
  if (counts.errors) adds.errors = 1;
  if (counts.errors4xx) adds.errors_4xx = 1;
  if (counts.errors5xx) adds.errors_5xx = 1;
  if (counts.rateLimited) adds.rate_limited = 1;
  return adds;
}

type Item = Record<string, unknown>;
const count = (item: Item | undefined, attribute: string) => Number(item?.[attribute] ?? 0);

interface ResponseCounters {
  responses: number;
  errors: number;
  errors4xx: number;
  errors5xx: number;
  rateLimited: number;
  latencyCounts: number[];
}

function countersOf(items: readonly Item[]): ResponseCounters {
  const latencyCounts = Array.from({ length: LATENCY_BUCKETS }, (_, bucket) => items.reduce((sum, item) => sum + count(item, `lat_${bucket}`), 0));
  const total = (attribute: string) => items.reduce((sum, item) => sum + count(item, attribute), 0);
  return {
    responses: total('responses'),
    errors: total('errors'),
    errors4xx: total('errors_4xx'),
    errors5xx: total('errors_5xx'),
    rateLimited: total('rate_limited'),
    latencyCounts,
  };
}

function figuresOf(requests: number, counters: ResponseCounters): UsageFigures {
  return {
    requests,
    ...counters,
    p50Ms: percentileOf(counters.latencyCounts, 0.5),
    p95Ms: percentileOf(counters.latencyCounts, 0.95),
  };
}

/** Day rows, newest first, from a partition's day items and hour items: the newest `days` days that have either. */
export function dailyRows(dayItems: readonly Item[], hourItems: readonly Item[], days: number): DailyUsage[] {
  // "day#YYYY-MM-DD" or "hour#YYYY-MM-DDTHH": the day either way.
  const dayOf = (item: Item) =>
    String(item.sk)
      .replace(/^(day|hour)#/, '')
      .slice(0, 10);
  const byDay = new Map<string, { day?: Item; hours: Item[] }>();
  const entry = (day: string) => byDay.get(day) ?? byDay.set(day, { hours: [] }).get(day)!;
  for (const item of dayItems) entry(dayOf(item)).day = item;
  for (const item of hourItems) entry(dayOf(item)).hours.push(item);
  return [...byDay.keys()]
    .sort()
    .reverse()
    .slice(0, days)
    .map((day) => {
      const { day: dayItem, hours } = byDay.get(day)!;
      // A day item's own response counters are those recorded before the hour items existed.
      const counters = countersOf(dayItem ? [dayItem, ...hours] : hours);
      return {
        day,
        ...figuresOf(count(dayItem, 'requests'), counters),
        lastUsedAt: typeof dayItem?.last_used_at === 'string' ? dayItem.last_used_at : null,
      };
    });
}

/** Hour rows, oldest first: every hour with counted requests (from day items) or responses (hour items). */
export function hourlyRows(dayItems: readonly Item[], hourItems: readonly Item[]): HourlyUsage[] {
  const requests = new Map<string, number>();
  for (const item of dayItems) {
    const day = String(item.sk).slice('day#'.length);
    for (let hour = 0; hour < 24; hour++) {
      const n = count(item, hourlyRequestsAttribute(hour));
      if (n > 0) requests.set(`${day}T${String(hour).padStart(2, '0')}`, n);
    }
  }
  const responses = new Map(hourItems.map((item) => [String(item.sk).slice('hour#'.length), item]));
  return [...new Set([...requests.keys(), ...responses.keys()])].sort().map((hour) => {
    const item = responses.get(hour);
    return { hour, ...figuresOf(requests.get(hour) ?? 0, countersOf(item ? [item] : [])) };
  });
}
