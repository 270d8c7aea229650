import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IMetric, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { FilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { AlarmTopic } from './alarm-topic';
import { searchHealthAlarmDefinitions } from './search-health-alarms';
import { DASHBOARD_WIDGETS } from './service-dashboard';
import { ALARM_THRESHOLDS, freeStorageThresholdMb, type MonitoredFunction, ServiceMetrics } from './service-metrics';

export interface ServiceAlarmsProps {
  readonly metrics: ServiceMetrics;
  /** Prefix of every alarm name, e.g. `gcf-data-service-prod`. */
  readonly namePrefix: string;
  /** The API's access log (JSON, with `errorType`): authorizer failures are counted from it. */
  readonly accessLogGroup: ILogGroup;
  /** Each data node's EBS volume: the free-storage alarm fires below 20% of it. */
  readonly searchEbsVolumeSizeGiB: number;
  /** Subscribed to both topics by e-mail; none without it (subscribe a pager to the paging topic). */
  readonly email?: string;
  /** The runbook's full URL (the stage's docsBaseUrl + /runbook.md); the repository path RUNBOOK without it. */
  readonly runbookUrl?: string;
  /** Alarms other constructs declare (the synthetic canary's), made and routed like these. */
  readonly additionalDefinitions?: readonly AlarmDefinition[];
}

/** Where each alarm's description sends the on-call engineer: docs/runbook.md#<anchor>. */
export const RUNBOOK = 'docs/runbook.md';

/**
 * Who an alarm wakes: `page` for what we own and must fix now (our 5xx, the authorizer, a red or
 * write-blocked domain, stuck queues); `ticket` for what customers own (their failing webhook
 * receivers) and slow burns (yellow, storage, CPU, latency).
 */
export const SEVERITIES = ['page', 'ticket'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** How an alarm is defined; the runbook has a section per `anchor`. */
export interface AlarmDefinition {
  /** Alarm name suffix and runbook anchor, e.g. `api-5xx-rate`. */
  readonly anchor: string;
  /** Which topic it notifies: the paging topic or the ticket topic. */
  readonly severity: Severity;
  readonly metric: IMetric;
  readonly threshold: number;
  readonly comparisonOperator: ComparisonOperator;
  readonly evaluationPeriods: number;
  /** @default evaluationPeriods */
  readonly datapointsToAlarm?: number;
  readonly treatMissingData: TreatMissingData;
  /** What broke, in a sentence; the alarm description adds the dashboard widget and the runbook link. */
  readonly summary: string;
  /** The dashboard widget that shows it (ServiceDashboard titles). */
  readonly widget: string;
}

/** Alarm math may read at most 10 metrics (a CloudWatch limit), so throttle alarms cover functions 10 at a time. */
const MAX_METRICS_PER_ALARM = 10;

/**
 * The stage's alarms, each to the SNS topic of its severity (alarm and OK actions): the paging
 * topic or the ticket topic. Each alarm's name says what broke and its description names the
 * dashboard widget and the runbook section (docs/runbook.md#<anchor>).
 *
 * The topics are encrypted with a customer-managed KMS key: CloudWatch can publish to an encrypted
 * topic only if the key policy lets cloudwatch.amazonaws.com use it (an AWS-managed SNS key cannot
 * be given that grant).
 */
export class ServiceAlarms extends Construct {
  readonly topics: Readonly<Record<Severity, Topic>>;
  readonly alarms: ReadonlyMap<string, Alarm>;
  readonly definitions: readonly AlarmDefinition[];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const { metrics } = props;

    const key = new Key(this, 'TopicKey', {
      description: `Encrypts the ${props.namePrefix} alarm topics`,
      enableKeyRotation: true,
      // Messages are transient; a replaced stateless stack needs no old key.
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    // 'Topic' keeps the paging topic's logical id, so existing subscriptions (the pager) survive.
    this.topics = {
      page: new AlarmTopic(this, 'Topic', { displayName: `${props.namePrefix} paging alarms`, key, email: props.email }).topic,
      ticket: new AlarmTopic(this, 'TicketTopic', { displayName: `${props.namePrefix} ticket alarms`, key, email: props.email }).topic,
    };

    // Authorizer failures are the 500s API Gateway answers when the authorizer errs or times out
    // (a refused key is UNAUTHORIZED, not counted). The authorizer's Lambda Errors cannot tell
    // them apart: a refusal is a thrown "Unauthorized".
    new MetricFilter(this, 'AuthorizerFailuresFilter', {
      logGroup: props.accessLogGroup,
      metricNamespace: metrics.accessLogNamespace,
      metricName: ServiceMetrics.AUTHORIZER_FAILURES,
      filterPattern: FilterPattern.any(
        FilterPattern.stringValue('$.errorType', '=', 'AUTHORIZER_FAILURE'),
        FilterPattern.stringValue('$.errorType', '=', 'AUTHORIZER_CONFIGURATION_ERROR'),
      ),
      metricValue: '1',
    });

    const freeStorageMb = freeStorageThresholdMb(props.searchEbsVolumeSizeGiB);
    const freeStoragePercent = Math.round(ALARM_THRESHOLDS.searchFreeStorageShare * 100);
    const definitions: AlarmDefinition[] = [
      {
        anchor: 'api-5xx-rate',
        severity: 'page',
        metric: metrics.api5xxRateWithMinimumTraffic(),
        threshold: ALARM_THRESHOLDS.api5xxRatePercent,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING, // no requests, no errors (the canary covers silence)
        summary: `More than 1% of at least ${ALARM_THRESHOLDS.api5xxMinimumRequests} API requests got a 5xx over 5 minutes: callers are seeing server errors.`,
        widget: DASHBOARD_WIDGETS.apiRequests,
      },
      {
        anchor: 'api-latency-p99',
        severity: 'ticket',
        metric: metrics.apiLatency('p99'),
        threshold: ALARM_THRESHOLDS.apiLatencyP99Ms,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        // Two of three 5-minute windows, so one cold start at night does not page.
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        summary: 'API p99 latency above 2 s in 2 of the last 3 five-minute windows: requests are slow.',
        widget: DASHBOARD_WIDGETS.apiLatency,
      },
      {
        anchor: 'webhook-dlq',
        severity: 'ticket',
        metric: metrics.deadLetters('webhook'),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING, // an idle, empty queue stops reporting
        summary: 'A webhook delivery is in the dead-letter queue: it failed every attempt, or could not be processed.',
        widget: DASHBOARD_WIDGETS.deadLetterQueues,
      },
      {
        anchor: 'indexer-failure-queue',
        severity: 'page',
        metric: metrics.deadLetters('indexer'),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        summary:
          'A table stream batch is in the indexer failure queue: the indexer or the webhook fan-out gave up on it, so the search index or webhooks miss changes.',
        widget: DASHBOARD_WIDGETS.deadLetterQueues,
      },
      {
        anchor: 'webhook-queue-age',
        severity: 'page',
        metric: metrics.webhookOldestMessageAge(),
        threshold: ALARM_THRESHOLDS.webhookOldestMessageSeconds,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        // Three minutes in a row: a retry delayed the longest SQS delay (900 s) is not stuck.
        evaluationPeriods: 3,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        summary: 'The oldest webhook message has waited over 15 minutes: the sender is not keeping up or not running.',
        widget: DASHBOARD_WIDGETS.webhookQueueAge,
      },
      {
        anchor: 'webhook-receiver-failing',
        severity: 'ticket',
        metric: metrics.webhookReceiverFailingSeconds(),
        threshold: ALARM_THRESHOLDS.webhookReceiverFailingSeconds,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING, // no failed attempts, no data
        summary:
          "A webhook subscription's receiver has failed every attempt for 30 minutes: its events are being retried (and reach the dead-letter queue after about 45 hours); after 3 days the subscription is disabled.",
        widget: DASHBOARD_WIDGETS.webhookReceivers,
      },
      {
        anchor: 'search-cluster-red',
        severity: 'page',
        metric: metrics.searchClusterRed(),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        // The domain reports it every minute: silence means the domain is gone or unreachable.
        treatMissingData: TreatMissingData.BREACHING,
        summary: 'The OpenSearch cluster is red: a primary shard is unassigned, so searches and indexing fail for part of the data.',
        widget: DASHBOARD_WIDGETS.searchClusterStatus,
      },
      {
        anchor: 'search-cluster-yellow',
        severity: 'ticket',
        metric: metrics.searchClusterYellow(),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        // Five minutes in a row: replicas move briefly during rebuilds and blue/green updates.
        evaluationPeriods: 5,
        // A gap keeps the state (no ticket, no false all-clear): red pages for a missing domain.
        treatMissingData: TreatMissingData.MISSING,
        summary: 'The OpenSearch cluster has been yellow for 5 minutes: a replica shard is unassigned, so one more node failure loses data availability.',
        widget: DASHBOARD_WIDGETS.searchClusterStatus,
      },
      {
        anchor: 'search-free-storage',
        severity: 'ticket',
        metric: metrics.searchFreeStorageMb(),
        threshold: freeStorageMb,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.MISSING,
        summary: `An OpenSearch data node has less than ${freeStoragePercent}% of its ${props.searchEbsVolumeSizeGiB} GiB free (${freeStorageMb} MB): at the flood stage (95% used) indexing stops.`,
        widget: DASHBOARD_WIDGETS.searchFreeStorage,
      },
      {
        anchor: 'indexer-errors',
        severity: 'page',
        metric: metrics.indexerErrors(),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        summary: 'The indexer Lambda failed invocations: whole stream batches are being retried, and the search index falls behind the table.',
        widget: DASHBOARD_WIDGETS.lambdaErrors,
      },
      {
        anchor: 'indexer-lag',
        severity: 'page',
        metric: metrics.indexerLag(),
        threshold: ALARM_THRESHOLDS.indexerLagSeconds,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING, // no stream batches, no lag
        summary: 'The search index trails the records table by more than 5 minutes (IndexerLagSeconds or the stream IteratorAge): searches return stale data.',
        widget: DASHBOARD_WIDGETS.indexerLag,
      },
      {
        anchor: 'authorizer-failures',
        severity: 'page',
        metric: metrics.authorizerFailures(),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        summary: 'The API key authorizer failed (error or timeout, not a refused key): API Gateway answered callers 500.',
        widget: DASHBOARD_WIDGETS.authorizerFailures,
      },
      {
        anchor: 'vectors-waiting',
        severity: 'ticket',
        metric: metrics.vectorBacklog(),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        // Four 15-minute backfill runs in a row: an hour.
        evaluationPeriods: 4,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        summary:
          'Records indexed without their vector (the embedding model failed when they were written) have waited over an hour for the backfill: listings and keyword search find them, semantic search, hybrid ranking and matching do not.',
        widget: DASHBOARD_WIDGETS.vectorBacklog,
      },
      {
        anchor: 'embedding-failures',
        severity: 'page',
        metric: metrics.embeddingFailures(),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        // Two 5-minute windows in a row: one throttled burst that the next minute absorbs does not page.
        evaluationPeriods: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING, // no failures, no data
        summary:
          'Calls to the Bedrock embedding model have failed for 10 minutes: semantic search and matching answer 503 SEARCH_UNAVAILABLE, hybrid search answers keyword matches only (meta.degraded), and the indexer writes new and changed records without their vector (they wait for the backfill).',
        widget: DASHBOARD_WIDGETS.searchLatencyByMode,
      },
      ...searchHealthAlarmDefinitions(metrics),
      ...throttleAlarms(metrics),
      ...(props.additionalDefinitions ?? []),
    ];
    this.definitions = definitions;

    const actions = { page: new SnsAction(this.topics.page), ticket: new SnsAction(this.topics.ticket) };
    const alarms = new Map<string, Alarm>();
    for (const definition of definitions) {
      const alarm = new Alarm(this, `Alarm-${definition.anchor}`, {
        alarmName: `${props.namePrefix}-${definition.anchor}`,
        alarmDescription: `${definition.summary} Dashboard: "${definition.widget}". Runbook: ${props.runbookUrl ?? RUNBOOK}#${runbookAnchorOf(definition.anchor)}`,
        metric: definition.metric,
        threshold: definition.threshold,
        comparisonOperator: definition.comparisonOperator,
        evaluationPeriods: definition.evaluationPeriods,
        datapointsToAlarm: definition.datapointsToAlarm ?? definition.evaluationPeriods,
        treatMissingData: definition.treatMissingData,
      });
      alarm.addAlarmAction(actions[definition.severity]);
      alarm.addOkAction(actions[definition.severity]);
      alarms.set(definition.anchor, alarm);
    }
    this.alarms = alarms;
  }
}

/** The runbook section of an alarm: the throttle alarms (`lambda-throttles-api`, `-background`, …) share one. */
export function runbookAnchorOf(anchor: string): string {
  return anchor.replace(/^(lambda-throttles)-.*$/, '$1');
}

/** Any throttled invocation, for API functions and background functions apart, at most 10 functions an alarm. */
function throttleAlarms(metrics: ServiceMetrics): AlarmDefinition[] {
  const definitions: AlarmDefinition[] = [];
  for (const kind of ['api', 'background'] as const) {
    const functions = metrics.props.functions.filter((fn) => fn.kind === kind);
    for (let start = 0; start < functions.length; start += MAX_METRICS_PER_ALARM) {
      const chunk: MonitoredFunction[] = functions.slice(start, start + MAX_METRICS_PER_ALARM);
      const part = functions.length > MAX_METRICS_PER_ALARM ? `-${start / MAX_METRICS_PER_ALARM + 1}` : '';
      const usingMetrics = Object.fromEntries(chunk.map((fn, i) => [`f${i}`, metrics.lambdaThrottles(fn)]));
      definitions.push({
        anchor: `lambda-throttles-${kind}${part}`,
        // Throttled API functions answer callers errors now; background work is retried.
        severity: kind === 'api' ? 'page' : 'ticket',
        metric: new MathExpression({
          expression: `SUM([${Object.keys(usingMetrics)
            .map((name) => `FILL(${name}, 0)`)
            .join(', ')}])`,
          usingMetrics,
          label: `Throttles (${kind} functions)`,
          period: Duration.minutes(5),
        }),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        summary: `Lambda throttled invocations of ${chunk.map((fn) => fn.label).join(', ')}: the account's or a function's concurrency limit was reached.`,
        widget: DASHBOARD_WIDGETS.lambdaThrottles,
      });
    }
  }
  return definitions;
}
