import type { DynamoDeliveryLog } from '../lambdas/adapters/aws/dynamo-delivery-log';
import { dnsHostResolver } from '../lambdas/adapters/dns-host-resolver';
import { InProcessDeliveryQueue } from '../lambdas/adapters/embedded/in-process-delivery-queue';
import { httpWebhookTransport } from '../lambdas/adapters/http-webhook-transport';
import type { ChangeEvent } from '../lambdas/core/change-feed';
import { type DeliveryOptions, type DeliveryPorts, processDelivery } from '../lambdas/core/use-cases/deliver-webhook';
import { fanOutChangeEvents } from '../lambdas/core/use-cases/fan-out-events';
import type { SearchPorts } from '../lambdas/core/use-cases/list-records';
import { scanDeadlines } from '../lambdas/core/use-cases/scan-deadlines';
import { logger } from '../lambdas/http/api-gateway';
import type { ChangeOutbox } from '../lambdas/ports/change-outbox';
import type { Clock } from '../lambdas/ports/clock';
import type { DeadlineLedger } from '../lambdas/ports/deadline-ledger';
import type { Delivery } from '../lambdas/ports/delivery-log';
import type { HostResolver } from '../lambdas/ports/host-resolver';
import type { SearchIndex } from '../lambdas/ports/search-index';
import type { WebhookStore, WebhookSubscription } from '../lambdas/ports/webhook-store';
import type { WebhookTransport } from '../lambdas/ports/webhook-transport';

export interface LocalWebhookOptions {
  /** Seconds before each retry; the production schedule unless given (tests use seconds). */
  schedule?: readonly number[];
  timeoutMs?: number;
  resolver?: HostResolver;
  transport?: WebhookTransport;
  /** How long a subscription change made elsewhere (the admin CLI) may take to be seen. */
  subscriptionCacheMs?: number;
  /** When the daily deadline scan runs, "HH:MM" UTC (default 06:00); it also runs at start. */
  deadlineScanAtUtc?: string;
}

/** Milliseconds from `now` to the next `HH:MM` UTC. */
export function msUntilUtcTime(now: Date, hhmm: string): number {
  const [hours, minutes] = hhmm.split(':').map(Number) as [number, number];
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), hours, minutes));
  if (next.getTime() <= now.getTime()) next.setUTCDate(next.getUTCDate() + 1);
  return next.getTime() - now.getTime();
}

/**
 * Webhooks on the local server: every change event the local indexer appends is fanned out to
 * the subscriptions at once and delivered through an in-process queue with the production
 * semantics (processDelivery). State that must survive a restart is in the table: events not yet
 * fanned out stay in the outbox, and unfinished deliveries in the delivery log; start() picks up
 * both.
 */
/** A clean stop's hand-over to the next start (LocalWebhookDispatcher.cleanStop). */
export interface CleanStop {
  deliveryIds: string[];
}

export class LocalWebhookDispatcher {
  readonly queue: InProcessDeliveryQueue;
  private cached: { at: number; subscriptions: WebhookSubscription[] } | null = null;
  private pending: Promise<unknown> = Promise.resolve();
  private scanTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private fanOutFailed = false;

  constructor(
    private readonly ports: {
      outbox: ChangeOutbox;
      webhooks: WebhookStore;
      log: DynamoDeliveryLog;
      clock: Clock;
      index: SearchIndex;
      ledger: DeadlineLedger;
      savedSearch?: SearchPorts;
    },
    private readonly options: LocalWebhookOptions = {},
  ) {
    this.queue = new InProcessDeliveryQueue({
      redeliverAfterMs: 30_000,
      onError: (error, message) => logger.error('webhook delivery failed unexpectedly; retrying', { deliveryId: message.delivery_id, error: error as Error }),
    });
    const deliveryOptions: DeliveryOptions = { mode: 'local', schedule: options.schedule, timeoutMs: options.timeoutMs };
    const deliveryPorts: DeliveryPorts = {
      webhooks: ports.webhooks,
      log: ports.log,
      queue: this.queue,
      transport: options.transport ?? httpWebhookTransport,
      resolver: options.resolver ?? dnsHostResolver,
      clock: ports.clock,
      random: Math.random,
    };
    this.queue.consume(async (message) => {
      await processDelivery(deliveryPorts, message, deliveryOptions);
    });
  }

  /** A subscription changed in this process (an admin command over the channel): read them afresh. */
  forgetSubscriptions(): void {
    this.cached = null;
  }

