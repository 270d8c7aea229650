import type { WebhookSubscription } from '../../ports/webhook-store';

/**
 * A receiver's run of failed attempts: when it began, and when it has gone on long enough that the
 * subscription is disabled instead of retried for ever. A run spans deliveries (each delivery
 * gives up after about 45 hours; its events go to the dead-letter queue), and any 2xx ends it.
 */

/** A receiver failing every attempt for this long has its subscription disabled (3 days). */
export const RECEIVER_FAILURE_LIMIT_MS = 3 * 86_400_000;

/** What one attempt's answer changes on the subscription: nothing, the run's start or end, or disabling it. */
export type ReceiverHealthChange =
  | { kind: 'none' }
  | { kind: 'recovered' }
  | { kind: 'began'; failingSince: string }
  | { kind: 'failing'; failingSince: string }
  | { kind: 'disable'; failingSince: string; reason: string };

export function receiverHealthAfter(subscription: Pick<WebhookSubscription, 'failing_since'>, delivered: boolean, now: Date): ReceiverHealthChange {
  const since = subscription.failing_since ?? null;
  if (delivered) return since ? { kind: 'recovered' } : { kind: 'none' };
  if (!since) return { kind: 'began', failingSince: now.toISOString() };
  if (now.getTime() - Date.parse(since) >= RECEIVER_FAILURE_LIMIT_MS) {
    return {
      kind: 'disable',
      failingSince: since,
      reason: `the receiver has failed every attempt since ${since} (3 days); fix it, then enable the subscription`,
    };
  }
  return { kind: 'failing', failingSince: since };
}

/** Seconds the receiver has been failing at `now`, for the WebhookReceiverFailingSeconds metric. */
export function failingSeconds(failingSince: string, now: Date): number {
  return Math.max(0, Math.round((now.getTime() - Date.parse(failingSince)) / 1000));
}
