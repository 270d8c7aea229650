import { join } from 'node:path';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { VectorSearchSettings } from '../../lambdas/adapters/aws/opensearch-vector-search';
import type { EmbeddingSettings } from '../config';
import { utcTimeOf } from '../config';
import { ServiceFunction } from './service-function';

export interface WebhookDeliveryProps {
  readonly table: ITable;
  readonly searchDomain: IDomain;
  /** The window its searches rank (lib/config.ts SearchDomainSettings.vectors). */
  readonly vectors: VectorSearchSettings;
  /** The search index's vector space (the deadline scan reads the index, it embeds nothing). */
  readonly embeddings: EmbeddingSettings;
  readonly queue: IQueue;
  readonly deadLetterQueue: IQueue;
  /** Stream batches the fan-out could not process after its retries (pointers into the stream). */
  readonly streamFailureQueue: IQueue;
  /** The sender's timeout; the queue's visibility timeout must be several times it. */
  readonly senderTimeout: Duration;
  /** "HH:MM" UTC of the daily deadline scan. */
  readonly deadlineScanAtUtc: string;
  readonly projectRoot: string;
  readonly serviceName: string;
  readonly memorySizeMb: number;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** Messages per sender invocation, attempted in parallel. @default 10 */
  readonly senderBatchSize?: number;
  /**
   * Sender invocations at once (the SQS event source's maximum concurrency, 2 to 1,000). Without
   * a cap, SQS scales its pollers with the backlog, so a burst of events or a slow subscriber
   * could take the account's Lambda concurrency from the API. @default 5 (50 attempts in flight)
   */
  readonly senderMaxConcurrency?: number;
  /** @default 10 */
  readonly fanOutRetryAttempts?: number;
}

/** Outbox items only (sk "event"), as they are written or overwritten; their removal is not an event. */
const NEW_CHANGE_EVENTS_ONLY = FilterCriteria.filter({
  eventName: FilterRule.or('INSERT', 'MODIFY'),
  dynamodb: { Keys: { sk: { S: FilterRule.isEqual('event') } } },
});

/**
 * Webhooks in AWS, in three functions:
 * - the fan-out: the records table's stream (outbox items only) -> one logged delivery per
 *   subscription, queued on SQS;
 * - the sender: the SQS queue -> one signed attempt per message, retries re-queued with their
 *   delay, partial batch failures reported, the dead-letter queue after the last attempt;
 * - the deadline scanner: an EventBridge schedule, daily at the configured time -> deadline events
 *   for records whose deadline entered a subscription's window.
 */
export class WebhookDelivery extends Construct {
  readonly sender: ServiceFunction;
  readonly fanOut: ServiceFunction;
  readonly deadlineScanner: ServiceFunction;
  readonly deadlineSchedule: Rule;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    const common = {
      serviceName: props.serviceName,
      memorySizeMb: props.memorySizeMb,
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      projectRoot: props.projectRoot,
    };

    this.sender = new ServiceFunction(this, 'Sender', {
      ...common,
      entry: join(props.projectRoot, 'lambdas/handlers/send-webhooks.ts'),
      description: 'Webhook sender: webhook queue -> signed POST to the subscriber (lambdas/handlers/send-webhooks.ts)',
      timeout: props.senderTimeout,
    })
      .bindWebhookDeliveries(props.table)
      .bindWebhookQueue(props.queue, props.deadLetterQueue);
    this.sender.lambdaFunction.addEventSource(
      new SqsEventSource(props.queue, {
        batchSize: props.senderBatchSize ?? 10,
        maxConcurrency: props.senderMaxConcurrency ?? 5,
        reportBatchItemFailures: true,
      }),
    );

    this.fanOut = new ServiceFunction(this, 'FanOut', {
      ...common,
      entry: join(props.projectRoot, 'lambdas/handlers/fan-out-change-events.ts'),
      description: 'Webhook fan-out: change outbox (table stream) -> deliveries on the webhook queue (lambdas/handlers/fan-out-change-events.ts)',
      timeout: Duration.minutes(1),
    })
      .bindWebhookDeliveries(props.table)
      .bindChangeOutboxConsumer(props.table)
      .bindWebhookQueue(props.queue, props.deadLetterQueue)
      // Saved searches (subscription filters) are matched by the list's own query, on the index.
      .bindSearchDomain(props.searchDomain, props.vectors)
      .bindEmbeddings(props.embeddings);
    this.fanOut.lambdaFunction.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(1),
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        retryAttempts: props.fanOutRetryAttempts ?? 10,
        maxRecordAge: Duration.days(1),
        onFailure: new SqsDlq(props.streamFailureQueue),
        filters: [NEW_CHANGE_EVENTS_ONLY],
      }),
    );

    this.deadlineScanner = new ServiceFunction(this, 'DeadlineScanner', {
      ...common,
      entry: join(props.projectRoot, 'lambdas/handlers/scan-deadlines.ts'),
      description: 'Deadline scan: open records due within a subscription window -> deadline events (lambdas/handlers/scan-deadlines.ts)',
      timeout: Duration.minutes(10),
    })
      .bindWebhookDeliveries(props.table)
      .bindDeadlineLedger(props.table)
      .bindWebhookQueue(props.queue, props.deadLetterQueue)
      .bindSearchDomain(props.searchDomain, props.vectors)
      // A semantic or hybrid saved search embeds its query to match the records due.
      .bindEmbeddings(props.embeddings);

    const at = utcTimeOf(props.deadlineScanAtUtc);
    this.deadlineSchedule = new Rule(this, 'DeadlineSchedule', {
      description: `Daily webhook deadline scan at ${props.deadlineScanAtUtc} UTC`,
      schedule: Schedule.cron({ hour: String(at.hour), minute: String(at.minute) }),
      targets: [new LambdaFunction(this.deadlineScanner.lambdaFunction, { retryAttempts: 2, maxEventAge: Duration.hours(2) })],
    });
  }
}
