// The admin CLI's webhook commands (`webhooks …`, `scan-deadlines`): subscriptions, deliveries, replays, fan-out and the deadline scan.
import { type Command, InvalidArgumentError } from 'commander';
import { dnsHostResolver } from '../lambdas/adapters/dns-host-resolver';
import { httpWebhookTransport } from '../lambdas/adapters/http-webhook-transport';
import { replayDelivery } from '../lambdas/core/use-cases/deliver-webhook';
import { type ChangeFanOutPorts, fanOutChangeEvents } from '../lambdas/core/use-cases/fan-out-events';
import type { SearchPorts } from '../lambdas/core/use-cases/list-records';
import {
  addSubscription,
  addSubscriptionIfMissing,
  DEFAULT_SECRET_GRACE_HOURS,
  disableSubscription,
  enableSubscription,
  type ListedSubscription,
  listedSubscription,
  MAX_SECRET_GRACE_HOURS,
  rotateSecret,
  type WebhookPorts,
} from '../lambdas/core/use-cases/manage-webhooks';
import { savedSearchCount } from '../lambdas/core/use-cases/match-saved-search';
import { scanDeadlines } from '../lambdas/core/use-cases/scan-deadlines';
import { sendTestEvent } from '../lambdas/core/use-cases/test-webhook';
import type { DestinationMode } from '../lambdas/core/webhooks/destination-policy';
import { DEADLINE_WINDOW_DAYS, WEBHOOK_EVENTS } from '../lambdas/core/webhooks/events';
import { kindsOfEvents } from '../lambdas/core/webhooks/saved-search';
import type { ChangeOutbox } from '../lambdas/ports/change-outbox';
import { systemClock, utcDate } from '../lambdas/ports/clock';
import type { DeliveryLog } from '../lambdas/ports/delivery-log';
import type { DeliveryQueue } from '../lambdas/ports/delivery-queue';
import { WebhookConflict } from '../lambdas/ports/webhook-store';
import {
  awsChangeFanOutPorts,
  awsDeadlineScanPorts,
  awsDeliveryLog,
  awsDeliveryQueuePorts,
  awsSavedSearchPorts,
  awsWebhookPorts,
  type WebhookQueueOptions,
} from '../local/aws-target';
import type { EmbeddedStack } from '../local/embedded-stack';
import { type AdminContext, note } from './admin-context';
import { emit } from './admin-output';
import { type TargetOptions, wholeNumber, withSearchDomainOptions, withTargetOptions } from './admin-targets';

