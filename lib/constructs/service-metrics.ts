import { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric, type MetricOptions, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { METRIC_DIMENSIONS, METRIC_NAMES, METRICS_NAMESPACE } from '../../lambdas/core/metric-names';

/** One API route as the metrics name it. */
export interface MonitoredRoute {
  readonly method: string;
  /** Relative to the version root, e.g. `/grants-api/{id}`: the `route` dimension is `GET /grants-api/{id}`. */
  readonly path: string;
  /** API Gateway's Resource dimension, e.g. `/v1/grants-api/{id}`. */
  readonly resourcePath: string;
}

/** A function on the dashboard and in the throttle alarms. */
export interface MonitoredFunction {
  /** Short name shown in graphs and alarm descriptions, e.g. `GetGrant`. */
  readonly label: string;
  readonly function: IFunction;
  /** `api`: serves requests (routes and the authorizer); `background`: streams, queues, schedules. */
  readonly kind: 'api' | 'background';
}

export interface ServiceMetricsProps {
  /** POWERTOOLS_SERVICE_NAME: the `service` dimension of every metric the functions emit. */
  readonly serviceName: string;
  readonly apiName: string;
  readonly apiStageName: string;
  readonly routes: readonly MonitoredRoute[];
  readonly functions: readonly MonitoredFunction[];
  readonly authorizer: IFunction;
  readonly indexer: IFunction;
  readonly table: ITable;
  readonly searchDomain: IDomain;
  readonly webhookQueue: IQueue;
  readonly webhookDeadLetterQueue: IQueue;
  readonly indexerFailureQueue: IQueue;
}

/** The alarms' thresholds, also drawn on the dashboard's graphs. */
export const ALARM_THRESHOLDS = {
  api5xxRatePercent: 1,
  /** Below this many requests in 5 minutes the 5xx rate alarm stays quiet: one error at night is not a 1% outage. */
  api5xxMinimumRequests: 50,
  /** AWS's recommended OpenSearch alarms (developer guide, "Recommended CloudWatch alarms"). */
  searchCpuPercent: 80,
  searchJvmPressurePercent: 95,
  apiLatencyP99Ms: 2000,
  webhookOldestMessageSeconds: 900,
  /** A subscription's receiver failing every attempt for this long pages (receivers are disabled after 3 days). */
  webhookReceiverFailingSeconds: 1_800,
  indexerLagSeconds: 300,
  /** Share of a data node's EBS volume below which its free storage alarms. */
  searchFreeStorageShare: 0.2,
} as const;

/** FreeStorageSpace (MB, per node) below which the free-storage alarm fires. */
export function freeStorageThresholdMb(ebsVolumeSizeGiB: number): number {
  return Math.floor(ebsVolumeSizeGiB * 1024 * ALARM_THRESHOLDS.searchFreeStorageShare);
}

const FIVE_MINUTES = Duration.minutes(5);
const ONE_MINUTE = Duration.minutes(1);

/**
 * The metrics the dashboard shows and the alarms watch, defined once so a widget and its alarm
 * never read two different things. AWS metrics come from the services; the service's own come
 * from the functions (Powertools Metrics, EMF) under lambdas/core/metric-names.ts, whose
 * dimension sets must match exactly: `service` on all, plus `route` or `mode` where listed there.
 */
export class ServiceMetrics {
  /** Where the access-log metric filter of authorizer failures publishes (ServiceAlarms creates it). */
  readonly accessLogNamespace: string;
  static readonly AUTHORIZER_FAILURES = 'AuthorizerFailures';

  constructor(readonly props: ServiceMetricsProps) {
    // Per API: a metric filter cannot add a constant dimension, and stages may share an account.
    this.accessLogNamespace = `${METRICS_NAMESPACE}/${props.apiName}`;
  }

  // ---- API Gateway (the caller's view: includes gateway refusals and authorizer failures) ----

  private api(metricName: string, options: MetricOptions, route?: MonitoredRoute): Metric {
    return new Metric({
      namespace: 'AWS/ApiGateway',
      metricName,
      dimensionsMap: {
        ApiName: this.props.apiName,
        Stage: this.props.apiStageName,
        ...(route ? { Resource: route.resourcePath, Method: route.method } : {}),
      },
      period: FIVE_MINUTES,
      ...options,
    });
  }

  apiRequests(route?: MonitoredRoute): Metric {
    return this.api('Count', { statistic: Stats.SUM, label: 'Requests' }, route);
  }

  api4xx(route?: MonitoredRoute): Metric {
    return this.api('4XXError', { statistic: Stats.SUM, label: '4xx' }, route);
  }

  api5xx(route?: MonitoredRoute): Metric {
    return this.api('5XXError', { statistic: Stats.SUM, label: '5xx' }, route);
  }

  /** `p50`, `p90`, `p99`: end-to-end latency as API Gateway measures it. */
  apiLatency(percentile: 'p50' | 'p90' | 'p99', route?: MonitoredRoute): Metric {
    return this.api('Latency', { statistic: percentile, label: `Latency ${percentile}` }, route);
  }

  /** Percentage of requests answered 5xx (no data without requests). */
  api5xxRate(): MathExpression {
    return new MathExpression({
      expression: '100 * errors / requests',
      usingMetrics: { errors: this.api5xx(), requests: this.apiRequests() },
      label: '5xx rate (%)',
      period: FIVE_MINUTES,
    });
  }

  /** The 5xx rate, or 0 while fewer than api5xxMinimumRequests requests came in (one error at low traffic does not page). */
  api5xxRateWithMinimumTraffic(): MathExpression {
    return new MathExpression({
      expression: `IF(requests >= ${ALARM_THRESHOLDS.api5xxMinimumRequests}, 100 * FILL(errors, 0) / requests, 0)`,
      usingMetrics: { errors: this.api5xx(), requests: this.apiRequests() },
      label: `5xx rate (%), at least ${ALARM_THRESHOLDS.api5xxMinimumRequests} requests`,
      period: FIVE_MINUTES,
    });
  }

  // ---- The service's own metrics (EMF) ----

  private own(metricName: string, options: MetricOptions, dimensions: Record<string, string> = {}): Metric {
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensionsMap: { service: this.props.serviceName, ...dimensions },
      period: FIVE_MINUTES,
      ...options,
    });
  }

  /** The `route` dimension the handlers emit, e.g. `GET /grants-api/{id}`. */
  static routeName(route: MonitoredRoute): string {
    return `${route.method} ${route.path}`;
  }

  routeLatency(route: MonitoredRoute, percentile: 'p50' | 'p99'): Metric {
    return this.own(
      METRIC_NAMES.latency,
      { statistic: percentile, label: `${ServiceMetrics.routeName(route)} ${percentile}` },
      { [METRIC_DIMENSIONS.route]: ServiceMetrics.routeName(route) },
    );
  }

  routeErrors(route: MonitoredRoute): Metric {
    return this.own(
      METRIC_NAMES.errors,
      { statistic: Stats.SUM, label: ServiceMetrics.routeName(route) },
      { [METRIC_DIMENSIONS.route]: ServiceMetrics.routeName(route) },
    );
  }

  searchLatency(mode: 'keyword' | 'semantic' | 'hybrid', percentile: 'p50' | 'p99'): Metric {
    return this.own(METRIC_NAMES.searchLatency, { statistic: percentile, label: `${mode} ${percentile}` }, { [METRIC_DIMENSIONS.searchMode]: mode });
  }

  embeddingLatency(percentile: 'p50' | 'p99'): Metric {
    return this.own(METRIC_NAMES.embeddingLatency, { statistic: percentile, label: `Embedding ${percentile}` });
  }

  embeddingFailures(): Metric {
    return this.own(METRIC_NAMES.embeddingFailures, { statistic: Stats.SUM, label: 'Embedding failures' });
  }

  vectorSearchesShed(): Metric {
    return this.own(METRIC_NAMES.vectorSearchesShed, { statistic: Stats.SUM, label: 'Vector searches shed (domain overloaded)' });
  }

  quotaRejections(): Metric {
    return this.own(METRIC_NAMES.quotaRejections, { statistic: Stats.SUM, label: 'Quota rejections (429)' });
  }

  webhookDelivered(): Metric {
    return this.own(METRIC_NAMES.webhookDelivered, { statistic: Stats.SUM, label: 'Delivered' });
  }

  webhookFailed(): Metric {
    return this.own(METRIC_NAMES.webhookFailed, { statistic: Stats.SUM, label: 'Failed (last attempt)' });
  }

  webhookRetried(): Metric {
    return this.own(METRIC_NAMES.webhookRetried, { statistic: Stats.SUM, label: 'Retried' });
  }

  /** The longest a failing receiver had been failing at any attempt in the period (core/webhooks/receiver-health.ts). */
  webhookReceiverFailingSeconds(): Metric {
    return this.own(METRIC_NAMES.webhookReceiverFailingSeconds, { statistic: Stats.MAXIMUM, label: 'Longest-failing receiver (s)' });
  }

  /** Each subscription's failed attempts, one line per subscription (a SEARCH over the `subscription` dimension). */
  webhookFailuresBySubscription(): MathExpression {
    const search = `{${METRICS_NAMESPACE},${METRIC_DIMENSIONS.subscription},service} MetricName="${METRIC_NAMES.webhookSubscriptionFailures}" service="${this.props.serviceName}"`;
    return new MathExpression({
      expression: `SEARCH('${search}', 'Sum', 300)`,
      usingMetrics: {},
      label: 'Failed attempts by subscription',
      period: FIVE_MINUTES,
    });
  }

  /** Delivered / (delivered + failed), in percent; no data when nothing finished. */
  webhookSuccessRate(): MathExpression {
    return new MathExpression({
      expression: '100 * delivered / (delivered + failed)',
      usingMetrics: { delivered: this.webhookDelivered(), failed: this.webhookFailed() },
      label: 'Webhook success rate (%)',
      period: FIVE_MINUTES,
    });
  }

  /** Records waiting for their vector, as each 15-minute backfill run finds them (up to its batch). */
  vectorBacklog(): Metric {
    return this.own(METRIC_NAMES.vectorBacklog, { statistic: Stats.MAXIMUM, period: Duration.minutes(15), label: 'Records waiting for a vector (max)' });
  }

  recordsIndexedWithoutVector(): Metric {
    return this.own(METRIC_NAMES.recordsIndexedWithoutVector, { statistic: Stats.SUM, label: 'Indexed without a vector' });
  }

  vectorsBackfilled(): Metric {
    return this.own(METRIC_NAMES.vectorsBackfilled, { statistic: Stats.SUM, label: 'Vectors backfilled' });
  }

  indexerLagSeconds(): Metric {
    return this.own(METRIC_NAMES.indexerLagSeconds, { statistic: Stats.MAXIMUM, label: 'IndexerLagSeconds (max)' });
  }

  /** Failed invocations of the indexer (a record it cannot index is a partial batch failure, not an error). */
  indexerErrors(): Metric {
    return this.props.indexer.metricErrors({ period: FIVE_MINUTES, label: 'Indexer errors' });
  }

  /** The stream's own view of the indexer's lag: the age of the last record read, in ms. */
  indexerIteratorAge(): Metric {
    return this.props.indexer.metric('IteratorAge', { statistic: Stats.MAXIMUM, period: FIVE_MINUTES, label: 'Stream IteratorAge (max, ms)' });
  }

  /** How far the search index trails the table, in seconds: the larger of the indexer's own figure and the stream's. */
  indexerLag(): MathExpression {
    return new MathExpression({
      expression: 'MAX([FILL(lag, 0), FILL(iteratorAgeMs, 0) / 1000])',
      usingMetrics: { lag: this.indexerLagSeconds(), iteratorAgeMs: this.indexerIteratorAge() },
      label: 'Indexer lag (s)',
      period: FIVE_MINUTES,
    });
  }

  /** 500s API Gateway answered because the authorizer failed (errors or timeouts, not refused keys), from the access log. */
  authorizerFailures(): Metric {
    return new Metric({
      namespace: this.accessLogNamespace,
      metricName: ServiceMetrics.AUTHORIZER_FAILURES,
      statistic: Stats.SUM,
      period: FIVE_MINUTES,
      label: 'Authorizer failures (500)',
    });
  }

  // ---- Lambda ----

  lambdaErrors(fn: MonitoredFunction): Metric {
    return fn.function.metricErrors({ period: FIVE_MINUTES, label: fn.label });
  }

  lambdaThrottles(fn: MonitoredFunction): Metric {
    return fn.function.metricThrottles({ period: FIVE_MINUTES, label: fn.label });
  }

  lambdaDuration(fn: MonitoredFunction): Metric {
    return fn.function.metricDuration({ statistic: 'p99', period: FIVE_MINUTES, label: fn.label });
  }

  lambdaConcurrency(fn: MonitoredFunction): Metric {
    return fn.function.metric('ConcurrentExecutions', { statistic: Stats.MAXIMUM, period: FIVE_MINUTES, label: fn.label });
  }

  // ---- DynamoDB ----

  tableMetric(metricName: 'ReadThrottleEvents' | 'WriteThrottleEvents' | 'ConsumedReadCapacityUnits' | 'ConsumedWriteCapacityUnits'): Metric {
    return this.props.table.metric(metricName, { statistic: Stats.SUM, period: FIVE_MINUTES, label: metricName });
  }

  // ---- OpenSearch (AWS/ES, DomainName and ClientId) ----

  searchClusterRed(): Metric {
    return this.props.searchDomain.metricClusterStatusRed({ period: ONE_MINUTE, label: 'Red' });
  }

  searchClusterYellow(): Metric {
    return this.props.searchDomain.metricClusterStatusYellow({ period: ONE_MINUTE, label: 'Yellow' });
  }

  /** The fullest node's free space, in MB. */
  searchFreeStorageMb(): Metric {
    return this.props.searchDomain.metricFreeStorageSpace({ period: FIVE_MINUTES, label: 'Free storage, fullest node (MB)' });
  }

  searchCpu(): Metric {
    return this.props.searchDomain.metricCPUUtilization({ statistic: Stats.MAXIMUM, period: FIVE_MINUTES, label: 'CPU % (max)' });
  }

  searchJvmPressure(): Metric {
    return this.props.searchDomain.metricJVMMemoryPressure({ statistic: Stats.MAXIMUM, period: FIVE_MINUTES, label: 'JVM memory pressure % (max)' });
  }

  /** 1 while the domain blocks writes (ClusterBlockException: disk flood stage or memory). */
  searchWritesBlocked(): Metric {
    return this.props.searchDomain.metricClusterIndexWritesBlocked({ statistic: Stats.MAXIMUM, period: FIVE_MINUTES, label: 'Index writes blocked' });
  }

  searchSnapshotFailure(): Metric {
    return this.props.searchDomain.metricAutomatedSnapshotFailure({ statistic: Stats.MAXIMUM, period: ONE_MINUTE, label: 'Automated snapshot failure' });
  }

  /** CPU over 15-minute windows, as AWS's recommended alarm reads it. */
  searchCpuSustained(): Metric {
    return this.props.searchDomain.metricCPUUtilization({ statistic: Stats.MAXIMUM, period: Duration.minutes(15), label: 'CPU % (max, 15 min)' });
  }

  searchJvmPressurePerMinute(): Metric {
    return this.props.searchDomain.metricJVMMemoryPressure({ statistic: Stats.MAXIMUM, period: ONE_MINUTE, label: 'JVM memory pressure % (max, 1 min)' });
  }

  /** Requests a node's search or write thread pool queue refused (it was full). */
  searchThreadpoolRejected(pool: 'Search' | 'Write'): Metric {
    return this.props.searchDomain.metric(`Threadpool${pool}Rejected`, { statistic: Stats.SUM, period: FIVE_MINUTES, label: `${pool} thread pool rejections` });
  }

  searchQueryLatency(percentile: 'p50' | 'p99'): Metric {
    return this.props.searchDomain.metricSearchLatency({ statistic: percentile, period: FIVE_MINUTES, label: `Search latency ${percentile} (ms)` });
  }

  // ---- SQS ----

  webhookOldestMessageAge(): Metric {
    return this.props.webhookQueue.metricApproximateAgeOfOldestMessage({
      statistic: Stats.MAXIMUM,
      period: ONE_MINUTE,
      label: 'Webhook queue: oldest message (s)',
    });
  }

  /** Messages waiting in a dead-letter queue (the webhook DLQ or the indexer failure queue). */
  deadLetters(queue: 'webhook' | 'indexer'): Metric {
    const [source, label] =
      queue === 'webhook' ? [this.props.webhookDeadLetterQueue, 'WebhookDeadLetterQueue'] : [this.props.indexerFailureQueue, 'IndexerFailureQueue'];
    return source.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: ONE_MINUTE, label });
  }
}
