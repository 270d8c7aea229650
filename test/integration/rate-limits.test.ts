import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateWindowOf } from '../../lambdas/core/auth/rate-window';
import { TIERS } from '../../lambdas/core/auth/tiers';
import { createKey } from '../../lambdas/core/use-cases/manage-keys';
import { startTestApi, type TestApi } from '../support/api-server';
import { movableClock } from '../support/movable-clock';

/**
 * Each tier's request rate per key (lambdas/core/auth/rate-window.ts), counted by the usage meter
 * in the key's daily item, over real HTTP against the embedded stack with a clock the test moves.
 */

const SMALL = { funders: 10, grants: 20, contracts: 5, awardedGrants: 2, awardedContracts: 1 };
const PATH = '/funders-api?limit=1&count_only=true';

describe('request rate per key', () => {
  let api: TestApi;
  // 10:00:00.500: a basic window (2 s) runs from 10:00:00 to 10:00:02.
  const clock = movableClock('2026-11-29T10:00:00.500Z');
  beforeAll(async () => {
    api = await startTestApi({ seed: SMALL, clock });
  });
  afterAll(() => api?.close());

  const newKey = async (tier: 'basic' | 'pro' | 'developer') =>
    (await createKey(api.stack.services.keys, { tier, owner: 'test', label: `rate ${tier}` }, randomBytes, clock.now())).key;
  const burst = async (key: string, count: number) => Promise.all(Array.from({ length: count }, () => api.get(PATH, { key })));

  it("a basic key gets exactly its burst (20) in one window; the rest are 429 with Retry-After to the window's end", async () => {
    const key = await newKey('basic');
    const responses = await burst(key, 35);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(20);
    const refused = responses.filter((r) => r.status === 429);
    expect(refused).toHaveLength(15);
    for (const response of refused) {
      expect(response.body.error.code).toBe('RATE_LIMITED');
      expect(response.body.error.message).toBe('The basic tier allows 10 requests a second per key (bursts of 20); retry in 2 s');
      expect(response.headers.get('retry-after')).toBe('2');
      // Refused requests do not count against the day: 20 of 1,000 spent.
      expect(response.headers.get('x-ratelimit-remaining')).toBe('980');
    }

    clock.set('2026-11-29T10:00:02.000Z');
    const next = await burst(key, 5);
    expect(next.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(Math.min(...next.map((r) => Number(r.headers.get('x-ratelimit-remaining'))))).toBe(975);
  });

  it('keys are limited apart: a second basic key has its own window', async () => {
    clock.set('2026-11-29T10:00:04.000Z');
    const [first, second] = [await newKey('basic'), await newKey('basic')];
    expect((await burst(first, 25)).filter((r) => r.status === 200)).toHaveLength(20);
    expect((await burst(second, 10)).every((r) => r.status === 200)).toBe(true);
  });

  it('a pro key bursts to 100; a developer key is not throttled', async () => {
    clock.set('2026-11-29T10:00:06.000Z');
    expect((await burst(await newKey('pro'), 110)).filter((r) => r.status === 200)).toHaveLength(100);
    expect((await burst(await newKey('developer'), 150)).every((r) => r.status === 200)).toBe(true);
  });

  it('the meter admits exactly the window limit under concurrency, and opens the next window once', async () => {
    const { record } = await createKey(api.stack.services.keys, { tier: 'basic', owner: 'test', label: 'meter' }, randomBytes, clock.now());
    const now = new Date('2026-11-29T11:00:00.000Z');
    const window = rateWindowOf(TIERS.basic.throttle, now);
    const outcomes = await Promise.all(Array.from({ length: 60 }, () => api.stack.services.meter.consume(record.key_id, '2026-11-29', 1000, now, window)));
    expect(outcomes.filter((o) => o.allowed)).toHaveLength(20);
    expect(new Set(outcomes.filter((o) => !o.allowed).map((o) => o.refusedBy))).toEqual(new Set(['rate']));
    const later = new Date('2026-11-29T11:00:02.000Z');
    const reopened = await Promise.all(
      Array.from({ length: 30 }, () => api.stack.services.meter.consume(record.key_id, '2026-11-29', 1000, later, rateWindowOf(TIERS.basic.throttle, later))),
    );
    expect(reopened.filter((o) => o.allowed)).toHaveLength(20);
    expect(await api.stack.services.meter.used(record.key_id, '2026-11-29')).toBe(40);
  });

  it('the daily quota still refuses first when both are spent, naming the quota', async () => {
    const { record } = await createKey(api.stack.services.keys, { tier: 'basic', owner: 'test', label: 'both' }, randomBytes, clock.now());
    const now = new Date('2026-11-29T12:00:00.000Z');
    const window = rateWindowOf(TIERS.basic.throttle, now);
    const outcomes = await Promise.all(Array.from({ length: 30 }, () => api.stack.services.meter.consume(record.key_id, '2026-11-29', 5, now, window)));
    expect(outcomes.filter((o) => o.allowed)).toHaveLength(5);
    expect(new Set(outcomes.filter((o) => !o.allowed).map((o) => o.refusedBy))).toEqual(new Set(['quota']));
  });
});
