import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { METRIC_NAMES, METRICS_NAMESPACE } from '../../lambdas/core/metric-names';
import { RUNBOOK, runbookAnchorOf } from '../../lib/constructs/service-alarms';
import { PROJECT_ROOT } from '../../lib/project-root';
import { type CfnResource, referencedLogicalIds, resourcesOfType, synthStage } from './synth-stacks';

interface MetricQuery {
  readonly Id: string;
  readonly Expression?: string;
  readonly ReturnData?: boolean;
  readonly MetricStat?: {
    Metric: { Namespace: string; MetricName: string; Dimensions?: Array<{ Name: string; Value: unknown }> };
    Period: number;
    Stat: string;
  };
}

interface AlarmProperties {
  readonly AlarmName: string;
  readonly AlarmDescription: string;
  readonly Threshold: number;
  readonly ComparisonOperator: string;
  readonly EvaluationPeriods: number;
  readonly DatapointsToAlarm: number;
  readonly TreatMissingData: string;
  readonly AlarmActions: unknown[];
  readonly OKActions: unknown[];
  // A single metric...
  readonly Dimensions?: Array<{ Name: string; Value: unknown }>;
  readonly Namespace?: string;
  readonly MetricName?: string;
  readonly Period?: number;
  readonly Statistic?: string;
  readonly ExtendedStatistic?: string;
  // ...or metric math.
  readonly Metrics?: MetricQuery[];
}

/** What an alarm watches: its one metric, or its expression and the metrics the expression reads. */
function watched(alarm: AlarmProperties): { expression?: string; metrics: Array<{ namespace: string; name: string; stat: string; period: number }> } {
  if (alarm.Metrics) {
    const expression = alarm.Metrics.find((query) => query.ReturnData !== false && query.Expression)?.Expression;
    const metrics = alarm.Metrics.filter((query) => query.MetricStat).map((query) => ({
      namespace: query.MetricStat!.Metric.Namespace,
      name: query.MetricStat!.Metric.MetricName,
      stat: query.MetricStat!.Stat,
      period: query.MetricStat!.Period,
    }));
    return { expression, metrics };
  }
  return { metrics: [{ namespace: alarm.Namespace!, name: alarm.MetricName!, stat: alarm.Statistic ?? alarm.ExtendedStatistic!, period: alarm.Period! }] };
}

/**
 * Every alarm with its threshold, comparison, period, evaluation and missing-data handling, the
 * metric it watches, and its runbook section: a changed alarm fails here until this table (and
 * docs/runbook.md) say so too.
 */
