import type { RateWindow } from '../core/auth/rate-window';

/** What a day's or an hour's figures hold (one key's). */
export interface UsageFigures {
  /** Requests counted against the quota. */
  requests: number;
  /** Responses with a 4xx or 5xx status, refusals of the quota included. */
  errors: number;
  /** Responses with a 4xx status (429 included) and a 5xx status. Days recorded before the split have errors only. */
  errors4xx: number;
  errors5xx: number;
  /** Responses with status 429 (also among errors4xx). */
  rateLimited: number;
  responses: number;
  p50Ms: number | null;
  p95Ms: number | null;
  /** The response times as counts by latency bucket (core/auth/latency-histogram.ts), so figures of several keys or periods merge exactly. */
  latencyCounts: number[];
}

/** One key's usage on one UTC day. */
export interface DailyUsage extends UsageFigures {
  day: string;
  lastUsedAt: string | null;
}

/** One key's usage in one UTC hour (`YYYY-MM-DDTHH`). */
export interface HourlyUsage extends UsageFigures {
  hour: string;
}

/** What consume decided: `refusedBy` names the limit a refused request met. */
export interface Admission {
  readonly allowed: boolean;
  /** Requests counted that day (the limit, when the quota refused). */
  readonly used: number;
  readonly refusedBy?: 'quota' | 'rate';
}

/** Per-key, per-day counters: the daily quota, the request rate and the usage figures of the dashboard. */
export interface UsageMeter {
  /**
   * Counts one request against the key's quota for the day and, with a rate window, against that
   * window, atomically: it counts only while the day's count is below `limit` and the window's
   * below its own limit. A refused request counts against neither.
   */
  consume(keyId: string, day: string, limit: number | null, now: Date, window?: RateWindow | null): Promise<Admission>;
  /** Requests counted so far that day. */
  used(keyId: string, day: string): Promise<number>;
  /** Records a response: its status, how long it took and when the request came (its hour). */
  record(keyId: string, day: string, response: { status: number; latencyMs: number; at: Date }): Promise<void>;
  /** The key's usage, newest day first: its newest `days` days with any usage. */
  history(keyId: string, days: number): Promise<DailyUsage[]>;
  /** The key's usage by UTC hour from `fromDay` to `toDay` (inclusive), oldest hour first; hours without usage are left out. */
  hourly(keyId: string, fromDay: string, toDay: string): Promise<HourlyUsage[]>;
}
