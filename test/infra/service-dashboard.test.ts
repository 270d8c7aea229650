import { describe, expect, it } from 'vitest';
import { METRIC_DIMENSIONS, METRIC_NAMES, METRICS_NAMESPACE } from '../../lambdas/core/metric-names';
import { ACCOUNT_ROUTES, API_ROUTES } from '../../lib/api-routes';
import { DASHBOARD_WIDGETS, routeWidgetTitle } from '../../lib/constructs/service-dashboard';
import { freeStorageThresholdMb } from '../../lib/constructs/service-metrics';
import { type DashboardMetricLine, dashboardWidgets, metricLines } from './cloudwatch-templates';
import { resourcesOfType, synthStage } from './synth-stacks';

/** The stage's CloudWatch dashboard: every widget the on-call runbook refers to, reading the right metrics. */
describe('service dashboard', () => {
  const { stateless } = synthStage('prod');
  const widgets = dashboardWidgets(stateless);
  const widget = (title: string) => {
    const found = widgets.filter((w) => w.properties.title === title);
    expect(found, title).toHaveLength(1);
    return found[0]!;
  };
  const lines = (title: string) => metricLines(widget(title));
  const named = (title: string, namespace: string, metricName: string) =>
    lines(title).filter((line) => line.namespace === namespace && line.metricName === metricName);
  const expressions = (title: string) =>
    lines(title)
      .map((line) => line.options.expression)
      .filter((e): e is string => typeof e === 'string');
  // Every function of the service; not the CDK custom-resource provider's own, nor CDK's deploy-time upload of the docs assets.
  const functionCount = Object.entries(resourcesOfType(stateless, 'AWS::Lambda::Function')).filter(
    ([id, fn]) => !String(fn.Properties?.Description).startsWith('AWS CDK resource provider framework') && !id.startsWith('CustomCDKBucketDeployment'),
  ).length;
  const service = { service: 'gcf-data-service' };

  it('is named after the service and stage', () => {
    const [dashboard] = Object.values(resourcesOfType(stateless, 'AWS::CloudWatch::Dashboard'));
    expect(dashboard!.Properties?.DashboardName).toBe('gcf-data-service-prod');
  });

  it('has every widget once, and fits the 24-column grid', () => {
    for (const title of Object.values(DASHBOARD_WIDGETS)) widget(title);
    for (const w of widgets) expect(w.x + w.width).toBeLessThanOrEqual(24);
  });

  it('starts with the state of every alarm', () => {
    const status = widgets.find((w) => w.type === 'alarm')!;
    expect(status.properties.alarms).toHaveLength(Object.keys(resourcesOfType(stateless, 'AWS::CloudWatch::Alarm')).length);
  });

  it("shows the API's requests, 4xx, 5xx and 5xx rate, and its latency p50/p90/p99, for the stage", () => {
    const api = { ApiName: 'gcf-data-service-prod', Stage: expect.stringMatching(/^<Ref:ApiRestApiDeploymentStage/) };
    for (const name of ['Count', '4XXError', '5XXError']) {
      expect(
        named(DASHBOARD_WIDGETS.apiRequests, 'AWS/ApiGateway', name).map((l) => [l.dimensions, l.options.stat]),
        name,
      ).toEqual([[api, 'Sum']]);
    }
    expect(expressions(DASHBOARD_WIDGETS.apiRequests)).toEqual(['100 * errors / requests']);
    expect(named(DASHBOARD_WIDGETS.apiLatency, 'AWS/ApiGateway', 'Latency').map((l) => l.options.stat)).toEqual(['p50', 'p90', 'p99']);
  });

  it('has a widget per route with its 4xx, 5xx and latency p50/p90/p99 (API Gateway, by resource and method)', () => {
    for (const route of API_ROUTES) {
      const title = routeWidgetTitle(route);
      const dims = { ApiName: 'gcf-data-service-prod', Stage: expect.any(String), Resource: `/v1${route.path}`, Method: route.method };
      expect(
        named(title, 'AWS/ApiGateway', 'Latency').map((l) => [l.dimensions, l.options.stat]),
        title,
      ).toEqual([
        [dims, 'p50'],
        [dims, 'p90'],
        [dims, 'p99'],
      ]);
      expect(
        named(title, 'AWS/ApiGateway', '4XXError').map((l) => l.dimensions),
        title,
      ).toEqual([dims]);
      expect(
        named(title, 'AWS/ApiGateway', '5XXError').map((l) => l.dimensions),
        title,
      ).toEqual([dims]);
    }
  });

  it("shows the handlers' own latency and errors per route, search latency per mode and quota rejections, with the dimensions the functions emit", () => {
    const routes = [...API_ROUTES, ...ACCOUNT_ROUTES].map((route) => ({ ...service, [METRIC_DIMENSIONS.route]: `${route.method} ${route.path}` }));
    expect(named(DASHBOARD_WIDGETS.routeLatency, METRICS_NAMESPACE, METRIC_NAMES.latency).map((l) => l.dimensions)).toEqual(routes);
    expect(named(DASHBOARD_WIDGETS.routeErrors, METRICS_NAMESPACE, METRIC_NAMES.errors).map((l) => l.dimensions)).toEqual(routes);
    expect(named(DASHBOARD_WIDGETS.searchLatencyByMode, METRICS_NAMESPACE, METRIC_NAMES.searchLatency).map((l) => l.dimensions)).toEqual(
      ['keyword', 'semantic', 'hybrid'].map((mode) => ({ ...service, [METRIC_DIMENSIONS.searchMode]: mode })),
    );
    expect(named(DASHBOARD_WIDGETS.searchLatencyByMode, METRICS_NAMESPACE, METRIC_NAMES.embeddingLatency).map((l) => l.dimensions)).toEqual([service]);
    expect(named(DASHBOARD_WIDGETS.quotaRejections, METRICS_NAMESPACE, METRIC_NAMES.quotaRejections).map((l) => [l.dimensions, l.options.stat])).toEqual([
      [service, 'Sum'],
    ]);
  });

  it('shows errors, throttles, duration and concurrency of every function', () => {
    for (const [title, metricName] of [
      [DASHBOARD_WIDGETS.lambdaErrors, 'Errors'],
      [DASHBOARD_WIDGETS.lambdaThrottles, 'Throttles'],
      [DASHBOARD_WIDGETS.lambdaDuration, 'Duration'],
      [DASHBOARD_WIDGETS.lambdaConcurrency, 'ConcurrentExecutions'],
    ] as const) {
      const found = named(title, 'AWS/Lambda', metricName);
      expect(found, title).toHaveLength(functionCount);
      expect(new Set(found.map((l) => l.dimensions.FunctionName)).size, title).toBe(functionCount);
    }
    expect(named(DASHBOARD_WIDGETS.authorizerFailures, 'GcfDataService/gcf-data-service-prod', 'AuthorizerFailures')).toHaveLength(1);
  });

  it('shows DynamoDB throttles and consumed capacity of the records table', () => {
    const table = (l: DashboardMetricLine) => l.dimensions.TableName;
    expect(
      [
        ...named(DASHBOARD_WIDGETS.dynamoThrottles, 'AWS/DynamoDB', 'ReadThrottleEvents'),
        ...named(DASHBOARD_WIDGETS.dynamoThrottles, 'AWS/DynamoDB', 'WriteThrottleEvents'),
      ].map(table),
    ).toEqual([expect.stringMatching(/RecordsTable/), expect.stringMatching(/RecordsTable/)]);
    expect(named(DASHBOARD_WIDGETS.dynamoCapacity, 'AWS/DynamoDB', 'ConsumedReadCapacityUnits')).toHaveLength(1);
    expect(named(DASHBOARD_WIDGETS.dynamoCapacity, 'AWS/DynamoDB', 'ConsumedWriteCapacityUnits')).toHaveLength(1);
  });

  it('shows OpenSearch cluster status, CPU, JVM pressure, free storage (with the alarm line) and search latency, by domain and account', () => {
    const domain = { ClientId: '<Ref:AWS::AccountId>', DomainName: expect.stringMatching(/SearchDomain/) };
    const expectations: Array<[string, string, string]> = [
      [DASHBOARD_WIDGETS.searchClusterStatus, 'ClusterStatus.red', 'Maximum'],
      [DASHBOARD_WIDGETS.searchClusterStatus, 'ClusterStatus.yellow', 'Maximum'],
      [DASHBOARD_WIDGETS.searchCpuAndJvm, 'CPUUtilization', 'Maximum'],
      [DASHBOARD_WIDGETS.searchCpuAndJvm, 'JVMMemoryPressure', 'Maximum'],
      [DASHBOARD_WIDGETS.searchFreeStorage, 'FreeStorageSpace', 'Minimum'],
    ];
    for (const [title, metricName, stat] of expectations) {
      expect(
        named(title, 'AWS/ES', metricName).map((l) => [l.dimensions, l.options.stat]),
        metricName,
      ).toEqual([[domain, stat]]);
    }
    expect(named(DASHBOARD_WIDGETS.searchLatency, 'AWS/ES', 'SearchLatency').map((l) => l.options.stat)).toEqual(['p50', 'p99']);
    const annotations = widget(DASHBOARD_WIDGETS.searchFreeStorage).properties.annotations as { horizontal: Array<{ value: number }> };
    expect(annotations.horizontal[0]!.value).toBe(freeStorageThresholdMb(50));
  });

  it("shows the indexer lag, the webhook queue's oldest message, both dead-letter queues, and webhook deliveries with their success rate", () => {
    expect(named(DASHBOARD_WIDGETS.indexerLag, METRICS_NAMESPACE, METRIC_NAMES.indexerLagSeconds).map((l) => l.dimensions)).toEqual([service]);
    expect(named(DASHBOARD_WIDGETS.indexerLag, 'AWS/Lambda', 'IteratorAge').map((l) => l.dimensions.FunctionName)).toEqual([
      expect.stringMatching(/RecordIndexer/),
    ]);
    expect(named(DASHBOARD_WIDGETS.webhookQueueAge, 'AWS/SQS', 'ApproximateAgeOfOldestMessage').map((l) => l.dimensions.QueueName)).toEqual([
      expect.stringMatching(/WebhookQueue/),
    ]);
    expect(named(DASHBOARD_WIDGETS.deadLetterQueues, 'AWS/SQS', 'ApproximateNumberOfMessagesVisible').map((l) => l.dimensions.QueueName)).toEqual([
      expect.stringMatching(/WebhookDeadLetterQueue/),
      expect.stringMatching(/IndexerFailureQueue/),
    ]);
    expect(expressions(DASHBOARD_WIDGETS.webhookSuccessRate)).toEqual(['100 * delivered / (delivered + failed)']);
    expect(named(DASHBOARD_WIDGETS.webhookSuccessRate, METRICS_NAMESPACE, METRIC_NAMES.webhookDelivered)).toHaveLength(1);
    expect(named(DASHBOARD_WIDGETS.webhookSuccessRate, METRICS_NAMESPACE, METRIC_NAMES.webhookFailed)).toHaveLength(1);
    for (const name of [METRIC_NAMES.webhookDelivered, METRIC_NAMES.webhookFailed, METRIC_NAMES.webhookRetried]) {
      expect(
        named(DASHBOARD_WIDGETS.webhookDeliveries, METRICS_NAMESPACE, name).map((l) => l.dimensions),
        name,
      ).toEqual([service]);
    }
  });
});