const EXPECTED = {
  'api-5xx-rate': {
    severity: 'page',
    threshold: 1,
    comparison: 'GreaterThanThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'notBreaching',
    expression: 'IF(requests >= 50, 100 * FILL(errors, 0) / requests, 0)',
    metrics: [
      ['AWS/ApiGateway', '5XXError', 'Sum', 300],
      ['AWS/ApiGateway', 'Count', 'Sum', 300],
    ],
  },
  'api-latency-p99': {
    severity: 'ticket',
    threshold: 2000,
    comparison: 'GreaterThanThreshold',
    evaluationPeriods: 3,
    datapoints: 2,
    missing: 'notBreaching',
    metrics: [['AWS/ApiGateway', 'Latency', 'p99', 300]],
  },
  'webhook-dlq': {
    severity: 'ticket',
    threshold: 0,
    comparison: 'GreaterThanThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'notBreaching',
    metrics: [['AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'Maximum', 60]],
  },
  'indexer-failure-queue': {
    severity: 'page',
    threshold: 0,
    comparison: 'GreaterThanThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'notBreaching',
    metrics: [['AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'Maximum', 60]],
  },
  'webhook-queue-age': {
    severity: 'page',
    threshold: 900,
    comparison: 'GreaterThanThreshold',
    evaluationPeriods: 3,
    datapoints: 3,
    missing: 'notBreaching',
    metrics: [['AWS/SQS', 'ApproximateAgeOfOldestMessage', 'Maximum', 60]],
  },
  'webhook-receiver-failing': {
    severity: 'ticket',
    threshold: 1800,
    comparison: 'GreaterThanOrEqualToThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'notBreaching',
    metrics: [[METRICS_NAMESPACE, METRIC_NAMES.webhookReceiverFailingSeconds, 'Maximum', 300]],
  },
  'search-cluster-red': {
    severity: 'page',
    threshold: 1,
    comparison: 'GreaterThanOrEqualToThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'breaching',
    metrics: [['AWS/ES', 'ClusterStatus.red', 'Maximum', 60]],
  },
  'search-cluster-yellow': {
    severity: 'ticket',
    threshold: 1,
    comparison: 'GreaterThanOrEqualToThreshold',
    evaluationPeriods: 5,
    datapoints: 5,
    missing: 'missing',
    metrics: [['AWS/ES', 'ClusterStatus.yellow', 'Maximum', 60]],
  },
  'search-free-storage': {
    severity: 'ticket',
    threshold: 10_240,
    comparison: 'LessThanThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'missing',
    metrics: [['AWS/ES', 'FreeStorageSpace', 'Minimum', 300]],
  },
  'indexer-errors': {
    severity: 'page',
    threshold: 0,
    comparison: 'GreaterThanThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'notBreaching',
    metrics: [['AWS/Lambda', 'Errors', 'Sum', 300]],
  },
  'indexer-lag': {
    severity: 'page',
    threshold: 300,
    comparison: 'GreaterThanThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'notBreaching',
    expression: 'MAX([FILL(lag, 0), FILL(iteratorAgeMs, 0) / 1000])',
    metrics: [
      [METRICS_NAMESPACE, METRIC_NAMES.indexerLagSeconds, 'Maximum', 300],
      ['AWS/Lambda', 'IteratorAge', 'Maximum', 300],
    ],
  },
  'authorizer-failures': {
    severity: 'page',
    threshold: 0,
    comparison: 'GreaterThanThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'notBreaching',
    metrics: [['GcfDataService/gcf-data-service-prod', 'AuthorizerFailures', 'Sum', 300]],
  },
  'vectors-waiting': {
    severity: 'ticket',
    threshold: 0,
    comparison: 'GreaterThanThreshold',
    evaluationPeriods: 4,
    datapoints: 4,
    missing: 'notBreaching',
    metrics: [[METRICS_NAMESPACE, 'VectorBacklog', 'Maximum', 900]],
  },
  'api-canary': {
    severity: 'page',
    threshold: 90,
    comparison: 'LessThanThreshold',
    evaluationPeriods: 3,
    datapoints: 2,
    missing: 'breaching',
    metrics: [['CloudWatchSynthetics', 'SuccessPercent', 'Average', 300]],
  },
  'embedding-failures': {
    severity: 'page',
    threshold: 0,
    comparison: 'GreaterThanThreshold',
    evaluationPeriods: 2,
    datapoints: 2,
    missing: 'notBreaching',
    metrics: [[METRICS_NAMESPACE, METRIC_NAMES.embeddingFailures, 'Sum', 300]],
  },
  'search-writes-blocked': {
    severity: 'page',
    threshold: 1,
    comparison: 'GreaterThanOrEqualToThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'breaching',
    metrics: [['AWS/ES', 'ClusterIndexWritesBlocked', 'Maximum', 300]],
  },
  'search-cpu': {
    severity: 'ticket',
    threshold: 80,
    comparison: 'GreaterThanOrEqualToThreshold',
    evaluationPeriods: 3,
    datapoints: 3,
    missing: 'missing',
    metrics: [['AWS/ES', 'CPUUtilization', 'Maximum', 900]],
  },
  'search-jvm-pressure': {
    severity: 'ticket',
    threshold: 95,
    comparison: 'GreaterThanOrEqualToThreshold',
    evaluationPeriods: 3,
    datapoints: 3,
    missing: 'missing',
    metrics: [['AWS/ES', 'JVMMemoryPressure', 'Maximum', 60]],
  },
  'search-search-rejected': {
    severity: 'ticket',
    threshold: 1,
    comparison: 'GreaterThanOrEqualToThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'notBreaching',
    metrics: [['AWS/ES', 'ThreadpoolSearchRejected', 'Sum', 300]],
  },
  'search-write-rejected': {
    severity: 'ticket',
    threshold: 1,
    comparison: 'GreaterThanOrEqualToThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'notBreaching',
    metrics: [['AWS/ES', 'ThreadpoolWriteRejected', 'Sum', 300]],
  },
  'search-snapshot-failure': {
    severity: 'ticket',
    threshold: 1,
    comparison: 'GreaterThanOrEqualToThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'notBreaching',
    metrics: [['AWS/ES', 'AutomatedSnapshotFailure', 'Maximum', 60]],
  },
  // The route functions (the account API's one among them) and the authorizer: two alarms, as one may read at most 10 metrics.
  'lambda-throttles-api-1': {
    severity: 'page',
    threshold: 0,
    comparison: 'GreaterThanThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'notBreaching',
    throttledFunctions: 10,
  },
  'lambda-throttles-api-2': {
    severity: 'page',
    threshold: 0,
    comparison: 'GreaterThanThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'notBreaching',
    throttledFunctions: 2,
  },
  'lambda-throttles-background': {
    severity: 'ticket',
    threshold: 0,
    comparison: 'GreaterThanThreshold',
    evaluationPeriods: 1,
    datapoints: 1,
    missing: 'notBreaching',
    throttledFunctions: 7,
  },
} as const;

describe('service alarms', () => {
  const prod = synthStage('prod', { alarms: { email: 'ops@example.org' } });
  const dev = synthStage('dev');
  const alarmsOf = (template: typeof prod.stateless) =>
    new Map(
      Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm')).map((alarm) => {
        const properties = alarm.Properties as unknown as AlarmProperties;
        return [properties.AlarmName.replace(/^gcf-data-service-(prod|dev)-/, ''), properties] as const;
      }),
    );
  const alarms = alarmsOf(prod.stateless);
  const topicIds = Object.keys(resourcesOfType(prod.stateless, 'AWS::SNS::Topic'));
  const topicOf = { page: topicIds.find((id) => id.startsWith('AlarmsTopic')), ticket: topicIds.find((id) => id.startsWith('AlarmsTicketTopic')) };
  const topicId = topicOf.page;

  it('defines exactly the expected alarms, named <service>-<stage>-<what broke>', () => {
    expect([...alarms.keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
    expect([...alarmsOf(dev.stateless).values()].every((alarm) => alarm.AlarmName.startsWith('gcf-data-service-dev-'))).toBe(true);
  });

  it.each(Object.entries(EXPECTED))('%s: threshold, comparison, evaluation, missing data and metric', (name, expected) => {
    const alarm = alarms.get(name)!;
    expect({
      threshold: alarm.Threshold,
      comparison: alarm.ComparisonOperator,
      evaluationPeriods: alarm.EvaluationPeriods,
      datapoints: alarm.DatapointsToAlarm,
      missing: alarm.TreatMissingData,
    }).toEqual({
      threshold: expected.threshold,
      comparison: expected.comparison,
      evaluationPeriods: expected.evaluationPeriods,
      datapoints: expected.datapoints,
      missing: expected.missing,
    });
    const { expression, metrics } = watched(alarm);
    if ('throttledFunctions' in expected) {
      expect(expression).toMatch(/^SUM\(\[FILL\(f0, 0\)/);
      expect(metrics).toHaveLength(expected.throttledFunctions);
      expect(
        metrics.every((metric) => metric.namespace === 'AWS/Lambda' && metric.name === 'Throttles' && metric.stat === 'Sum' && metric.period === 300),
      ).toBe(true);
    } else {
      expect(expression).toBe('expression' in expected ? expected.expression : undefined);
      expect(metrics.map((metric) => [metric.namespace, metric.name, metric.stat, metric.period])).toEqual(expected.metrics);
    }
  });

  it("notifies its severity's topic (paging or ticket) when an alarm fires and when it clears", () => {
    expect(topicIds).toHaveLength(2);
    for (const [name, alarm] of alarms) {
      const topic = { Ref: topicOf[EXPECTED[name as keyof typeof EXPECTED].severity] };
      expect(alarm.AlarmActions, name).toEqual([topic]);
      expect(alarm.OKActions, name).toEqual([topic]);
    }
  });

  it('reads every OpenSearch alarm by the domain and the account (DomainName and ClientId)', () => {
    const search = [...alarms].filter(([name]) => name.startsWith('search-'));
    expect(search.length).toBe(9);
    for (const [name, alarm] of search) {
      const dimensions = alarm.Dimensions ?? (alarm.Metrics ?? []).flatMap((q) => q.MetricStat?.Metric.Dimensions ?? []);
      expect(dimensions.map((d) => d.Name).sort(), name).toEqual(['ClientId', 'DomainName']);
    }
  });

  it('says in each description what broke, which dashboard widget shows it, and its runbook section, which exists', () => {
    const runbook = readFileSync(join(PROJECT_ROOT, RUNBOOK), 'utf8');
    for (const [name, alarm] of alarms) {
      const anchor = runbookAnchorOf(name);
      expect(alarm.AlarmDescription, name).toMatch(new RegExp(`Dashboard: ".+"\\. Runbook: docs/runbook\\.md#${anchor}$`));
      expect(runbook, name).toContain(`\n## ${anchor}\n`);
    }
  });

  it('watches the right resources: the webhook DLQ, the indexer failure queue, the webhook queue, the domain, the indexer', () => {
    const dimension = (name: string, key: string) =>
      JSON.stringify(
        (alarms.get(name)!.Metrics ?? [])
          .flatMap((q) => q.MetricStat?.Metric.Dimensions ?? [])
          .concat((alarms.get(name) as unknown as { Dimensions?: Array<{ Name: string; Value: unknown }> }).Dimensions ?? [])
          .filter((d) => d.Name === key)
          .map((d) => d.Value),
      );
    expect(dimension('webhook-dlq', 'QueueName')).toMatch(/WebhookDeadLetterQueue/);
    expect(dimension('indexer-failure-queue', 'QueueName')).toMatch(/IndexerFailureQueue/);
    expect(dimension('webhook-queue-age', 'QueueName')).toMatch(/WebhookQueueQueueName/);
    for (const name of ['search-cluster-red', 'search-cluster-yellow', 'search-free-storage']) {
      expect(dimension(name, 'DomainName'), name).toMatch(/SearchDomain/);
      expect(dimension(name, 'ClientId'), name).toBe('[{"Ref":"AWS::AccountId"}]');
    }
    expect(dimension('indexer-errors', 'FunctionName')).toMatch(/RecordIndexer/);
    expect(dimension('indexer-lag', 'FunctionName')).toMatch(/RecordIndexer/);
    expect(dimension('api-5xx-rate', 'ApiName')).toBe('["gcf-data-service-prod","gcf-data-service-prod"]');
  });

  it("puts free storage at 20% of each data node's EBS volume, in MB", () => {
    expect(alarmsOf(dev.stateless).get('search-free-storage')!.Threshold).toBe(2048); // 10 GiB
    expect(alarms.get('search-free-storage')!.Threshold).toBe(10_240); // 50 GiB
  });

  it('covers every function with a throttle alarm of at most 10 metrics (the CloudWatch limit)', () => {
    const throttled = [...alarms]
      .filter(([name]) => name.startsWith('lambda-throttles-'))
      .flatMap(([, alarm]) => (alarm.Metrics ?? []).flatMap((q) => q.MetricStat?.Metric.Dimensions ?? []).map((d) => JSON.stringify(d.Value)));
    // Not CDK's own deploy-time functions: the custom-resource provider framework's, the docs assets' upload.
    const functions = Object.entries(resourcesOfType(prod.stateless, 'AWS::Lambda::Function')).filter(
      ([id, fn]) => !String(fn.Properties?.Description).startsWith('AWS CDK resource provider framework') && !id.startsWith('CustomCDKBucketDeployment'),
    );
    expect(throttled.sort()).toEqual(functions.map(([id]) => JSON.stringify({ Ref: id })).sort());
    for (const [name, alarm] of alarms) expect((alarm.Metrics ?? []).filter((q) => q.MetricStat).length, name).toBeLessThanOrEqual(10);
  });

  it('counts authorizer failures from the API access log: AUTHORIZER_FAILURE and AUTHORIZER_CONFIGURATION_ERROR, not refused keys', () => {
    const filters = Object.values(resourcesOfType(prod.stateless, 'AWS::Logs::MetricFilter'));
    expect(filters).toHaveLength(1);
    expect(filters[0]!.Properties).toEqual({
      LogGroupName: { Ref: expect.stringMatching(/^ApiAccessLogs/) },
      FilterPattern: '{ ($.errorType = "AUTHORIZER_FAILURE") || ($.errorType = "AUTHORIZER_CONFIGURATION_ERROR") }',
      MetricTransformations: [{ MetricNamespace: 'GcfDataService/gcf-data-service-prod', MetricName: 'AuthorizerFailures', MetricValue: '1' }],
    });
  });

  it('links each description and the dashboard to the runbook section itself when the stage has a docsBaseUrl', () => {
    const linked = synthStage('qa', { alarms: { docsBaseUrl: 'https://git.acme.net/gcf/blob/main/docs/' } });
    const descriptions = [...alarmsOf(linked.stateless).values()].map((alarm) => alarm.AlarmDescription);
    expect(descriptions.length).toBe(Object.keys(EXPECTED).length);
    for (const description of descriptions) expect(description).toMatch(/ Runbook: https:\/\/git\.acme\.net\/gcf\/blob\/main\/docs\/runbook\.md#[a-z0-9-]+$/);
    const [dashboard] = Object.values(resourcesOfType(linked.stateless, 'AWS::CloudWatch::Dashboard'));
    expect(JSON.stringify(dashboard!.Properties)).toContain('[the runbook](https://git.acme.net/gcf/blob/main/docs/runbook.md)');
    expect([...alarms.values()].every((alarm) => alarm.AlarmDescription.includes(` Runbook: ${RUNBOOK}#`))).toBe(true);
  });

  it('e-mails the configured address, and nobody when none is configured', () => {
    expect(Object.values(resourcesOfType(prod.stateless, 'AWS::SNS::Subscription')).map((s) => s.Properties)).toEqual([
      { Protocol: 'email', Endpoint: 'ops@example.org', TopicArn: { Ref: topicOf.page } },
      { Protocol: 'email', Endpoint: 'ops@example.org', TopicArn: { Ref: topicOf.ticket } },
    ]);
    expect(resourcesOfType(dev.stateless, 'AWS::SNS::Subscription')).toEqual({});
  });

  it('encrypts the topic with a rotated customer-managed key CloudWatch may use, and refuses publishing without TLS', () => {
    const topic = resourcesOfType(prod.stateless, 'AWS::SNS::Topic')[topicId!]!;
    const [keyId] = referencedLogicalIds(topic.Properties?.KmsMasterKeyId);
    const key: CfnResource = resourcesOfType(prod.stateless, 'AWS::KMS::Key')[keyId!]!;
    expect(key.Properties?.EnableKeyRotation).toBe(true);
    const keyStatements = (key.Properties?.KeyPolicy as { Statement: Array<Record<string, unknown>> }).Statement;
    expect(keyStatements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      }),
    );
    const [policy] = Object.values(resourcesOfType(prod.stateless, 'AWS::SNS::TopicPolicy'));
    const statements = (policy!.Properties?.PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Action: 'sns:Publish', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Allow', Action: 'sns:Publish', Principal: { Service: 'cloudwatch.amazonaws.com' } }));
  });
});
