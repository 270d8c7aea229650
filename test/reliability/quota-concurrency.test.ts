import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tierPoliciesWith } from '../../lambdas/core/auth/tier-quotas';
import type { TierName } from '../../lambdas/core/auth/tiers';
import { createKey } from '../../lambdas/core/use-cases/manage-keys';
import type { Clock } from '../../lambdas/ports/clock';
import { type EmbeddedStack, startEmbeddedStack } from '../../local/embedded-stack';
import { type ServedApi, serveOverHttp } from '../support/api-server';
import { conformingFetch } from '../support/openapi-conformance';

/**
 * The daily quota under a burst: 500 requests at once over real HTTP against one key, and two
 * keys at once. The quota is one conditional atomic counter (DynamoDB's; dynalite's locally), so
 * exactly `quota` requests may pass however they interleave. The deployment's quotas are set as a
 * stage sets them (Services.tiers), so the burst is a few hundred requests, not a thousand.
 */

const SMALL = { funders: 10, grants: 40, contracts: 15, awardedGrants: 4, awardedContracts: 2 };
const QUOTAS = { basic: 250, pro: 100 } as const;
const NOON: Clock = { now: () => new Date('2026-11-22T12:00:00Z') };
const DAY = '2026-11-22';

let stack: EmbeddedStack;
let served: ServedApi;
let baseUrl: string;

beforeAll(async () => {
  stack = await startEmbeddedStack({ seed: SMALL, clock: NOON });
  // Unthrottled: the clock stands still, so the tiers' request rates (test/integration/rate-limits.test.ts) would refuse first.
  const tiers = tierPoliciesWith({
    basic: { dailyQuota: QUOTAS.basic, throttle: null },
    pro: { dailyQuota: QUOTAS.pro, throttle: null },
  });
  // A burst of up to 1,000 connections at once: over the local server's default connection limit.
  served = await serveOverHttp({ ...stack.services, tiers }, stack.services, { limits: { maxConnections: 2_000 } });
  baseUrl = served.baseUrl;
});
afterAll(async () => {
  await served?.close();
  await stack?.close();
});

interface Answer {
  status: number;
  body: { error?: { code: string; message: string } };
  limit: string | null;
  remaining: string | null;
  retryAfter: string | null;
}

/** One request with the key, answered. */
async function request(key: string, path: string): Promise<Answer> {
  const res = await conformingFetch(`${baseUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  return {
    status: res.status,
    body: (await res.json()) as Answer['body'],
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
    retryAfter: res.headers.get('retry-after'),
  };
}

/** `count` requests with the key, all sent at once. */
function burst(key: string, count: number, path = '/grants-api?limit=1'): Promise<Answer[]> {
  return Promise.all(Array.from({ length: count }, () => request(key, path)));
}

async function newKey(tier: TierName, label: string) {
  return createKey(stack.services.keys, { tier, owner: 'reliability@example.org', label }, randomBytes, NOON.now());
}

/** The quota held: `quota` 200s counting the remaining figure down through every value once, the rest 429 with the error body. */
function expectExactQuota(answers: Answer[], quota: number): void {
  const passed = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status !== 200);
  expect(passed).toHaveLength(quota);
  expect(refused.map((a) => a.status)).toEqual(Array(answers.length - quota).fill(429));
  // Each admitted request saw its own count: remaining quota-1 ... 0, each exactly once.
  expect(passed.map((a) => Number(a.remaining)).sort((a, b) => a - b)).toEqual(Array.from({ length: quota }, (_, i) => i));
  expect(new Set(answers.map((a) => a.limit))).toEqual(new Set([String(quota)]));
  for (const answer of refused) {
    expect(answer.body).toEqual({
      error: {
        code: 'RATE_LIMITED',
        message: `Daily quota of ${quota} requests reached; it resets at 00:00 UTC`,
        request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    });
    expect(answer.remaining).toBe('0');
    expect(answer.retryAfter).toBe('43200'); // 12:00 UTC -> 00:00 UTC
  }
}

describe('daily quota under concurrent requests', () => {
  it('500 requests at once against a quota of 250: exactly 250 pass, 250 are 429, the counter reads 250', async () => {
    const { key, record } = await newKey('basic', 'burst');
    const answers = await burst(key, 500);
    expectExactQuota(answers, QUOTAS.basic);
    // Refused requests are not counted against the quota; every response is in the usage figures.
    expect(await stack.services.meter.used(record.key_id, DAY)).toBe(QUOTAS.basic);
    const [today] = await stack.services.meter.history(record.key_id, 1);
    expect(today).toMatchObject({ day: DAY, requests: 250, responses: 500, errors: 250 });
    // And the key stays refused after the burst.
    const [after] = await burst(key, 1);
    expect(after).toMatchObject({ status: 429, remaining: '0' });
  }, 60_000);

  it('two keys bursting at once (500 each, interleaved) each get exactly their own quota', async () => {
    const basic = await newKey('basic', 'pair-basic');
    const pro = await newKey('pro', 'pair-pro');
    // Sent alternately, one of each key after the other, all before any answer.
    const answers = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? request(basic.key, '/funders-api?limit=1') : request(pro.key, '/contracts-api?limit=1'))),
    );
    expectExactQuota(
      answers.filter((_, i) => i % 2 === 0),
      QUOTAS.basic,
    );
    expectExactQuota(
      answers.filter((_, i) => i % 2 === 1),
      QUOTAS.pro,
    );
    expect(await stack.services.meter.used(basic.record.key_id, DAY)).toBe(QUOTAS.basic);
    expect(await stack.services.meter.used(pro.record.key_id, DAY)).toBe(QUOTAS.pro);
    const [basicDay] = await stack.services.meter.history(basic.record.key_id, 1);
    const [proDay] = await stack.services.meter.history(pro.record.key_id, 1);
    expect(basicDay).toMatchObject({ requests: 250, responses: 500, errors: 250 });
    expect(proDay).toMatchObject({ requests: 100, responses: 500, errors: 400 });
  }, 60_000);
});
