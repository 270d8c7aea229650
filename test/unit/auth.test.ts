import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bearerKeyOf, generateApiKey, hashApiKey, isWellFormedApiKey, randomBase62, shownPrefixOf } from '../../lambdas/core/auth/api-keys';
import { LATENCY_BUCKETS, latencyBucketOf, percentileOf } from '../../lambdas/core/auth/latency-histogram';
import { rateLimitHeaders, secondsUntilUtcMidnight, utcDayOf } from '../../lambdas/core/auth/quota';
import { TIERS } from '../../lambdas/core/auth/tiers';
import { ServiceError } from '../../lambdas/core/errors';
import { admitRequest } from '../../lambdas/core/use-cases/admit-request';
import { rotateKey } from '../../lambdas/core/use-cases/manage-keys';
import { rotateSecret } from '../../lambdas/core/use-cases/manage-webhooks';
import type { KeyStore } from '../../lambdas/ports/key-store';
import type { UsageMeter } from '../../lambdas/ports/usage-meter';
import type { WebhookStore } from '../../lambdas/ports/webhook-store';

describe('API keys', () => {
  it('look like gcf_live_ and 32 base62 characters, and differ every time', () => {
    const keys = Array.from({ length: 50 }, () => generateApiKey(randomBytes));
    for (const key of keys) expect(key).toMatch(/^gcf_live_[0-9A-Za-z]{32}$/);
    expect(new Set(keys).size).toBe(50);
    expect(shownPrefixOf(keys[0]!)).toHaveLength(13);
  });

  it('use every base62 character with no bias from bytes above 247', () => {
    const counts = new Map<string, number>();
    for (const char of randomBase62(62_000, randomBytes)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(n).toBeGreaterThan(800); // 1,000 expected each
    // Bytes 248-255 are drawn again rather than folded onto 0-7.
    expect(randomBase62(4, () => Uint8Array.from([255, 250, 0, 1, 2, 3, 61, 62]))).toBe('0123');
  });

  it('are stored as SHA-256 hex', () => {
    expect(hashApiKey('gcf_live_abc')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey('gcf_live_abc')).not.toBe(hashApiKey('gcf_live_abd'));
  });

  it('are read from exactly one Bearer header', () => {
    const key = generateApiKey(randomBytes);
    expect(bearerKeyOf([`Bearer ${key}`])).toBe(key);
    expect(bearerKeyOf([`BEARER ${key}`])).toBe(key);
    const refusals: Array<[string[] | undefined, RegExp]> = [
      [undefined, /Missing Authorization/],
      [[], /Missing Authorization/],
      [[`Bearer ${key}`, `Bearer ${key}`], /exactly one/],
      [['Bearer'], /Bearer scheme/],
      [[`Basic ${key}`], /Bearer scheme/],
      [[`Bearer ${key} extra`], /Bearer scheme/],
      [['Bearer gcf_live_short'], /Malformed/],
      [[`Bearer ${key.slice(0, -1)}é`], /Malformed/],
      [[`Bearer ${key}x`], /Malformed/],
    ];
    for (const [values, message] of refusals) {
      let error: unknown;
      try {
        bearerKeyOf(values);
      } catch (caught) {
        error = caught;
      }
      expect(error, String(values)).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).status).toBe(401);
      expect((error as ServiceError).message).toMatch(message);
      expect((error as ServiceError).message).not.toContain(key);
    }
    expect(isWellFormedApiKey(`${key}\n`)).toBe(false);
  });
});

describe('quota arithmetic', () => {
  it('counts UTC days and the seconds to the next midnight', () => {
    expect(utcDayOf(new Date('2026-11-22T23:59:59.999Z'))).toBe('2026-11-22');
    expect(secondsUntilUtcMidnight(new Date('2026-11-22T23:59:00Z'))).toBe(60);
    expect(secondsUntilUtcMidnight(new Date('2026-11-22T00:00:00Z'))).toBe(86_400);
    expect(secondsUntilUtcMidnight(new Date('2026-11-22T23:59:59.900Z'))).toBe(1);
    expect(secondsUntilUtcMidnight(new Date('2028-02-28T12:00:00Z'))).toBe(43_200);
  });

  it('gives -1/-1 for unlimited tiers and never a negative remainder', () => {
    expect(rateLimitHeaders(TIERS.developer, 5)).toEqual({ 'X-RateLimit-Limit': '-1', 'X-RateLimit-Remaining': '-1' });
    expect(rateLimitHeaders(TIERS.basic, 1)).toEqual({ 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '999' });
    expect(rateLimitHeaders(TIERS.basic, 1200)).toEqual({ 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '0' });
  });
});

