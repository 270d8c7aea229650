import { RESOURCE_KINDS, type ResourceKind } from '../records';

/** The eight event kinds of interface section 6. */
export const WEBHOOK_EVENTS = [
  'grant.created',
  'grant.updated',
  'grant.deadline_approaching',
  'contract.created',
  'contract.updated',
  'contract.deadline_approaching',
  'funder.created',
  'funder.updated',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * The event `webhooks test` sends (body `{"event": "webhook.test", "data": {"subscription_id",
 * "sent_at", "message"}}`), signed like every delivery. Not one of WEBHOOK_EVENTS: no subscription
 * asks for it and nothing else sends it.
 */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

export function isWebhookEvent(value: string): value is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(value);
}

/** The kind of record an event carries. */
export function kindOfEvent(event: WebhookEvent): ResourceKind {
  const kind = event.slice(0, event.indexOf('.'));
  return RESOURCE_KINDS.find((k) => k === kind)!;
}

/** Days before a deadline that `*.deadline_approaching` fires, by default and at most. */
export const DEADLINE_WINDOW_DAYS = { default: 7, min: 1, max: 90 } as const;
