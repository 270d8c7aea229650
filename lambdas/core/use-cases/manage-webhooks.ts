import { randomUUID } from 'node:crypto';
import type { HostResolver } from '../../ports/host-resolver';
import type { KeyStore } from '../../ports/key-store';
import { WebhookConflict, type WebhookStore, type WebhookSubscription } from '../../ports/webhook-store';
import { TIERS } from '../auth/tiers';
import { type DestinationMode, resolveDestination } from '../webhooks/destination-policy';
import { DEADLINE_WINDOW_DAYS, isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from '../webhooks/events';
import { kindsOfEvents, normalisedFilter } from '../webhooks/saved-search';
import { newWebhookSecret } from '../webhooks/signature';

/**
 * The subscription lifecycle the admin CLI drives: add (developer keys only; the secret is
 * shown once), list, disable, enable and rotate the secret. Delivery is elsewhere.
 */

export const DEFAULT_SECRET_GRACE_HOURS = 24;
/** The longest an old secret keeps signing beside the new one. */
export const MAX_SECRET_GRACE_HOURS = 720;

export interface WebhookPorts {
  webhooks: WebhookStore;
  keys: KeyStore;
  resolver: HostResolver;
}

/** A subscription as listed: everything but the secrets. */
export type ListedSubscription = Omit<WebhookSubscription, 'secret' | 'previous_secret'> & { rotating: boolean };

export function listedSubscription(subscription: WebhookSubscription, now: Date): ListedSubscription {
  const { secret: _secret, previous_secret: previous, ...shown } = subscription;
  const rotating = previous !== null && subscription.previous_secret_valid_until !== null && subscription.previous_secret_valid_until > now.toISOString();
  return { ...shown, rotating };
}

/** The event list of a request: every kind when none is given; an unknown name is an error naming the valid ones. */
export function parseEvents(names: readonly string[] | undefined): WebhookEvent[] {
  if (!names || names.length === 0) return [...WEBHOOK_EVENTS];
  const unknown = names.filter((name) => !isWebhookEvent(name));
  if (unknown.length > 0)
    throw new WebhookConflict(`unknown event${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; use any of: ${WEBHOOK_EVENTS.join(', ')}`);
  return WEBHOOK_EVENTS.filter((event) => names.includes(event));
}

export function parseDaysBefore(days: number | undefined): number {
  if (days === undefined) return DEADLINE_WINDOW_DAYS.default;
  if (!Number.isInteger(days) || days < DEADLINE_WINDOW_DAYS.min || days > DEADLINE_WINDOW_DAYS.max) {
    throw new WebhookConflict(`days before a deadline must be a whole number from ${DEADLINE_WINDOW_DAYS.min} to ${DEADLINE_WINDOW_DAYS.max}`);
  }
  return days;
}

export async function addSubscription(
  ports: WebhookPorts,
  request: { keyId: string; url: string; events?: readonly string[]; daysBefore?: number; filter?: string },
  mode: DestinationMode,
  now: Date,
): Promise<{ secret: string; subscription: WebhookSubscription }> {
  const key = await ports.keys.get(request.keyId);
  if (!key) throw new WebhookConflict(`no key ${request.keyId}`);
  if (key.revoked_at !== null) throw new WebhookConflict(`key ${request.keyId} is revoked`);
  if (!TIERS[key.tier].webhooks) throw new WebhookConflict(`webhooks need the developer tier; key ${request.keyId} is ${key.tier}`);
  const events = parseEvents(request.events);
  const daysBefore = parseDaysBefore(request.daysBefore);
  // A saved search, checked as the list endpoints check their parameters, for each kind of record the events carry.
  const filter = request.filter === undefined ? null : normalisedFilter(request.filter, kindsOfEvents(events), now.toISOString().slice(0, 10));
  const { url } = await resolveDestination(request.url, mode, ports.resolver);
  const secret = newWebhookSecret();
  const subscription: WebhookSubscription = {
    subscription_id: `whk_${randomUUID().replace(/-/g, '')}`,
    key_id: key.key_id,
    url: url.toString(),
    events,
    days_before: daysBefore,
    filter,
    state: 'active',
    disabled_reason: null,
    secret,
    previous_secret: null,
    previous_secret_valid_until: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await ports.webhooks.create(subscription);
  return { secret, subscription };
}

/**
 * addSubscription for scripts that retry: when the key already has a subscription for this URL,
 * that one is the answer, unchanged (its secret was shown when it was made), and none is added.
 * Two concurrent calls add one: the store refuses the second, which then finds the first's.
 */
export async function addSubscriptionIfMissing(
  ports: WebhookPorts,
  request: Parameters<typeof addSubscription>[1],
  mode: DestinationMode,
  now: Date,
): Promise<{ secret: string | null; subscription: WebhookSubscription; existing: boolean }> {
  const found = async () => {
    let url: string;
    try {
      url = new URL(request.url).toString();
    } catch {
      return undefined; // addSubscription says why
    }
    return (await ports.webhooks.list(request.keyId)).find((subscription) => subscription.url === url);
  };
  const earlier = await found();
  if (earlier) return { secret: null, subscription: earlier, existing: true };
  try {
    return { ...(await addSubscription(ports, request, mode, now)), existing: false };
  } catch (error) {
    const raced = error instanceof WebhookConflict ? await found() : undefined;
    if (raced) return { secret: null, subscription: raced, existing: true };
    throw error;
  }
}

async function existing(webhooks: WebhookStore, subscriptionId: string): Promise<WebhookSubscription> {
  const subscription = await webhooks.get(subscriptionId);
  if (!subscription) throw new WebhookConflict(`no webhook subscription ${subscriptionId}`);
  return subscription;
}

export async function disableSubscription(webhooks: WebhookStore, subscriptionId: string, reason: string, now: Date): Promise<WebhookSubscription> {
  await existing(webhooks, subscriptionId);
  return webhooks.update(subscriptionId, { state: 'disabled', disabled_reason: reason, updated_at: now.toISOString() });
}

/**
 * Enabling checks the destination again (its name may resolve elsewhere now) and the key's tier,
 * and starts the receiver's failure run afresh: a subscription disabled after 3 days of failures
 * gets 3 more days, not an immediate second disable.
 */
export async function enableSubscription(ports: WebhookPorts, subscriptionId: string, mode: DestinationMode, now: Date): Promise<WebhookSubscription> {
  const subscription = await existing(ports.webhooks, subscriptionId);
  const key = await ports.keys.get(subscription.key_id);
  if (!key || key.revoked_at !== null || !TIERS[key.tier].webhooks)
    throw new WebhookConflict(`key ${subscription.key_id} is revoked or no longer on the developer tier`);
  await resolveDestination(subscription.url, mode, ports.resolver);
  return ports.webhooks.update(subscriptionId, { state: 'active', disabled_reason: null, failing_since: null, updated_at: now.toISOString() });
}

/** A new secret (shown once); the old one keeps signing, beside it, for the grace period. */
export async function rotateSecret(
  webhooks: WebhookStore,
  subscriptionId: string,
  graceHours: number,
  now: Date,
): Promise<{ secret: string; subscription: WebhookSubscription }> {
  if (!(graceHours >= 0 && graceHours <= MAX_SECRET_GRACE_HOURS)) throw new RangeError(`the grace period must be 0 to ${MAX_SECRET_GRACE_HOURS} hours`);
  const current = await existing(webhooks, subscriptionId);
  const secret = newWebhookSecret();
  const subscription = await webhooks.update(subscriptionId, {
    secret,
    previous_secret: current.secret,
    previous_secret_valid_until: new Date(now.getTime() + graceHours * 3_600_000).toISOString(),
    updated_at: now.toISOString(),
  });
  return { secret, subscription };
}