/** Adds `webhooks` and `scan-deadlines` to the admin program. */
export function addWebhookCommands(program: Command, context: AdminContext): void {
  const UNTIL_SERVER_STARTS: DeliveryQueue = { maxDelaySeconds: 900, send: async () => {}, deadLetter: async () => {} };
  /**
   * Where deliveries made locally go: the running server's queue when the command runs inside it
   * (over the admin channel), else nowhere yet: they wait in the delivery log, and npm start sends them when it starts.
   */
  const localQueueOf = (stack: EmbeddedStack): DeliveryQueue => stack.webhookDispatcher?.queue ?? UNTIL_SERVER_STARTS;

  /** The delivery log of the target (the embedded stack's, or the stage's table). */
  async function withDeliveryLog<T>(opts: TargetOptions, run: (log: DeliveryLog) => Promise<T>): Promise<T> {
    if (opts.target === 'local') return context.withLocalStack(opts.dataDir, (stack) => run(stack.deliveries));
    const ports = await awsDeliveryLog({ stage: opts.stage, region: opts.region, tableName: opts.tableName });
    try {
      return await run(ports.log);
    } finally {
      ports.close();
    }
  }

  /** The subscriptions, keys and resolver of the target; its URL rules follow it (https only in AWS). */
  async function withWebhookPorts<T>(
    opts: TargetOptions,
    run: (ports: WebhookPorts & { savedSearch?: SearchPorts }, mode: DestinationMode) => Promise<T>,
  ): Promise<T> {
    if (opts.target === 'local') {
      return context.withLocalStack(opts.dataDir, (stack) =>
        run({ webhooks: stack.webhooks, keys: stack.services.keys, resolver: dnsHostResolver, savedSearch: stack.services }, 'local'),
      );
    }
    const ports = await awsWebhookPorts({ stage: opts.stage, region: opts.region, tableName: opts.tableName });
    try {
      return await run(ports, 'aws');
    } finally {
      ports.close();
    }
  }

  function subscriptionRow(subscription: ListedSubscription): string {
    return [
      subscription.subscription_id,
      subscription.key_id,
      subscription.state + (subscription.disabled_reason ? ` (${subscription.disabled_reason})` : ''),
      subscription.url,
      subscription.events.join(','),
      `${subscription.days_before} days`,
      subscription.filter ?? '-',
      subscription.created_at,
      subscription.rotating ? `old secret valid until ${subscription.previous_secret_valid_until}` : '-',
    ].join('\t');
  }

  const SUBSCRIPTION_COLUMNS = ['subscription id', 'key id', 'state', 'url', 'events', 'deadline window', 'filter', 'created', 'rotation'];

  const webhooksCommand = program
    .command('webhooks')
    .description('webhook subscriptions of developer keys: add, list, disable, enable, rotate-secret, test, deliveries, replay, fan-out');

  withSearchDomainOptions(withTargetOptions(webhooksCommand.command('add')), ' (to count what --filter matches)')
    .description("subscribe a developer key's URL to events; the signing secret is shown once")
    .requiredOption('--key-id <id>', 'the developer key the subscription belongs to')
    .requiredOption(
      '--url <url>',
      'https URL (local mode also: http to localhost / 127.0.0.1 / ::1); private, loopback, link-local and metadata addresses are refused',
    )
    .option('--events <names>', `comma-separated events (default: all of ${WEBHOOK_EVENTS.join(', ')})`, (value: string) =>
      value
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== ''),
    )
    .option(
      '--days-before <days>',
      `deadline_approaching fires this many days before a deadline (${DEADLINE_WINDOW_DAYS.min}-${DEADLINE_WINDOW_DAYS.max})`,
      wholeNumber(DEADLINE_WINDOW_DAYS.min, DEADLINE_WINDOW_DAYS.max, 'days'),
      DEADLINE_WINDOW_DAYS.default,
    )
    .option(
      '--filter <query>',
      'a saved search: list parameters, e.g. "states=KS&include_national=true&category=Health&search=rural clinics&search_mode=hybrid"; only events whose record it matches are sent',
    )
    .option('--if-missing', 'when the key already has a subscription for this URL, answer with it (unchanged, no secret) instead of refusing', false)
    .action(
      async (
        opts: TargetOptions & {
          keyId: string;
          url: string;
          events?: string[];
          daysBefore: number;
          filter?: string;
          searchEndpoint?: string;
          embeddingDimensions?: string;
          ifMissing: boolean;
        },
      ) => {
        await withWebhookPorts(opts, async (ports, mode) => {
          const now = new Date();
          const request = { keyId: opts.keyId, url: opts.url, events: opts.events, daysBefore: opts.daysBefore, filter: opts.filter };
          const { secret, subscription, existing } = opts.ifMissing
            ? await addSubscriptionIfMissing(ports, request, mode, now)
            : { ...(await addSubscription(ports, request, mode, now)), existing: false };
          let matches: Record<string, number> | null = null;
          if (subscription.filter) {
            const search = ports.savedSearch ? { ports: ports.savedSearch } : await awsSavedSearchPorts(opts);
            if ('ports' in search) {
              matches = Object.fromEntries(
                await Promise.all(
                  kindsOfEvents(subscription.events).map(
                    async (kind) => [kind, await savedSearchCount(search.ports, subscription.filter!, kind, utcDate(systemClock))] as const,
                  ),
                ),
              );
            } else {
              note(context, `not counted what the filter matches today (${search.missing})`);
            }
          }
          emit(context, opts, { ...listedSubscription(subscription, now), secret, existing, matches_today: matches }, () => {
            const counts = Object.entries(matches ?? {}).map(([kind, n]) => `${n} ${kind}s`);
            const none = Object.values(matches ?? {}).every((n) => n === 0);
            return [
              `subscription ${subscription.subscription_id} for key ${subscription.key_id}: ${subscription.url}${existing ? ' (made earlier; unchanged)' : ''}`,
              `events  ${subscription.events.join(', ')}; deadlines ${subscription.days_before} days ahead`,
              ...(subscription.filter ? [`filter  ${subscription.filter}`] : []),
              ...(matches ? [`matches ${counts.join(', ')} today${none ? ': none yet; accepted, it sends when a record matches' : ''}`] : []),
              secret ? `secret  ${secret}` : 'secret  (shown once, when it was made; webhooks rotate-secret issues a new one)',
            ];
          });
          if (secret) note(context, 'the secret is shown this once: store it where your receiver verifies the signatures (docs/webhooks.md)');
        });
      },
    );

  withTargetOptions(webhooksCommand.command('list'))
    .description('subscriptions (never their secrets)')
    .option('--key-id <id>', "only this key's")
    .action(async (opts: TargetOptions & { keyId?: string }) => {
      await withWebhookPorts(opts, async ({ webhooks }) => {
        const now = new Date();
        const subscriptions = (await webhooks.list(opts.keyId)).map((subscription) => listedSubscription(subscription, now));
        emit(context, opts, subscriptions, () => [
          SUBSCRIPTION_COLUMNS.join('\t'),
          ...subscriptions.map(subscriptionRow),
          ...(subscriptions.length === 0 ? ['(no subscriptions)'] : []),
        ]);
      });
    });

  withTargetOptions(webhooksCommand.command('disable'))
    .description('stop deliveries to a subscription (events are not kept for it while disabled)')
    .argument('<subscription-id>')
    .action(async (subscriptionId: string, opts: TargetOptions) => {
      await withWebhookPorts(opts, async ({ webhooks }) => {
        const now = new Date();
        const subscription = await disableSubscription(webhooks, subscriptionId, 'disabled by an operator', now);
        emit(context, opts, listedSubscription(subscription, now), () => [`subscription ${subscription.subscription_id} disabled`]);
      });
    });

  withTargetOptions(webhooksCommand.command('enable'))
    .description('resume a disabled subscription (its URL is checked again)')
    .argument('<subscription-id>')
    .action(async (subscriptionId: string, opts: TargetOptions) => {
      await withWebhookPorts(opts, async (ports, mode) => {
        const now = new Date();
        const subscription = await enableSubscription(ports, subscriptionId, mode, now);
        emit(context, opts, listedSubscription(subscription, now), () => [`subscription ${subscription.subscription_id} enabled`]);
      });
    });

  withTargetOptions(webhooksCommand.command('rotate-secret'))
    .description('issue a new signing secret; deliveries carry signatures by both secrets for the grace period')
    .argument('<subscription-id>')
    .option(
      '--grace-hours <hours>',
      'how long the old secret keeps signing beside the new one',
      (v: string) => {
        const hours = Number(v);
        if (!Number.isFinite(hours) || hours < 0 || hours > MAX_SECRET_GRACE_HOURS)
          throw new InvalidArgumentError(`must be a number of hours from 0 to ${MAX_SECRET_GRACE_HOURS}`);
        return hours;
      },
      DEFAULT_SECRET_GRACE_HOURS,
    )
    .action(async (subscriptionId: string, opts: TargetOptions & { graceHours: number }) => {
      await withWebhookPorts(opts, async ({ webhooks }) => {
        const now = new Date();
        const { secret, subscription } = await rotateSecret(webhooks, subscriptionId, opts.graceHours, now);
        emit(context, opts, { ...listedSubscription(subscription, now), secret }, () => [
          `subscription ${subscription.subscription_id}: new secret issued; the old one also signs until ${subscription.previous_secret_valid_until}`,
          `secret  ${secret}`,
        ]);
        note(context, 'the secret is shown this once: store it now');
      });
    });

  withTargetOptions(webhooksCommand.command('test'))
    .description('send a signed webhook.test event to a subscription now, wait for the answer, and print its code and latency (not queued, retried or logged)')
    .argument('<subscription-id>')
    .action(async (subscriptionId: string, opts: TargetOptions) => {
      await withWebhookPorts(opts, async ({ webhooks, resolver }, mode) => {
        const result = await sendTestEvent({ webhooks, resolver, transport: httpWebhookTransport, clock: systemClock }, subscriptionId, mode);
        const answer = result.status === null ? `no answer (${result.error})` : `${result.status} in ${Math.round(result.latencyMs)} ms`;
        emit(
          context,
          opts,
          {
            event_id: result.eventId,
            url: result.url,
            status: result.status,
            latency_ms: result.status === null ? null : Math.round(result.latencyMs),
            verdict: result.verdict,
            error: result.error ?? null,
            response_excerpt: result.responseExcerpt?.slice(0, 300) ?? null,
          },
          () => [
            `webhook.test ${result.eventId} to ${result.url}: ${answer}`,
            ...(result.responseExcerpt ? [`response  ${result.responseExcerpt.slice(0, 300)}`] : []),
          ],
        );
        if (result.verdict !== 'delivered') {
          note(
            context,
            result.verdict === 'gone'
              ? 'the receiver answered 410 Gone: a real delivery would disable the subscription'
              : 'a real delivery would be retried: only a 2xx within 10 s counts as delivered',
          );
          context.exitCode = 1;
        }
      });
    });

  withTargetOptions(webhooksCommand.command('deliveries'))
    .description("a subscription's delivery log, newest first: status, attempts, last response code, latency")
    .argument('<subscription-id>')
    .option('--limit <n>', 'how many', wholeNumber(1, 1000), 50)
    .action(async (subscriptionId: string, opts: TargetOptions & { limit: number }) => {
      await withDeliveryLog(opts, async (log) => {
        const deliveries = await log.list(subscriptionId, opts.limit);
        const shown = deliveries.map(
          ({
            delivery_id,
            event,
            event_id,
            subscription_id,
            status,
            attempts,
            last_status_code,
            last_latency_ms,
            last_error,
            created_at,
            next_attempt_at,
          }) => ({
            delivery_id,
            event,
            event_id,
            subscription_id,
            status,
            attempts,
            last_status_code: last_status_code ?? null,
            last_latency_ms: last_latency_ms ?? null,
            last_error: last_error ?? null,
            created_at,
            next_attempt_at: next_attempt_at ?? null,
          }),
        );
        emit(context, opts, shown, () => [
          ['delivery id', 'event', 'event id', 'status', 'attempts', 'last code', 'latency ms', 'last error', 'created', 'next attempt'].join('\t'),
          ...shown.map((d) =>
            [
              d.delivery_id,
              d.event,
              d.event_id,
              d.status,
              d.attempts,
              d.last_status_code ?? '-',
              d.last_latency_ms ?? '-',
              d.last_error ?? '-',
              d.created_at,
              d.next_attempt_at ?? '-',
            ].join('\t'),
          ),
          ...(deliveries.length === 0 ? ['(no deliveries)'] : []),
        ]);
      });
    });

  const withQueueOptions = (command: Command) =>
    command
      .option('--queue-url <url>', 'aws: the webhook queue, skipping the stack lookup')
      .option('--dead-letter-queue-url <url>', 'aws: the webhook dead-letter queue, skipping the stack lookup');

  withQueueOptions(withTargetOptions(webhooksCommand.command('replay')))
    .description('send a delivery again (a failed one from the dead-letter queue, or any other): a fresh retry schedule, the same event id and body')
    .argument('<delivery-id>')
    .action(async (deliveryId: string, opts: TargetOptions & WebhookQueueOptions) => {
      const replay = async (log: DeliveryLog, queue: DeliveryQueue, sentBy: string) => {
        const replayed = await replayDelivery({ log, queue, clock: systemClock }, deliveryId);
        if (!replayed) throw new WebhookConflict(`no delivery ${deliveryId}`);
        emit(
          context,
          opts,
          { delivery_id: deliveryId, event: replayed.event, subscription_id: replayed.subscription_id, queued: true, sent_by: sentBy },
          () => [`delivery ${deliveryId} (${replayed.event} to ${replayed.subscription_id}) queued again; ${sentBy} sends it`],
        );
      };
      if (opts.target === 'local') {
        await context.withLocalStack(opts.dataDir, (stack) => replay(stack.deliveries, localQueueOf(stack), 'npm start'));
        return;
      }
      const ports = await awsDeliveryQueuePorts({
        stage: opts.stage,
        region: opts.region,
        tableName: opts.tableName,
        queueUrl: opts.queueUrl,
        deadLetterQueueUrl: opts.deadLetterQueueUrl,
      });
      try {
        await replay(ports.log, ports.queue, 'the webhook sender');
      } finally {
        ports.close();
      }
    });

  withSearchDomainOptions(withQueueOptions(withTargetOptions(webhooksCommand.command('fan-out'))), ' (to match saved searches)')
    .description('fan out the change events still in the outbox (in AWS: those whose stream batch ended in IndexerFailureQueue); safe to repeat')
    .action(async (opts: TargetOptions & WebhookQueueOptions & { searchEndpoint?: string; embeddingDimensions?: string }) => {
      const fanOut = async (ports: ChangeFanOutPorts & { outbox: ChangeOutbox }, sentBy: string) => {
        let events = 0;
        let made = 0;
        for await (const page of ports.outbox.scan()) {
          events += page.length;
          made += await fanOutChangeEvents(ports, page);
        }
        emit(context, opts, { change_events: events, deliveries_queued: made, sent_by: sentBy }, () => [
          `${events} change event${events === 1 ? '' : 's'} fanned out: ${made} deliver${made === 1 ? 'y' : 'ies'} queued; ${sentBy} sends them`,
        ]);
      };
      if (opts.target === 'local') {
        await context.withLocalStack(opts.dataDir, (stack) =>
          fanOut(
            {
              webhooks: stack.webhooks,
              log: stack.deliveries,
              outbox: stack.outbox,
              queue: localQueueOf(stack),
              clock: systemClock,
              savedSearch: stack.services,
            },
            'npm start',
          ),
        );
        return;
      }
      const ports = await awsChangeFanOutPorts({
        stage: opts.stage,
        region: opts.region,
        tableName: opts.tableName,
        queueUrl: opts.queueUrl,
        deadLetterQueueUrl: opts.deadLetterQueueUrl,
        searchEndpoint: opts.searchEndpoint,
        embeddingDimensions: opts.embeddingDimensions,
      });
      try {
        await fanOut(ports, 'the webhook sender');
      } finally {
        ports.close();
      }
    });

  withSearchDomainOptions(withQueueOptions(withTargetOptions(program.command('scan-deadlines'))), '')
    .description(
      "queue *.deadline_approaching for the open grants and contracts whose deadline is within a subscription's window (once per record and deadline); locally npm start sends them and also scans daily, in AWS the schedule runs it daily",
    )
    .action(async (opts: TargetOptions & WebhookQueueOptions & { searchEndpoint?: string; embeddingDimensions?: string }) => {
      const report = (made: number, sentBy: string) =>
        emit(context, opts, { reminders_queued: made, sent_by: sentBy }, () => [
          `${made} deadline reminder${made === 1 ? '' : 's'} queued; ${sentBy} sends them`,
        ]);
      if (opts.target === 'local') {
        await context.withLocalStack(opts.dataDir, async (stack) => {
          report(
            await scanDeadlines({
              webhooks: stack.webhooks,
              log: stack.deliveries,
              clock: stack.services.clock,
              index: stack.services.index,
              ledger: stack.deadlineLedger,
              queue: localQueueOf(stack),
              savedSearch: stack.services,
            }),
            'npm start',
          );
        });
        return;
      }
      const ports = await awsDeadlineScanPorts({ ...opts, stage: opts.stage, region: opts.region, tableName: opts.tableName });
      try {
        report(await scanDeadlines(ports), 'the webhook sender');
      } finally {
        ports.close();
      }
    });
}