  /**
   * Fans out what the outbox still holds, re-queues unfinished deliveries (after a restart), runs
   * the deadline scan (a day the server was down is caught up) and schedules it daily. After a
   * clean stop (`resume`, from cleanStop()), the outbox is known empty and the unfinished
   * deliveries known by id, so neither is looked for by scanning the whole table: on a large
   * catalogue those two scans slowed every start and left much garbage in its heap.
   */
  async start(resume: CleanStop | null = null): Promise<void> {
    if (resume) {
      for (const deliveryId of resume.deliveryIds) {
        const delivery = await this.ports.log.get(deliveryId);
        if (delivery && (delivery.status === 'pending' || delivery.status === 'retrying')) await this.requeue(delivery);
      }
    } else {
      for await (const page of this.ports.outbox.scan()) await this.dispatch(page);
      // The outbox's fan-out has just queued (and may be sending) some of the unfinished
      // deliveries: queued twice, a delivery whose first attempt is under way would be sent twice.
      const queued = new Set(this.queue.messages().map((message) => message.delivery_id));
      for await (const delivery of this.ports.log.unfinished()) if (!queued.has(delivery.delivery_id)) await this.requeue(delivery);
    }
    await this.scanDeadlines();
    this.scheduleDeadlineScan();
  }

  private async requeue(delivery: Delivery): Promise<void> {
    const now = this.ports.clock.now().getTime();
    const wait = delivery.next_attempt_at ? Math.max(0, Math.ceil((Date.parse(delivery.next_attempt_at) - now) / 1000)) : 0;
    await this.queue.send({ delivery_id: delivery.delivery_id }, Math.min(wait, this.queue.maxDelaySeconds));
  }

  /**
   * What the next start needs to know, taken just before close(): the deliveries queued or under
   * way. Null when a fan-out failed since start: its events wait in the outbox, and only a scan
   * finds them.
   */
  cleanStop(): CleanStop | null {
    return this.fanOutFailed ? null : { deliveryIds: [...new Set(this.queue.messages().map((message) => message.delivery_id))] };
  }

  /** `*.deadline_approaching` for every subscription whose window a deadline has entered (scanDeadlines). */
  scanDeadlines(): Promise<number> {
    const { webhooks, log, clock, index, ledger, savedSearch } = this.ports;
    return scanDeadlines({ webhooks, log, clock, index, ledger, queue: this.queue, savedSearch });
  }

  private scheduleDeadlineScan(): void {
    if (this.closed) return;
    const at = this.options.deadlineScanAtUtc ?? '06:00';
    this.scanTimer = setTimeout(
      () => {
        this.scanDeadlines()
          .catch((error) => logger.error('deadline scan failed; it runs again tomorrow and at the next start', { error: error as Error }))
          .finally(() => this.scheduleDeadlineScan());
      },
      msUntilUtcTime(new Date(), at),
    );
    this.scanTimer.unref();
  }

  /** Called with each batch the local indexer appends; batches are handled in order. */
  onEvents(events: readonly ChangeEvent[]): Promise<void> {
    const next = this.pending.then(() => this.dispatch(events));
    this.pending = next.catch((error) => {
      this.fanOutFailed = true;
      logger.error('webhook fan-out failed; the events stay in the outbox until the next start', { error: error as Error });
    });
    return next;
  }

  /** Resolves when every event handed over so far is fanned out and no delivery is mid-attempt. */
  async settle(): Promise<void> {
    await this.pending;
    await this.queue.idle();
  }

  close(): void {
    this.closed = true;
    if (this.scanTimer) clearTimeout(this.scanTimer);
    this.queue.close();
  }

  private async dispatch(events: readonly ChangeEvent[]): Promise<void> {
    if (events.length === 0) return;
    const subscriptions = await this.subscriptions();
    const { log, clock, outbox, savedSearch } = this.ports;
    await fanOutChangeEvents({ webhooks: { list: async () => subscriptions }, log, queue: this.queue, clock, outbox, savedSearch }, events);
  }

  private async subscriptions(): Promise<WebhookSubscription[]> {
    const maxAge = this.options.subscriptionCacheMs ?? 5_000;
    if (!this.cached || Date.now() - this.cached.at > maxAge) this.cached = { at: Date.now(), subscriptions: await this.ports.webhooks.list() };
    return this.cached.subscriptions;
  }
}
