import { describe, expect, it } from 'vitest';
import { type DeliveryPorts, processDelivery, replayDelivery } from '../../lambdas/core/use-cases/deliver-webhook';
import { verifyServiceSignature } from '../../lambdas/core/webhooks/signature';
import type { Delivery } from '../../lambdas/ports/delivery-log';
import type { DeliveryMessage } from '../../lambdas/ports/delivery-queue';
import type { WebhookStore, WebhookSubscription } from '../../lambdas/ports/webhook-store';
import type { AttemptResult, WebhookAttempt } from '../../lambdas/ports/webhook-transport';
import { inMemoryDeliveryLog } from '../support/in-memory-delivery-log';
import { recordingMetrics } from '../support/recording-metrics';

/** The sender's decisions, one message at a time, with in-memory doubles for its ports. */

const SUBSCRIPTION: WebhookSubscription = {
  subscription_id: 'whk_1',
  key_id: 'key_1',
  url: 'https://hooks.example.com/gcf',
  events: ['grant.created'],
  days_before: 7,
  state: 'active',
  disabled_reason: null,
  secret: 'whsec_secret',
  previous_secret: null,
  previous_secret_valid_until: null,
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-01T00:00:00.000Z',
};

function harness(answers: (Partial<AttemptResult> | Error)[], dns: Record<string, string[]> = { 'hooks.example.com': ['93.184.216.34'] }) {
  let now = new Date('2026-11-22T10:00:00Z');
  const subscriptions = new Map([[SUBSCRIPTION.subscription_id, { ...SUBSCRIPTION }]]);
  const deliveries = new Map<string, Delivery>();
  const sent: { message: DeliveryMessage; delaySeconds: number }[] = [];
  const deadLetters: DeliveryMessage[] = [];
  const attempts: WebhookAttempt[] = [];
  const log = inMemoryDeliveryLog(deliveries);
  const webhooks = {
    get: async (id: string) => subscriptions.get(id) ?? null,
    update: async (id: string, changes: Partial<WebhookSubscription>) => {
      const next = { ...subscriptions.get(id)!, ...changes };
      subscriptions.set(id, next);
      return next;
    },
  } as unknown as WebhookStore;
  const ports: DeliveryPorts = {
    webhooks,
    log,
    queue: {
      maxDelaySeconds: 900,
      send: async (message, delaySeconds) => void sent.push({ message, delaySeconds }),
      deadLetter: async (message) => void deadLetters.push(message),
    },
    transport: {
      send: async (attempt) => {
        attempts.push(attempt);
        const answer = answers.shift() ?? { status: 500 };
        if (answer instanceof Error) throw answer;
        return { status: null, retryAfter: null, responseExcerpt: '', latencyMs: 12, error: null, ...answer };
      },
    },
    resolver: { resolve: async (host) => dns[host] ?? [] },
    clock: { now: () => now },
    random: () => 0.5,
    metrics: recordingMetrics(),
  };
  const body = '{"event":"grant.created","data":{"id":"g1"}}';
  deliveries.set('dlv_1', {
    delivery_id: 'dlv_1',
    subscription_id: 'whk_1',
    event_id: 'evt_1',
    event: 'grant.created',
    body,
    status: 'pending',
    attempts: 0,
    last_status_code: null,
    last_error: null,
    last_latency_ms: null,
    last_response: null,
    next_attempt_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    delivered_at: null,
  });
  return {
    ports,
    deliveries,
    subscriptions,
    sent,
    deadLetters,
    attempts,
    body,
    advance: (seconds: number) => {
      now = new Date(now.getTime() + seconds * 1000);
    },
    process: () => processDelivery(ports, { delivery_id: 'dlv_1' }, { mode: 'aws', schedule: [60, 3600] }),
  };
}

