// The admin CLI's delivery commands (`webhooks deliveries|replay|fan-out`, `scan-deadlines`): what was sent, sending again, and the sends a change or a deadline makes.
import type { Command } from 'commander';
import { replayDelivery } from '../lambdas/core/use-cases/deliver-webhook';
import { type ChangeFanOutPorts, fanOutChangeEvents } from '../lambdas/core/use-cases/fan-out-events';
import { scanDeadlines } from '../lambdas/core/use-cases/scan-deadlines';
import type { ChangeOutbox } from '../lambdas/ports/change-outbox';
import { systemClock } from '../lambdas/ports/clock';
import type { DeliveryLog } from '../lambdas/ports/delivery-log';
import type { DeliveryQueue } from '../lambdas/ports/delivery-queue';
import { WebhookConflict } from '../lambdas/ports/webhook-store';
import { awsChangeFanOutPorts, awsDeadlineScanPorts, awsDeliveryLog, awsDeliveryQueuePorts, type WebhookQueueOptions } from '../local/aws-target';
import type { EmbeddedStack } from '../local/embedded-stack';
import type { AdminContext } from './admin-context';
import { emit } from './admin-output';
import { type TargetOptions, wholeNumber, withOpenedPorts, withSearchDomainOptions, withTargetOptions } from './admin-targets';

/** Adds the delivery commands under `webhooks`, and `scan-deadlines` to the program. */
export function addDeliveryCommands(webhooksCommand: Command, program: Command, context: AdminContext): void {
  const UNTIL_SERVER_STARTS: DeliveryQueue = { maxDelaySeconds: 900, send: async () => {}, deadLetter: async () => {} };
  /**
   * Where deliveries made locally go: the running server's queue when the command runs inside it
   * (over the admin channel), else nowhere yet: they wait in the delivery log, and npm start sends them when it starts.
   */
  const localQueueOf = (stack: EmbeddedStack): DeliveryQueue => stack.webhookDispatcher?.queue ?? UNTIL_SERVER_STARTS;

  /** The delivery log of the target (the embedded stack's, or the stage's table). */
  async function withDeliveryLog<T>(opts: TargetOptions, run: (log: DeliveryLog) => Promise<T>): Promise<T> {
    if (opts.target === 'local') return context.withLocalStack(opts.dataDir, (stack) => run(stack.deliveries));
    return withOpenedPorts(awsDeliveryLog({ stage: opts.stage, region: opts.region, tableName: opts.tableName }), (ports) => run(ports.log));
  }

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
      await withOpenedPorts(
        awsDeliveryQueuePorts({
          stage: opts.stage,
          region: opts.region,
          tableName: opts.tableName,
          queueUrl: opts.queueUrl,
          deadLetterQueueUrl: opts.deadLetterQueueUrl,
        }),
        (ports) => replay(ports.log, ports.queue, 'the webhook sender'),
      );
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
      await withOpenedPorts(
        awsChangeFanOutPorts({
          stage: opts.stage,
          region: opts.region,
          tableName: opts.tableName,
          queueUrl: opts.queueUrl,
          deadLetterQueueUrl: opts.deadLetterQueueUrl,
          searchEndpoint: opts.searchEndpoint,
          embeddingDimensions: opts.embeddingDimensions,
        }),
        (ports) => fanOut(ports, 'the webhook sender'),
      );
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
      await withOpenedPorts(awsDeadlineScanPorts({ ...opts, stage: opts.stage, region: opts.region, tableName: opts.tableName }), async (ports) =>
        report(await scanDeadlines(ports), 'the webhook sender'),
      );
    });
}
