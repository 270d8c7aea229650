import { randomUUID } from 'node:crypto';
import type { Clock } from '../../ports/clock';
import type { HostResolver } from '../../ports/host-resolver';
import { WebhookConflict, type WebhookStore } from '../../ports/webhook-store';
import type { WebhookTransport } from '../../ports/webhook-transport';
import { type AttemptVerdict, DELIVERY_TIMEOUT_MS, verdictOf, webhookBody } from '../webhooks/delivery-policy';
import type { DestinationMode } from '../webhooks/destination-policy';
import { WEBHOOK_TEST_EVENT } from '../webhooks/events';
import { attemptWebhook } from './deliver-webhook';

export interface TestEventPorts {
  webhooks: WebhookStore;
  transport: WebhookTransport;
  resolver: HostResolver;
  clock: Clock;
}

export interface TestEventResult {
  eventId: string;
  url: string;
  /** The receiver's status code; null when no answer came. */
  status: number | null;
  latencyMs: number;
  /** What a real delivery's attempt would make of the answer. */
  verdict: AttemptVerdict;
  /** Why no answer came (timeout, refused destination, reset), when none did. */
  error: string | null;
  responseExcerpt: string;
}

/**
 * `webhooks test`: one `webhook.test` event sent now to an active subscription's URL, signed and
 * checked as every delivery is (the destination rules, both signature schemes, the 10 s limit),
 * and its answer reported. It is not a delivery: nothing is queued or retried, the delivery log
 * does not list it, and no subscription can ask for the event otherwise.
 */
export async function sendTestEvent(
  ports: TestEventPorts,
  subscriptionId: string,
  mode: DestinationMode,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<TestEventResult> {
  const subscription = await ports.webhooks.get(subscriptionId);
  if (!subscription) throw new WebhookConflict(`no subscription ${subscriptionId}`);
  if (subscription.state !== 'active') {
    throw new WebhookConflict(
      `subscription ${subscriptionId} is disabled (${subscription.disabled_reason ?? 'no reason recorded'}): enable it first, then test it`,
    );
  }
  const now = ports.clock.now();
  const eventId = randomUUID();
  const body = webhookBody(WEBHOOK_TEST_EVENT, {
    subscription_id: subscription.subscription_id,
    sent_at: now.toISOString(),
    message: 'A test event sent by an operator; it carries no record.',
  });
  const result = await attemptWebhook(ports, subscription, body, eventId, now, mode, timeoutMs);
  return {
    eventId,
    url: subscription.url,
    verdict: verdictOf(result.status),
    status: result.status,
    latencyMs: result.latencyMs,
    error: result.error,
    responseExcerpt: result.responseExcerpt,
  };
}
