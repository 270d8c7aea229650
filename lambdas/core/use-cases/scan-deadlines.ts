import { v5 as uuidv5 } from 'uuid';
import type { Clock } from '../../ports/clock';
import { utcDate } from '../../ports/clock';
import type { DeadlineLedger } from '../../ports/deadline-ledger';
import type { SearchIndex } from '../../ports/search-index';
import type { WebhookStore } from '../../ports/webhook-store';
import { addDays, daysBetween } from '../dates';
import type { ListQuery } from '../query/list-query';
import { LIMITS } from '../query/list-query';
import type { Contract, Grant } from '../records';
import type { WebhookEvent } from '../webhooks/events';
import { type FanOutPorts, fanOutEvents } from './fan-out-events';

const DEADLINE_EVENT_NAMESPACE = 'a4e3f6c2-9b1d-4e8a-8f51-2d6c7b9e0f34';
const DAY_MS = 86_400_000;
/** Markers outlive the deadline by this much, then TTL removes them. */
const MARKER_GRACE_DAYS = 7;

const DEADLINE_KINDS = [
  { kind: 'grant', event: 'grant.deadline_approaching' },
  { kind: 'contract', event: 'contract.deadline_approaching' },
] as const satisfies readonly { kind: 'grant' | 'contract'; event: WebhookEvent }[];

export interface DeadlineScanPorts extends FanOutPorts {
  webhooks: Pick<WebhookStore, 'list'>;
  index: SearchIndex;
  ledger: DeadlineLedger;
  clock: Clock;
}

/** The open records of a kind whose deadline is exactly `day`, every page of them. */
async function* openRecordsDueOn(index: SearchIndex, kind: 'grant' | 'contract', day: string, today: string): AsyncIterable<Grant | Contract> {
  for (let offset = 0; offset <= LIMITS.offsetMax; offset += LIMITS.pageMax) {
    const query: ListQuery & { kind: typeof kind } = {
      kind,
      filters: {
        opportunityType: 'open',
        status: [{ stored: kind === 'grant' ? 'posted' : 'open', live: true }],
        includeNational: false,
        deadlineAfter: addDays(day, -1),
        deadlineBefore: addDays(day, 1),
      },
      sort: { field: 'created_at', order: 'asc' },
      limit: LIMITS.pageMax,
      offset,
      countOnly: false,
      today,
    };
    const page = await index.query(kind, query);
    yield* page.results as (Grant | Contract)[];
    if (page.results.length < LIMITS.pageMax) return;
  }
}

/**
 * The daily deadline scan: for each active subscription to a `*.deadline_approaching` event, the
 * open grants and contracts whose deadline falls within its window (today to days_before ahead)
 * are sent once per record and deadline. A marker per subscription, record and deadline makes
 * the scan safe to repeat (and to miss a day); a moved deadline is a new marker and a new event.
 * Returns how many deliveries it made.
 */
export async function scanDeadlines(ports: DeadlineScanPorts): Promise<number> {
  const today = utcDate(ports.clock);
  const subscriptions = (await ports.webhooks.list()).filter((s) => s.state === 'active');
  let made = 0;
  for (const { kind, event } of DEADLINE_KINDS) {
    const subscribed = subscriptions.filter((s) => s.events.includes(event));
    if (subscribed.length === 0) continue;
    const horizon = Math.max(...subscribed.map((s) => s.days_before));
    for (let ahead = 0; ahead <= horizon; ahead++) {
      const day = addDays(today, ahead);
      for await (const record of openRecordsDueOn(ports.index, kind, day, today)) {
        const deadline = record.deadline_date!;
        const eventId = uuidv5(`${record.id}\u0000${deadline}\u0000${event}`, DEADLINE_EVENT_NAMESPACE);
        const expires = new Date(Date.parse(`${deadline}T00:00:00Z`) + MARKER_GRACE_DAYS * DAY_MS);
        for (const subscription of subscribed) {
          if (daysBetween(today, deadline) > subscription.days_before) continue;
          const marker = `${subscription.subscription_id}#${record.id}#${deadline}`;
          if (await ports.ledger.has(marker)) continue;
          // Fan out first, then mark: a crash in between repeats the fan-out, whose delivery id
          // (from the event and the subscription) makes it a no-op.
          made += await fanOutEvents({ ...ports, webhooks: { list: async () => [subscription] } }, [{ event_id: eventId, event, data: record }]);
          await ports.ledger.claim(marker, expires);
        }
      }
    }
  }
  return made;
}
