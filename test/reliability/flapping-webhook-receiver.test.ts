import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Grant } from '../../lambdas/core/records';
import { createKey } from '../../lambdas/core/use-cases/manage-keys';
import { addSubscription } from '../../lambdas/core/use-cases/manage-webhooks';
import { verifyServiceSignature } from '../../lambdas/core/webhooks/signature';
import type { Delivery } from '../../lambdas/ports/delivery-log';
import { type EmbeddedStack, startEmbeddedStack } from '../../local/embedded-stack';
import { DEFAULT_CATALOGUE, generateFunders, generateGrants } from '../../local/synthetic-catalogue';
import { type FlappingReceiver, startFlappingReceiver } from './helpers/flapping-receiver';

/**
 * A subscriber whose receiver flaps (500s, hangs, resets, a closed port, answers lost after the
 * request arrived) while a stream of created, updated and deadline events is produced: the local
 * webhook dispatcher's retry path (the production delivery code with a schedule of seconds) must
 * deliver every event, each at least once, signed, with the same id and body on every attempt,
 * and send nothing to the dead-letter queue. The flapping lasts a few seconds, well inside the
 * retry schedule, as a real outage lasts well inside the production one (about two days).
 */

const CREATED = 30;
const UPDATED = 15;
const DEADLINES = 10;
const EVENTS = CREATED + UPDATED + DEADLINES;
/** Seconds before each retry: 15 attempts over about 10 s (the flapping stops after FLAP_MS). */
const SCHEDULE = [0.05, 0.1, 0.15, 0.25, 0.4, 0.6, 0.8, 1, 1, 1, 1, 1, 1, 1];
const FLAP_MS = 4_000;
const SEED = 20261125;

let stack: EmbeddedStack;
let receiver: FlappingReceiver;

beforeAll(async () => {
  receiver = await startFlappingReceiver({ seed: SEED, upMs: [60, 250], downMs: [40, 220] });
  stack = await startEmbeddedStack({ seed: false, webhooks: { schedule: SCHEDULE, timeoutMs: 250, subscriptionCacheMs: 0 } });
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhooks to a flapping receiver', () => {
  it(`delivers every one of ${EVENTS} events at least once, signed, nothing dead-lettered`, async () => {
    const started = Date.now();
    const keyId = (await createKey(stack.services.keys, { tier: 'developer', owner: 'flap@example.org', label: '' }, randomBytes, new Date())).record.key_id;
    const { secret, subscription } = await addSubscription(
      { webhooks: stack.webhooks, keys: stack.services.keys, resolver: { resolve: async () => ['127.0.0.1'] } },
      { keyId, url: `${receiver.url}/hooks`, events: ['grant.created', 'grant.updated', 'grant.deadline_approaching'], daysBefore: 7 },
      'local',
      new Date(),
    );

    const spec = { ...DEFAULT_CATALOGUE, funders: 3, grants: CREATED, awardedGrants: 0, contracts: 0, awardedContracts: 0, today: '2026-11-22' };
    const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    // The first DEADLINES grants are open with a deadline inside the subscription's window; the rest are far off.
    const grants: Grant[] = [...generateGrants(spec, generateFunders(spec))].flat().map((grant, i) => ({
      ...grant,
      opportunity_type: 'open',
      status: 'posted',
      project_end_date: null,
      deadline_date: i < DEADLINES ? inDays(3) : inDays(200),
    }));

    // The stream: creations in small batches, then amendments, then the deadline scan, spread over the flapping.
    for (let i = 0; i < CREATED; i += 5) {
      await stack.services.store.put('grant', grants.slice(i, i + 5));
      await sleep(150);
    }
    for (let i = 0; i < UPDATED; i += 3) {
      await stack.services.store.put(
        'grant',
        grants.slice(i, i + 3).map((grant) => ({ ...grant, title: `${grant.title} (amended)` })),
      );
      await sleep(150);
    }
    expect(await stack.webhookDispatcher!.scanDeadlines()).toBe(DEADLINES);
    await sleep(Math.max(0, FLAP_MS - (Date.now() - started)));
    await receiver.settle();

    // Every event has a delivery; wait until none is pending or retrying.
    let deliveries: Delivery[] = [];
    for (let waited = 0; ; waited += 100) {
      deliveries = await stack.deliveries.list(subscription.subscription_id, 1000);
      if (deliveries.length === EVENTS && deliveries.every((d) => d.status !== 'pending' && d.status !== 'retrying')) break;
      if (waited > 30_000)
        throw new Error(
          `not finished after 30 s: ${JSON.stringify(deliveries.map((d) => [d.event, d.status, d.attempts, d.last_error ?? d.last_status_code]))}`,
        );
      await sleep(100);
    }
    await stack.webhookDispatcher!.settle();

    const byType = (type: string) => deliveries.filter((d) => d.event === type).length;
    expect([byType('grant.created'), byType('grant.updated'), byType('grant.deadline_approaching')]).toEqual([CREATED, UPDATED, DEADLINES]);
    expect(deliveries.filter((d) => d.status !== 'delivered').map((d) => [d.event_id, d.status, d.attempts, d.last_error ?? d.last_status_code])).toEqual([]);
    expect(stack.webhookDispatcher!.queue.deadLetters).toEqual([]);

    // The receiver's side: exactly the set of event ids, each acknowledged at least once.
    const expectedIds = new Set(deliveries.map((d) => d.event_id));
    expect(expectedIds.size).toBe(EVENTS);
    const acknowledged = receiver.received.filter((r) => r.acknowledged);
    const eventIdOf = (r: { headers: Record<string, unknown> }) => String(r.headers['x-service-event-id']);
    expect(new Set(acknowledged.map(eventIdOf))).toEqual(expectedIds);
    // Anything that arrived is one of them, signed, and the same bytes on every attempt of an event.
    const bodies = new Map<string, Set<string>>();
    for (const request of receiver.received) {
      expect(expectedIds.has(eventIdOf(request))).toBe(true);
      expect(verifyServiceSignature(request.body, String(request.headers['x-service-signature']), secret)).toBe(true);
      bodies.set(eventIdOf(request), (bodies.get(eventIdOf(request)) ?? new Set()).add(request.body));
    }
    expect([...bodies.values()].every((set) => set.size === 1)).toBe(true);
    for (const delivery of deliveries) expect(bodies.get(delivery.event_id)).toEqual(new Set([delivery.body]));

    // The flapping did happen: every way of being down was met, and many attempts failed.
    expect([...receiver.phases.keys()].sort()).toEqual(['500', 'ack-lost', 'closed', 'hang', 'reset', 'up']);
    const attempts = deliveries.reduce((sum, d) => sum + d.attempts, 0);
    expect(attempts).toBeGreaterThan(EVENTS);
    const lostAnswers = receiver.received.filter((r) => r.phase === 'ack-lost').length;
    console.info(
      `flapping receiver: ${EVENTS} events, ${attempts} attempts, ${receiver.received.length} requests received, ${lostAnswers} of them received but their answer lost (sent again); phases ${JSON.stringify(Object.fromEntries(receiver.phases))}`,
    );
  }, 60_000);
});
