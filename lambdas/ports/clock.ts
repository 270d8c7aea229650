/** Injectable time, so date-relative semantics (open, closed, quotas) are testable. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function utcDate(clock: Clock): string {
  return clock.now().toISOString().slice(0, 10);
}