describe('latency histogram', () => {
  it('estimates percentiles within the bucket width', () => {
    const counts = new Array<number>(LATENCY_BUCKETS).fill(0);
    const times = Array.from({ length: 1000 }, (_, i) => 1 + i / 10); // 1 ms .. 100.9 ms, p50 ~ 51, p95 ~ 96
    for (const t of times) counts[latencyBucketOf(t)]! += 1;
    expect(percentileOf(counts, 0.5)!).toBeGreaterThan(51 / 1.13);
    expect(percentileOf(counts, 0.5)!).toBeLessThan(51 * 1.13);
    expect(percentileOf(counts, 0.95)!).toBeGreaterThan(96 / 1.13);
    expect(percentileOf(counts, 0.95)!).toBeLessThan(96 * 1.13);
    expect(percentileOf(new Array<number>(LATENCY_BUCKETS).fill(0), 0.5)).toBeNull();
    expect(latencyBucketOf(0)).toBe(0);
    expect(latencyBucketOf(1e9)).toBe(LATENCY_BUCKETS - 1);
  });
});

describe('admitRequest', () => {
  function meter(used: number, allowed = true): UsageMeter {
    return {
      consume: async (_k, _d, limit) => ({ allowed, used: allowed ? used + 1 : (limit ?? 0) }),
      used: async () => used,
      record: async () => {},
      history: async () => [],
      hourly: async () => [],
    };
  }
  const now = new Date('2026-11-22T12:00:00Z');
  const refusal = async (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a refusal');
      },
      (error: ServiceError) => error,
    );

  it('refuses the free tier with FORBIDDEN, and matching below pro (free included) with NO_API_ACCESS', async () => {
    const free = await refusal(admitRequest({ keyId: 'k', tier: 'free' }, 'api', meter(0), now));
    expect([free.status, free.code, free.headers]).toEqual([403, 'FORBIDDEN', { 'X-RateLimit-Limit': '0', 'X-RateLimit-Remaining': '0' }]);
    const freeMatching = await refusal(admitRequest({ keyId: 'k', tier: 'free' }, 'matching', meter(0), now));
    expect([freeMatching.status, freeMatching.code, freeMatching.headers]).toEqual([
      403,
      'NO_API_ACCESS',
      { 'X-RateLimit-Limit': '0', 'X-RateLimit-Remaining': '0' },
    ]);
    const basic = await refusal(admitRequest({ keyId: 'k', tier: 'basic' }, 'matching', meter(7), now));
    expect([basic.status, basic.code, basic.headers]).toEqual([403, 'NO_API_ACCESS', { 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '993' }]);
    await expect(admitRequest({ keyId: 'k', tier: 'pro' }, 'matching', meter(7), now)).resolves.toEqual({
      'X-RateLimit-Limit': '10000',
      'X-RateLimit-Remaining': '9992',
    });
    await expect(admitRequest({ keyId: 'k', tier: 'developer' }, 'matching', meter(7), now)).resolves.toEqual({
      'X-RateLimit-Limit': '-1',
      'X-RateLimit-Remaining': '-1',
    });
  });

  it('answers a spent quota with 429 RATE_LIMITED and Retry-After to midnight UTC', async () => {
    const spent = await refusal(admitRequest({ keyId: 'k', tier: 'basic' }, 'api', meter(1000, false), now));
    expect([spent.status, spent.code]).toEqual([429, 'RATE_LIMITED']);
    expect(spent.headers).toEqual({ 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '0', 'Retry-After': '43200' });
  });
});

describe('rotation grace periods', () => {
  const now = new Date('2026-11-28T12:00:00Z');
  it.each([1e20, 721, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses %s hours before touching a store, for keys and webhook secrets', async (hours) => {
    // The stores are never reached: a grace period out of range is refused first (a date past year 275760 once threw from toISOString).
    await expect(rotateKey({} as KeyStore, 'key_x', hours, randomBytes, now)).rejects.toThrow('the grace period must be 0 to 720 hours');
    await expect(rotateSecret({} as WebhookStore, 'sub_x', hours, now)).rejects.toThrow('the grace period must be 0 to 720 hours');
  });
});
