import type { TierPolicy } from './tiers';

/**
 * A key's request rate, counted in fixed windows: a tier throttled to `rateLimit` a second with
 * bursts of `burstLimit` gets windows of burstLimit / rateLimit seconds (at least one) holding
 * burstLimit requests each, so its sustained rate is rateLimit and a quiet key may burst.
 */
export interface RateWindow {
  /** Which window `now` falls in (windows are counted from the epoch). */
  readonly id: number;
  /** Requests the window admits. */
  readonly limit: number;
  /** When the window closes, in epoch milliseconds. */
  readonly endsAtMs: number;
}

/** The window `now` falls in for a tier's throttle; null when the tier is not throttled. */
export function rateWindowOf(throttle: TierPolicy['throttle'], now: Date): RateWindow | null {
  if (throttle === null) return null;
  const lengthMs = Math.max(1000, Math.round((1000 * throttle.burstLimit) / throttle.rateLimit));
  const id = Math.floor(now.getTime() / lengthMs);
  return { id, limit: throttle.burstLimit, endsAtMs: (id + 1) * lengthMs };
}

/** Whole seconds until the window closes (at least 1): the Retry-After of a rate refusal. */
export function secondsUntilWindowEnds(window: RateWindow, now: Date): number {
  return Math.max(1, Math.ceil((window.endsAtMs - now.getTime()) / 1000));
}
