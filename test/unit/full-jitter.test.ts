import { describe, expect, it } from 'vitest';
import { fullJitterDelayMs } from '../../lambdas/core/retry/full-jitter';

describe('fullJitterDelayMs', () => {
  it('is the random share of a ceiling that doubles from baseMs with each retry, capped at maxMs', () => {
    const ceiling = { baseMs: 100, maxMs: 1_000 };
    expect([1, 2, 3, 4, 5, 6].map((attempt) => fullJitterDelayMs(attempt, ceiling, () => 0.5))).toEqual([50, 100, 200, 400, 500, 500]);
    expect(fullJitterDelayMs(3, ceiling, () => 0)).toBe(0);
    expect(fullJitterDelayMs(3, ceiling, () => 0.999)).toBeCloseTo(399.6, 6);
  });

  it('stays under its ceiling with the real random source', () => {
    for (let i = 0; i < 200; i++) {
      const delay = fullJitterDelayMs(2, { baseMs: 50, maxMs: 1_000 });
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(100);
    }
  });
});
