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

/** Per-key, per-day counters: the daily quota and the usage figures of the dashboard. */
export interface UsageMeter {
  /**
   * Counts one request against the key's quota for the day, atomically: with a limit, it counts
   * only while the count is below the limit. `allowed` false means the quota is spent.
   */
  consume(keyId: string, day: string, limit: number | null, now: Date): Promise<{ allowed: boolean; used: number }>;
  /** Requests counted so far that day. */
  used(keyId: string, day: string): Promise<number>;
  /** Records a response: its status and how long it took. */
  record(keyId: string, day: string, response: { status: number; latencyMs: number }): Promise<void>;
  /** The key's usage, newest day first. */
  history(keyId: string, days: number): Promise<DailyUsage[]>;
}
