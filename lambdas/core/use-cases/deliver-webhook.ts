import type { Clock } from '../../ports/clock';
import type { Delivery, DeliveryLog } from '../../ports/delivery-log';
import type { DeliveryMessage, DeliveryQueue } from '../../ports/delivery-queue';
import type { HostResolver } from '../../ports/host-resolver';
import type { MetricsRecorder } from '../../ports/metrics';
import type { WebhookStore, WebhookSubscription } from '../../ports/webhook-store';
import type { AttemptResult, WebhookTransport } from '../../ports/webhook-transport';
import { METRIC_NAMES } from '../metric-names';
import { DELIVERY_TIMEOUT_MS, deliveryHeaders, nextRetryDelay, RETRY_SCHEDULE_SECONDS, retryAfterSeconds, verdictOf } from '../webhooks/delivery-policy';
import { type DestinationMode, DestinationRefused, resolveDestination } from '../webhooks/destination-policy';
import { failingSeconds, receiverHealthAfter } from '../webhooks/receiver-health';

export interface DeliveryPorts {
  webhooks: WebhookStore;
  log: DeliveryLog;
  queue: DeliveryQueue;
  transport: WebhookTransport;
  resolver: HostResolver;
  clock: Clock;
  random: () => number;
  /** Each attempt per subscription, and how long a failing receiver has failed (the on-call alarm). */
  metrics?: MetricsRecorder;
}

export interface DeliveryOptions {
  mode: DestinationMode;
  /** Seconds before each retry (tests use a fast one). */
  schedule?: readonly number[];
  timeoutMs?: number;
}

export type DeliveryOutcome = Delivery['status'] | 'not_due' | 'unknown';

/**
 * One message off the webhook queue: at most one attempt, then the delivery log says what
 * happened and, when another attempt is due, the message goes back on the queue with its delay.
 *
 * - Idempotent: a delivery already delivered, failed, gone or skipped is not sent again (SQS may
 *   hand a message over twice).
 * - A message that arrives before its delivery is due (a wait longer than the queue's longest
 *   delay) goes back for the rest of the wait.
 * - The destination is checked again before every attempt (DNS rebinding); a refusal is a failed
 *   attempt, retried on the schedule like an unreachable receiver.
 * - A disabled or deleted subscription skips the delivery; 410 Gone disables the subscription.
 * - After the schedule's last attempt the delivery fails and the message is dead-lettered;
 *   `replay` can send it again.
 */
export async function processDelivery(ports: DeliveryPorts, message: DeliveryMessage, options: DeliveryOptions): Promise<DeliveryOutcome> {
  const delivery = await ports.log.get(message.delivery_id);
  if (!delivery) return 'unknown';
  if (delivery.status !== 'pending' && delivery.status !== 'retrying') return delivery.status;
  const now = ports.clock.now();
  if (delivery.next_attempt_at && delivery.next_attempt_at > now.toISOString()) {
    const waitSeconds = (Date.parse(delivery.next_attempt_at) - now.getTime()) / 1000;
    await ports.queue.send(message, Math.min(waitSeconds, ports.queue.maxDelaySeconds));
    return 'not_due';
  }

  const subscription = await ports.webhooks.get(delivery.subscription_id);
  if (subscription?.state !== 'active') {
    await ports.log.save({
      ...delivery,
      status: 'skipped',
      last_error: subscription ? `subscription disabled: ${subscription.disabled_reason ?? ''}` : 'subscription deleted',
      updated_at: now.toISOString(),
      next_attempt_at: null,
    });
    return 'skipped';
  }

  const result = await attemptWebhook(ports, subscription, delivery.body, delivery.event_id, now, options.mode, options.timeoutMs ?? DELIVERY_TIMEOUT_MS);

  const attempted: Delivery = {
    ...delivery,
    attempts: delivery.attempts + 1,
    last_status_code: result.status,
    last_error: result.error,
    last_latency_ms: result.latencyMs,
    last_response: result.responseExcerpt || null,
    updated_at: ports.clock.now().toISOString(),
  };
  const verdict = verdictOf(result.status);
  if (verdict !== 'gone') await noteReceiverHealth(ports, subscription, verdict === 'delivered', now);
  if (verdict === 'delivered') {
    await ports.log.save({ ...attempted, status: 'delivered', delivered_at: attempted.updated_at, next_attempt_at: null });
    return 'delivered';
  }
  if (verdict === 'gone') {
    await ports.webhooks.update(subscription.subscription_id, {
      state: 'disabled',
      disabled_reason: 'the receiver answered 410 Gone',
      updated_at: attempted.updated_at,
    });
    await ports.log.save({ ...attempted, status: 'gone', next_attempt_at: null });
    return 'gone';
  }
  const delay = nextRetryDelay(attempted.attempts, retryAfterSeconds(result.retryAfter, now), ports.random, options.schedule ?? RETRY_SCHEDULE_SECONDS);
  if (delay === null) {
    await ports.log.save({ ...attempted, status: 'failed', next_attempt_at: null });
    await ports.queue.deadLetter(message);
    return 'failed';
  }
  const nextAttemptAt = new Date(now.getTime() + delay * 1000).toISOString();
  await ports.log.save({ ...attempted, status: 'retrying', next_attempt_at: nextAttemptAt });
  await ports.queue.send(message, Math.min(delay, ports.queue.maxDelaySeconds));
  return 'retrying';
}

