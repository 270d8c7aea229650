import type { Delivery, Webhook } from './api';

/**
 * Reading the account API's webhook answers, kept in one place: the list, the subscription and
 * its one-time secret, a delivery and a page of deliveries.
 */

type Body = Record<string, unknown>;

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

export function webhookList(body: Body): Webhook[] {
  return (body.webhooks ?? body.subscriptions ?? []) as Webhook[];
}

/** The subscription and its secret (shown once) of a create or a secret rotation. */
export function issuedSecret(body: Body): { webhook: Webhook | null; secret: string | null } {
  const webhook = (body.webhook ?? body.subscription ?? (body.subscription_id ? body : null)) as Webhook | null;
  return { webhook, secret: (body.secret as string | undefined) ?? null };
}

export function deliveryPage(body: Body): { deliveries: Delivery[]; next: string | null } {
  return { deliveries: (body.deliveries ?? body.entries ?? []) as Delivery[], next: (body.next_cursor as string | null | undefined) ?? null };
}

/** A test send's outcome in words. */
export function testOutcome(body: Body): string {
  const delivery = (body.delivery ?? body) as Partial<Delivery> & { ok?: boolean; status_code?: number };
  const code = delivery.last_status_code ?? delivery.status_code ?? null;
  const delivered = delivery.status === 'delivered' || delivery.ok === true || (code !== null && code >= 200 && code < 300);
  const latency = delivery.last_latency_ms === null || delivery.last_latency_ms === undefined ? '' : ` in ${delivery.last_latency_ms} ms`;
  if (delivered) return `The test event was delivered${code === null ? '' : ` (HTTP ${code})`}${latency}.`;
  const why = delivery.last_error ?? (code === null ? 'no answer' : `HTTP ${code}`);
  return `The test event was not delivered: ${why}.`;
}

/**
 * A saved-search filter as the list endpoints take it: a query string without the `?`, such as
 * `q=water&status=posted`. Empty is none; the API checks the parameters themselves.
 */
export function normaliseFilter(raw: string): string | undefined {
  const trimmed = raw.trim().replace(/^\?/, '');
  return trimmed === '' ? undefined : trimmed;
}
