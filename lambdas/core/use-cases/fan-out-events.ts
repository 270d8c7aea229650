import { v5 as uuidv5 } from 'uuid';
import type { ChangeOutbox } from '../../ports/change-outbox';
import { type Clock, utcDate } from '../../ports/clock';
import type { Delivery, DeliveryLog } from '../../ports/delivery-log';
import type { DeliveryQueue } from '../../ports/delivery-queue';
import type { WebhookStore, WebhookSubscription } from '../../ports/webhook-store';
import type { ChangeEvent } from '../change-feed';
import { webhookBody } from '../webhooks/delivery-policy';
import { kindOfEvent, type WebhookEvent } from '../webhooks/events';
import { kindsOfEvents } from '../webhooks/saved-search';
import type { SearchPorts } from './list-records';
import { savedSearchMatches } from './match-saved-search';

const DELIVERY_ID_NAMESPACE = '6f1b2b0e-3f0b-4c55-9d55-6f5f3c8f0a11';

/** One id per (event, subscription): a fan-out repeated after a crash finds its deliveries already made. */
export function deliveryIdOf(eventId: string, subscriptionId: string): string {
  return `dlv_${uuidv5(`${eventId}\u0000${subscriptionId}`, DELIVERY_ID_NAMESPACE).replace(/-/g, '')}`;
}

export interface FanOutPorts {
  webhooks: Pick<WebhookStore, 'list'>;
  log: DeliveryLog;
  queue: DeliveryQueue;
  clock: Clock;
  /** The list's search ports, to match subscriptions' saved searches (filters); needed once any subscription has one. */
  savedSearch?: SearchPorts;
}

/** The ids of the events' records each filtered subscription's saved search matches, one index query per subscription and kind. */
async function savedSearchMatchesOf(
  ports: FanOutPorts,
  subscriptions: readonly WebhookSubscription[],
  events: readonly OutgoingEvent[],
): Promise<Map<string, Set<string>>> {
  const matches = new Map<string, Set<string>>();
  const today = utcDate(ports.clock);
  for (const subscription of subscriptions) {
    if (!subscription.filter) continue;
    const matched = new Set<string>();
    for (const kind of kindsOfEvents(subscription.events)) {
      const ids = [...new Set(events.filter((e) => subscription.events.includes(e.event) && kindOfEvent(e.event) === kind).map(recordIdOf))];
      if (ids.length === 0) continue;
      if (!ports.savedSearch) throw new Error(`subscription ${subscription.subscription_id} has a filter, but this fan-out has no search index to match it`);
      for (const id of await savedSearchMatches(ports.savedSearch, subscription.filter, kind, ids, today)) matched.add(id);
    }
    matches.set(subscription.subscription_id, matched);
  }
  return matches;
}

const recordIdOf = (event: OutgoingEvent) => (event.data as { id: string }).id;

/** An event to deliver: a change event of the feed, or a deadline event of the scan. */
export interface OutgoingEvent {
  event_id: string;
  event: WebhookEvent;
  data: unknown;
}

export function outgoingOfChange(change: ChangeEvent): OutgoingEvent {
  return { event_id: change.event_id, event: change.event, data: change.data };
}

/**
 * Turns events into deliveries: one per active subscription to the event's kind (whose saved
 * search, if it has one, matches the event's record), logged as
 * pending and queued at once. Safe to repeat: a delivery that exists is not logged again (and
 * queued again only while it is still pending). Returns how many deliveries were made.
 */
export async function fanOutEvents(ports: FanOutPorts, events: readonly OutgoingEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const subscriptions = (await ports.webhooks.list()).filter((s) => s.state === 'active');
  const savedSearchMatched = await savedSearchMatchesOf(ports, subscriptions, events);
  const wants = (subscription: WebhookSubscription, event: OutgoingEvent) =>
    subscription.events.includes(event.event) && (!subscription.filter || savedSearchMatched.get(subscription.subscription_id)!.has(recordIdOf(event)));
  let made = 0;
  for (const event of events) {
    const body = webhookBody(event.event, event.data);
    // An event's deliveries are independent of each other: they are logged and queued together.
    const outcomes = await Promise.all(
      subscriptions
        .filter((s) => wants(s, event))
        .map(async (subscription) => {
          const now = ports.clock.now().toISOString();
          const delivery: Delivery = {
            delivery_id: deliveryIdOf(event.event_id, subscription.subscription_id),
            subscription_id: subscription.subscription_id,
            event_id: event.event_id,
            event: event.event,
            body,
            status: 'pending',
            attempts: 0,
            last_status_code: null,
            last_error: null,
            last_latency_ms: null,
            last_response: null,
            next_attempt_at: null,
            created_at: now,
            updated_at: now,
            delivered_at: null,
          };
          const created = await ports.log.create(delivery);
          // A repeat after a crash between logging and queueing queues again; the sender is idempotent.
          if (created || (await ports.log.get(delivery.delivery_id))?.status === 'pending') {
            await ports.queue.send({ delivery_id: delivery.delivery_id }, 0);
          }
          return created;
        }),
    );
    made += outcomes.filter(Boolean).length;
  }
  return made;
}

export interface ChangeFanOutPorts extends FanOutPorts {
  outbox: Pick<ChangeOutbox, 'remove'>;
}

/**
 * Change events of the outbox to deliveries; the events leave the outbox once their deliveries
 * are logged and queued (a crash before that leaves them for the next attempt, which is a no-op
 * for the deliveries already made). Returns how many deliveries were made.
 */
export async function fanOutChangeEvents(ports: ChangeFanOutPorts, changes: readonly ChangeEvent[]): Promise<number> {
  if (changes.length === 0) return 0;
  const made = await fanOutEvents(ports, changes.map(outgoingOfChange));
  await ports.outbox.remove(changes.map((change) => change.event_id));
  return made;
}
