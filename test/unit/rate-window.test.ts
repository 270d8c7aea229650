import { describe, expect, it } from 'vitest';
import { rateWindowOf, secondsUntilWindowEnds } from '../../lambdas/core/auth/rate-window';

describe('rate windows', () => {
  it('hold a burst each and last burst / rate seconds, so the sustained rate is the tier rate', () => {
    const now = new Date('2026-11-29T10:00:01.500Z');
    const basic = rateWindowOf({ rateLimit: 10, burstLimit: 20 }, now)!;
    expect(basic.limit).toBe(20);
    expect(basic.endsAtMs - basic.id * 2000).toBe(2000);
    expect(basic.id).toBe(Math.floor(now.getTime() / 2000));
    expect(secondsUntilWindowEnds(basic, now)).toBe(1); // 10:00:00 to 10:00:02
  });

  it('last at least one second, and move on to the next window when it closes', () => {
    const at = (iso: string) => rateWindowOf({ rateLimit: 100, burstLimit: 100 }, new Date(iso))!;
    expect(at('2026-11-29T10:00:00.999Z').endsAtMs - at('2026-11-29T10:00:00.999Z').id * 1000).toBe(1000);
    expect(at('2026-11-29T10:00:01.000Z').id).toBe(at('2026-11-29T10:00:00.999Z').id + 1);
    expect(at('2026-11-29T10:00:00.000Z').id).toBe(at('2026-11-29T10:00:00.999Z').id);
  });

  it('are absent for a tier that is not throttled', () => {
    expect(rateWindowOf(null, new Date())).toBeNull();
  });
});