/**
 * One signed POST of `body` to the subscription's URL, its destination checked first (DNS
 * rebinding): a refused destination is a failed attempt with its reason, never a request. Every
 * delivery attempt and `webhooks test` send through here.
 */
export async function attemptWebhook(
  ports: Pick<DeliveryPorts, 'transport' | 'resolver'>,
  subscription: WebhookSubscription,
  body: string,
  eventId: string,
  now: Date,
  mode: DestinationMode,
  timeoutMs: number,
): Promise<AttemptResult> {
  try {
    const destination = await resolveDestination(subscription.url, mode, ports.resolver);
    return await ports.transport.send({
      url: destination.url.toString(),
      addresses: destination.addresses,
      body,
      headers: deliveryHeaders(body, subscription, eventId, now),
      timeoutMs,
    });
  } catch (error) {
    if (!(error instanceof DestinationRefused)) throw error;
    return { status: null, retryAfter: null, responseExcerpt: '', latencyMs: 0, error: error.message };
  }
}

/**
 * The subscription's failure run after an attempt (core/webhooks/receiver-health.ts): stored only
 * when it begins or ends, so a failing receiver costs no write per attempt; a run of 3 days
 * disables the subscription. Counted per subscription for its failure rate.
 */
async function noteReceiverHealth(ports: DeliveryPorts, subscription: WebhookSubscription, delivered: boolean, now: Date): Promise<void> {
  const dimensions = { subscription: subscription.subscription_id };
  ports.metrics?.record(METRIC_NAMES.webhookSubscriptionAttempts, 'Count', 1, dimensions);
  if (!delivered) ports.metrics?.record(METRIC_NAMES.webhookSubscriptionFailures, 'Count', 1, dimensions);
  const change = receiverHealthAfter(subscription, delivered, now);
  const updatedAt = now.toISOString();
  switch (change.kind) {
    case 'none':
      return;
    case 'recovered':
      await ports.webhooks.update(subscription.subscription_id, { failing_since: null, updated_at: updatedAt });
      return;
    case 'began':
      await ports.webhooks.update(subscription.subscription_id, { failing_since: change.failingSince, updated_at: updatedAt });
      ports.metrics?.record(METRIC_NAMES.webhookReceiverFailingSeconds, 'Seconds', 0);
      return;
    case 'failing':
      ports.metrics?.record(METRIC_NAMES.webhookReceiverFailingSeconds, 'Seconds', failingSeconds(change.failingSince, now));
      return;
    case 'disable':
      ports.metrics?.record(METRIC_NAMES.webhookReceiverFailingSeconds, 'Seconds', failingSeconds(change.failingSince, now));
      await ports.webhooks.update(subscription.subscription_id, { state: 'disabled', disabled_reason: change.reason, updated_at: updatedAt });
  }
}

/** Sends a failed (or any finished) delivery again: a fresh schedule, the same event id and body. */
export async function replayDelivery(ports: Pick<DeliveryPorts, 'log' | 'queue' | 'clock'>, deliveryId: string): Promise<Delivery | null> {
  const delivery = await ports.log.get(deliveryId);
  if (!delivery) return null;
  const replayed: Delivery = { ...delivery, status: 'pending', attempts: 0, next_attempt_at: null, updated_at: ports.clock.now().toISOString() };
  await ports.log.save(replayed);
  await ports.queue.send({ delivery_id: deliveryId }, 0);
  return replayed;
}
