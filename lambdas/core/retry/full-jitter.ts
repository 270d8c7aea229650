/** The ceiling of a retry's delay: `baseMs` before the first retry, doubled for each later one, never above `maxMs`. */
export interface BackoffCeiling {
  baseMs: number;
  maxMs: number;
}

/**
 * "Full jitter" backoff (AWS Architecture Blog, "Exponential Backoff And Jitter"): a uniform delay
 * below a ceiling that doubles with each attempt, so clients that failed together do not retry in
 * lockstep. `attempt` is the retry's number, from 1; `random` returns a number in [0, 1).
 */
export function fullJitterDelayMs(attempt: number, ceiling: BackoffCeiling, random: () => number = Math.random): number {
  return random() * Math.min(ceiling.maxMs, ceiling.baseMs * 2 ** (attempt - 1));
}

export const sleepMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