describe('processDelivery', () => {
  it('sends the stored body, signed, to the checked address, and logs a 2xx as delivered', async () => {
    const h = harness([{ status: 204 }]);
    expect(await h.process()).toBe('delivered');
    const [attempt] = h.attempts;
    expect(attempt).toMatchObject({ url: 'https://hooks.example.com/gcf', addresses: ['93.184.216.34'], body: h.body, timeoutMs: 10_000 });
    expect(verifyServiceSignature(h.body, attempt!.headers['X-Service-Signature'], 'whsec_secret')).toBe(true);
    expect(attempt!.headers['X-Service-Event-Id']).toBe('evt_1');
    expect(h.deliveries.get('dlv_1')).toMatchObject({
      status: 'delivered',
      attempts: 1,
      last_status_code: 204,
      last_latency_ms: 12,
      delivered_at: '2026-11-22T10:00:00.000Z',
    });
    // A redelivered queue message sends nothing again.
    expect(await h.process()).toBe('delivered');
    expect(h.attempts).toHaveLength(1);
  });

  it('retries on the schedule, honours Retry-After, then fails to the dead-letter queue', async () => {
    const h = harness([{ status: 500 }, { status: 503, retryAfter: '7200' }, { status: null, error: 'ECONNREFUSED' }]);
    expect(await h.process()).toBe('retrying');
    expect(h.sent.at(-1)).toEqual({ message: { delivery_id: 'dlv_1' }, delaySeconds: 60 });
    expect(h.deliveries.get('dlv_1')).toMatchObject({ status: 'retrying', attempts: 1, last_status_code: 500, next_attempt_at: '2026-11-22T10:01:00.000Z' });

    // Too early (a duplicate message): back on the queue for the rest of the wait, nothing sent.
    h.advance(30);
    expect(await h.process()).toBe('not_due');
    expect(h.sent.at(-1)!.delaySeconds).toBe(30);
    expect(h.attempts).toHaveLength(1);

    h.advance(30);
    expect(await h.process()).toBe('retrying');
    // Retry-After (2 h) is longer than the schedule's 1 h; the queue carries at most 900 s at a time.
    expect(h.deliveries.get('dlv_1')!.next_attempt_at).toBe('2026-11-22T12:01:00.000Z');
    expect(h.sent.at(-1)!.delaySeconds).toBe(900);

    h.advance(7200);
    expect(await h.process()).toBe('failed');
    expect(h.deliveries.get('dlv_1')).toMatchObject({ status: 'failed', attempts: 3, last_error: 'ECONNREFUSED', next_attempt_at: null });
    expect(h.deadLetters).toEqual([{ delivery_id: 'dlv_1' }]);

    // Replay: a fresh schedule, the same event id and body.
    expect(await replayDelivery(h.ports, 'dlv_1')).toMatchObject({ status: 'pending', attempts: 0 });
    expect(h.sent.at(-1)).toEqual({ message: { delivery_id: 'dlv_1' }, delaySeconds: 0 });
  });

  it('disables the subscription on 410 Gone, and skips deliveries of a disabled one', async () => {
    const h = harness([{ status: 410 }]);
    expect(await h.process()).toBe('gone');
    expect(h.subscriptions.get('whk_1')).toMatchObject({ state: 'disabled', disabled_reason: 'the receiver answered 410 Gone' });
    h.deliveries.set('dlv_1', { ...h.deliveries.get('dlv_1')!, status: 'pending' });
    expect(await h.process()).toBe('skipped');
    expect(h.attempts).toHaveLength(1);
  });

  it('checks the destination before every attempt: a name now resolving inside is a failed attempt, never a request', async () => {
    const h = harness([{ status: 204 }], { 'hooks.example.com': ['10.0.0.7'] });
    expect(await h.process()).toBe('retrying');
    expect(h.attempts).toHaveLength(0);
    expect(h.deliveries.get('dlv_1')!.last_error).toMatch(/10\.0\.0\.7 is a private address/);
  });
});

describe('a failing receiver (its failure run)', () => {
  /** A fresh pending delivery of the same event, as the next event to the same receiver would be. */
  const nextDelivery = (h: ReturnType<typeof harness>) => {
    h.deliveries.set('dlv_1', { ...h.deliveries.get('dlv_1')!, status: 'pending', attempts: 0, next_attempt_at: null });
    return h.process();
  };
  const recorded = (h: ReturnType<typeof harness>) => (h.ports.metrics as ReturnType<typeof recordingMetrics>).recorded;

  it('marks when the run began, counts each attempt per subscription, and ends the run at the first 2xx', async () => {
    const h = harness([{ status: 503 }, { status: 500 }, { status: 204 }]);
    expect(await h.process()).toBe('retrying');
    expect(h.subscriptions.get('whk_1')!.failing_since).toBe('2026-11-22T10:00:00.000Z');
    h.advance(600);
    expect(await h.process()).toBe('retrying');
    // The run's start stays where it was; the metric says how long it has lasted.
    expect(h.subscriptions.get('whk_1')!.failing_since).toBe('2026-11-22T10:00:00.000Z');
    expect(
      recorded(h)
        .filter((m) => m.name === 'WebhookReceiverFailingSeconds')
        .map((m) => m.value),
    ).toEqual([0, 600]);
    h.advance(3_600);
    expect(await h.process()).toBe('delivered');
    expect(h.subscriptions.get('whk_1')!.failing_since).toBeNull();
    expect(
      recorded(h)
        .filter((m) => m.name === 'WebhookSubscriptionAttempts')
        .map((m) => m.dimensions),
    ).toEqual([{ subscription: 'whk_1' }, { subscription: 'whk_1' }, { subscription: 'whk_1' }]);
    expect(recorded(h).filter((m) => m.name === 'WebhookSubscriptionFailures')).toHaveLength(2);
  });

  it('disables the subscription once its receiver has failed every attempt for 3 days, saying why; later deliveries are skipped', async () => {
    const h = harness([]);
    expect(await h.process()).toBe('retrying');
    h.advance(3 * 86_400 - 1);
    expect(await nextDelivery(h)).toBe('retrying');
    expect(h.subscriptions.get('whk_1')!.state).toBe('active');
    h.advance(1);
    expect(await nextDelivery(h)).toBe('retrying');
    expect(h.subscriptions.get('whk_1')).toMatchObject({
      state: 'disabled',
      disabled_reason: 'the receiver has failed every attempt since 2026-11-22T10:00:00.000Z (3 days); fix it, then enable the subscription',
    });
    expect(await nextDelivery(h)).toBe('skipped');
    expect(h.attempts).toHaveLength(3);
  });

  it('does not count a 410 Gone as a failure run: it disables the subscription at once, as before', async () => {
    const h = harness([{ status: 410 }]);
    expect(await h.process()).toBe('gone');
    expect(h.subscriptions.get('whk_1')!.failing_since).toBeUndefined();
    expect(h.subscriptions.get('whk_1')!.state).toBe('disabled');
  });
});
