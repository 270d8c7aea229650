import type { RateWindow } from '../core/auth/rate-window';

/** One key's usage on one UTC day. */
export interface DailyUsage {
  day: string;
  /** Requests counted against the quota. */
  requests: number;
  /** Responses with a 4xx or 5xx status, refusals of the quota included. */
  errors: number;
  responses: number;
  p50Ms: number | null;
  p95Ms: number | null;
  lastUsedAt: string | null;
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
  /** Records a response: its status and how long it took. */
  record(keyId: string, day: string, response: { status: number; latencyMs: number }): Promise<void>;
  /** The key's usage, newest day first. */
  history(keyId: string, days: number): Promise<DailyUsage[]>;
}
