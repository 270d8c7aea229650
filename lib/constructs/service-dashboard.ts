import { Duration } from 'aws-cdk-lib';
import { AlarmStatusWidget, Dashboard, GraphWidget, type IAlarm, type IMetric, type IWidget, MathExpression, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { ALARM_THRESHOLDS, freeStorageThresholdMb, type MonitoredFunction, type ServiceMetrics } from './service-metrics';

/** Widget titles; the alarms and docs/runbook.md name the widget that shows each alarm's metric. */
export const DASHBOARD_WIDGETS = {
  apiRequests: 'API requests and errors',
  apiLatency: 'API latency',
  quotaRejections: 'Quota rejections',
  routeLatency: 'Handler latency p99 per route',
  routeErrors: 'Handler 5xx per route',
  searchLatencyByMode: 'Search and embedding latency',
  lambdaErrors: 'Lambda errors',
  lambdaThrottles: 'Lambda throttles',
  lambdaDuration: 'Lambda duration p99',
  lambdaConcurrency: 'Lambda concurrency',
  authorizerFailures: 'Authorizer failures',
  dynamoThrottles: 'DynamoDB throttles',
  dynamoCapacity: 'DynamoDB consumed capacity',
  searchClusterStatus: 'OpenSearch cluster status',
  searchCpuAndJvm: 'OpenSearch CPU and JVM memory pressure',
  searchFreeStorage: 'OpenSearch free storage',
  searchLatency: 'OpenSearch search latency',
  indexerLag: 'Indexer lag',
  vectorBacklog: 'Records waiting for their vector',
  webhookQueueAge: 'Webhook queue: age of the oldest message',
  deadLetterQueues: 'Dead-letter queues',
  webhookSuccessRate: 'Webhook success rate',
  webhookDeliveries: 'Webhook deliveries',
  webhookReceivers: 'Failing webhook receivers',
} as const;

/** A per-route widget's title is the route itself, e.g. `GET /grants-api/{id}`. */
export function routeWidgetTitle(route: { method: string; path: string }): string {
  return `${route.method} ${route.path}`;
}

export interface ServiceDashboardProps {
  readonly metrics: ServiceMetrics;
  readonly dashboardName: string;
  /** Each data node's EBS volume, to draw the free-storage alarm's line. */
  readonly searchEbsVolumeSizeGiB: number;
  /** Shown at the top with their state. */
  readonly alarms?: readonly IAlarm[];
  /** The runbook's full URL, linked from the top; the repository path docs/runbook.md without it. */
  readonly runbookUrl?: string;
  /** A row of widgets other constructs make (the synthetic canary's), under the alarms. */
  readonly additionalWidgets?: readonly IWidget[];
}

const WIDTH = 24;

/**
 * The stage's CloudWatch dashboard, top to bottom: alarms; the API (totals, then each route);
 * the functions; DynamoDB; OpenSearch; the indexer, queues and webhooks. Graphs draw their
 * alarm's threshold where there is one.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { metrics } = props;
    const { routes, functions } = metrics.props;
    const graph = (title: string, left: IMetric[], options: Partial<ConstructorParameters<typeof GraphWidget>[0]> = {}) =>
      new GraphWidget({ title, left, width: 8, height: 6, ...options });
    const perFunction = (metric: (fn: MonitoredFunction) => IMetric) => functions.map(metric);

    const rows: IWidget[][] = [
      [
        new TextWidget({
          markdown: `# ${props.dashboardName}\nAlarms go to the stage's SNS topic. What each one means and what to do first: ${props.runbookUrl ? `[the runbook](${props.runbookUrl})` : '`docs/runbook.md` in the repository'}.`,
          width: WIDTH,
          height: 2,
        }),
      ],
    ];
    if (props.alarms && props.alarms.length > 0) {
      rows.push([new AlarmStatusWidget({ title: 'Alarms', alarms: [...props.alarms], width: WIDTH, height: Math.ceil(props.alarms.length / 4) + 1 })]);
    }
    if (props.additionalWidgets && props.additionalWidgets.length > 0) rows.push([...props.additionalWidgets]);

    rows.push([
      graph(DASHBOARD_WIDGETS.apiRequests, [metrics.apiRequests(), metrics.api4xx(), metrics.api5xx()], {
        right: [metrics.api5xxRate()],
        rightAnnotations: [{ value: ALARM_THRESHOLDS.api5xxRatePercent, label: '5xx rate alarm' }],
        rightYAxis: { min: 0, label: '%', showUnits: false },
      }),
      graph(DASHBOARD_WIDGETS.apiLatency, [metrics.apiLatency('p50'), metrics.apiLatency('p90'), metrics.apiLatency('p99')], {
        leftAnnotations: [{ value: ALARM_THRESHOLDS.apiLatencyP99Ms, label: 'p99 alarm' }],
        leftYAxis: { min: 0, label: 'ms', showUnits: false },
      }),
      graph(DASHBOARD_WIDGETS.quotaRejections, [metrics.quotaRejections()]),
    ]);

    // Per route: latency percentiles on the left, 4xx and 5xx on the right, three routes a row.
    const routeWidgets = routes.map((route) =>
      graph(routeWidgetTitle(route), [metrics.apiLatency('p50', route), metrics.apiLatency('p90', route), metrics.apiLatency('p99', route)], {
        right: [metrics.api4xx(route), metrics.api5xx(route)],
        leftYAxis: { min: 0, label: 'ms', showUnits: false },
        rightYAxis: { min: 0, label: 'responses', showUnits: false },
      }),
    );
    for (let i = 0; i < routeWidgets.length; i += 3) rows.push(routeWidgets.slice(i, i + 3));

    rows.push([
      graph(
        DASHBOARD_WIDGETS.routeLatency,
        routes.map((route) => metrics.routeLatency(route, 'p99')),
      ),
      graph(
        DASHBOARD_WIDGETS.routeErrors,
        routes.map((route) => metrics.routeErrors(route)),
      ),
      graph(
        DASHBOARD_WIDGETS.searchLatencyByMode,
        [...(['keyword', 'semantic', 'hybrid'] as const).map((mode) => metrics.searchLatency(mode, 'p99')), metrics.embeddingLatency('p99')],
        {
          right: [metrics.embeddingFailures(), metrics.vectorSearchesShed()],
          leftYAxis: { min: 0, label: 'ms', showUnits: false },
          rightYAxis: { min: 0, label: 'failed or shed', showUnits: false },
        },
      ),
    ]);

    rows.push([
      graph(
        DASHBOARD_WIDGETS.lambdaErrors,
        perFunction((fn) => metrics.lambdaErrors(fn)),
        { width: 12 },
      ),
      graph(
        DASHBOARD_WIDGETS.lambdaThrottles,
        perFunction((fn) => metrics.lambdaThrottles(fn)),
        { width: 12 },
      ),
    ]);
    rows.push([
      graph(
        DASHBOARD_WIDGETS.lambdaDuration,
        perFunction((fn) => metrics.lambdaDuration(fn)),
        { width: 12 },
      ),
      graph(
        DASHBOARD_WIDGETS.lambdaConcurrency,
        perFunction((fn) => metrics.lambdaConcurrency(fn)),
        { width: 12 },
      ),
    ]);

    rows.push([
      graph(DASHBOARD_WIDGETS.authorizerFailures, [metrics.authorizerFailures()]),
      graph(DASHBOARD_WIDGETS.dynamoThrottles, [metrics.tableMetric('ReadThrottleEvents'), metrics.tableMetric('WriteThrottleEvents')]),
      graph(DASHBOARD_WIDGETS.dynamoCapacity, [metrics.tableMetric('ConsumedReadCapacityUnits'), metrics.tableMetric('ConsumedWriteCapacityUnits')]),
    ]);

    rows.push([
      graph(DASHBOARD_WIDGETS.searchClusterStatus, [metrics.searchClusterRed(), metrics.searchClusterYellow()], {
        width: 6,
        leftYAxis: { min: 0, max: 1, showUnits: false },
      }),
      graph(DASHBOARD_WIDGETS.searchCpuAndJvm, [metrics.searchCpu(), metrics.searchJvmPressure()], {
        width: 6,
        leftYAxis: { min: 0, max: 100, label: '%', showUnits: false },
      }),
      graph(DASHBOARD_WIDGETS.searchFreeStorage, [metrics.searchFreeStorageMb()], {
        width: 6,
        leftAnnotations: [{ value: freeStorageThresholdMb(props.searchEbsVolumeSizeGiB), label: 'free storage alarm' }],
        leftYAxis: { min: 0, label: 'MB', showUnits: false },
      }),
      graph(DASHBOARD_WIDGETS.searchLatency, [metrics.searchQueryLatency('p50'), metrics.searchQueryLatency('p99')], { width: 6 }),
    ]);

    rows.push([
      graph(
        DASHBOARD_WIDGETS.indexerLag,
        [
          metrics.indexerLag(),
          new MathExpression({
            expression: 'iteratorAgeMs / 1000',
            usingMetrics: { iteratorAgeMs: metrics.indexerIteratorAge() },
            label: 'Stream IteratorAge (s)',
            period: Duration.minutes(5),
          }),
          metrics.indexerLagSeconds(),
        ],
        {
          leftAnnotations: [{ value: ALARM_THRESHOLDS.indexerLagSeconds, label: 'lag alarm' }],
          leftYAxis: { min: 0, label: 's', showUnits: false },
        },
      ),
      graph(DASHBOARD_WIDGETS.vectorBacklog, [metrics.vectorBacklog(), metrics.recordsIndexedWithoutVector(), metrics.vectorsBackfilled()], {
        leftYAxis: { min: 0, label: 'records', showUnits: false },
      }),
      graph(DASHBOARD_WIDGETS.webhookQueueAge, [metrics.webhookOldestMessageAge()], {
        leftAnnotations: [{ value: ALARM_THRESHOLDS.webhookOldestMessageSeconds, label: 'age alarm' }],
        leftYAxis: { min: 0, label: 's', showUnits: false },
      }),
      graph(DASHBOARD_WIDGETS.webhookReceivers, [metrics.webhookReceiverFailingSeconds()], {
        right: [metrics.webhookFailuresBySubscription()],
        leftAnnotations: [{ value: ALARM_THRESHOLDS.webhookReceiverFailingSeconds, label: 'failing-receiver alarm' }],
        leftYAxis: { min: 0, label: 's', showUnits: false },
        rightYAxis: { min: 0, label: 'failed attempts', showUnits: false },
      }),
      graph(DASHBOARD_WIDGETS.deadLetterQueues, [metrics.deadLetters('webhook'), metrics.deadLetters('indexer')], {
        leftYAxis: { min: 0, label: 'messages', showUnits: false },
      }),
    ]);
    rows.push([
      graph(DASHBOARD_WIDGETS.webhookSuccessRate, [metrics.webhookSuccessRate()], {
        width: 12,
        leftYAxis: { min: 0, max: 100, label: '%', showUnits: false },
      }),
      graph(DASHBOARD_WIDGETS.webhookDeliveries, [metrics.webhookDelivered(), metrics.webhookFailed(), metrics.webhookRetried()], { width: 12 }),
    ]);

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      defaultInterval: Duration.hours(3),
      widgets: rows,
    });
  }
}
