/**
 * The hour buckets of the usage figures: responses are counted per key per UTC hour, by status
 * class, with the latency histogram of lambdas/core/auth/latency-histogram.ts.
 */

/** The UTC hour a moment falls in, as `YYYY-MM-DDTHH`. */
export function utcHourOf(at: Date): string {
  return at.toISOString().slice(0, 13);
}

/** The hour of day (0-23) of an hour id `YYYY-MM-DDTHH`. */
export function hourOfDay(hour: string): number {
  return Number(hour.slice(11, 13));
}

/** The counters a response adds to: every 4xx and 5xx is an error; 429 is a 4xx counted apart too. */
export interface StatusCounts {
  errors: number;
  errors4xx: number;
  errors5xx: number;
  rateLimited: number;
}

export function statusCountsOf(status: number): StatusCounts {
  const errors4xx = status >= 400 && status < 500 ? 1 : 0;
  const errors5xx = status >= 500 ? 1 : 0;
  return { errors: errors4xx + errors5xx, errors4xx, errors5xx, rateLimited: status === 429 ? 1 : 0 };
}

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** The UTC days from `fromDay` to `toDay` (both `YYYY-MM-DD`, inclusive), oldest first. */
export function daysFrom(fromDay: string, toDay: string): string[] {
  if (!DAY_PATTERN.test(fromDay) || !DAY_PATTERN.test(toDay)) throw new Error(`days must be YYYY-MM-DD, not ${fromDay} and ${toDay}`);
  const days: string[] = [];
  for (let at = Date.parse(`${fromDay}T00:00:00Z`); at <= Date.parse(`${toDay}T00:00:00Z`); at += 86_400_000) {
    days.push(new Date(at).toISOString().slice(0, 10));
  }
  return days;
}

/** The day `count - 1` days before `toDay` (so `count` days end at `toDay`). */
export function dayBefore(toDay: string, count: number): string {
  return new Date(Date.parse(`${toDay}T00:00:00Z`) - (count - 1) * 86_400_000).toISOString().slice(0, 10);
}
