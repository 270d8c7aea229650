import { CloudFormationClient, type Stack } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, GetMetricDataCommand, type MetricDataQuery, paginateDescribeAlarms } from '@aws-sdk/client-cloudwatch';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { METRIC_NAMES, METRICS_NAMESPACE } from '../lambdas/core/metric-names';
import type { AlarmFact, Checked, QueueDepth, QueueFact, QueueRole, Reading, StackFact, StageHealthFacts } from '../lambdas/core/ops/stage-health';
import { STACK_OUTPUTS, serviceNameOf, stackNamesOf } from '../lib/stack-names';
import { AwsTargetError, describeStack, outputOf } from './aws-target';

/**
 * What `admin status --target aws` reads of a deployed stage, with the AWS SDK: both stacks
 * (CloudFormation DescribeStacks: status, newest deploy, and the outputs naming everything else),
 * the alarms in ALARM (CloudWatch DescribeAlarms), the dead-letter queues' depths (SQS
 * GetQueueAttributes) and the newest datapoints of the lag and queue-age metrics (CloudWatch
 * GetMetricData). The verdict is lambdas/core/ops/stage-health.ts's.
 *
 * The stacks must be readable, or there is no stage to speak of: that failure is an
 * AwsTargetError (one line, exit 1). Every later read fails on its own, as that fact's error, so
 * one missing permission still leaves the rest of the report.
 */

/** How far back the metric readings look: the indexer-lag alarm evaluates 5 minutes, the queue alarms 1 to 3. */
export const METRIC_WINDOW_MINUTES = 30;

export interface StageHealthClients {
  cloudFormation: CloudFormationClient;
  cloudWatch: CloudWatchClient;
  sqs: SQSClient;
}

/** Clients with the standard credential chain; each honours its AWS_ENDPOINT_URL_<SERVICE> override (how the tests reach stand-ins). */
export function awsStageHealthClients(region?: string): StageHealthClients & { close(): void } {
  const clients = { cloudFormation: new CloudFormationClient({ region }), cloudWatch: new CloudWatchClient({ region }), sqs: new SQSClient({ region }) };
  return { ...clients, close: () => Object.values(clients).forEach((client) => client.destroy()) };
}

async function checked<T>(read: () => Promise<T>): Promise<Checked<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    return { ok: false, error: (error as Error).message || (error as Error).name };
  }
}

/**
 * The metric alarms in ALARM whose names start with `namePrefix`. A prefix alone is not enough:
 * stage dev's prefix `gcf-data-service-dev-` also starts stage dev-alice's alarm names, so with
 * the stage's topics (paging and ticket) known only the alarms that notify one of them are kept.
 */
export async function alarmsInAlarm(cloudWatch: CloudWatchClient, namePrefix: string, topicArns: readonly string[] = []): Promise<AlarmFact[]> {
  const alarms: AlarmFact[] = [];
  for await (const page of paginateDescribeAlarms({ client: cloudWatch }, { AlarmNamePrefix: namePrefix, StateValue: 'ALARM' })) {
    for (const alarm of page.MetricAlarms ?? []) {
      if (topicArns.length > 0 && !(alarm.AlarmActions ?? []).some((action) => topicArns.includes(action))) continue;
      alarms.push({
        name: alarm.AlarmName ?? '(unnamed)',
        reason: alarm.StateReason ?? '',
        // When it went into ALARM; StateUpdatedTimestamp also moves when only the reason's figures change.
        since: alarm.StateTransitionedTimestamp ?? alarm.StateUpdatedTimestamp ?? new Date(0),
        description: alarm.AlarmDescription ?? null,
      });
    }
  }
  return alarms;
}

export async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<QueueDepth> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  const count = (name: string) => Number(Attributes[name as keyof typeof Attributes] ?? 0);
  return {
    visible: count('ApproximateNumberOfMessages'),
    inFlight: count('ApproximateNumberOfMessagesNotVisible'),
    delayed: count('ApproximateNumberOfMessagesDelayed'),
  };
}

export interface MetricRequest {
  /** GetMetricData's query id: a lower-case letter, then letters, digits and _. */
  id: string;
  namespace: string;
  metricName: string;
  dimensions: Record<string, string>;
}

/**
 * The newest one-minute Maximum of each metric within the window ending at `end`, null for a
 * metric with no datapoint there. Newest first (TimestampDescending), so each metric's first
 * value is the one wanted even if CloudWatch paged the rest.
 */
export async function newestDatapoints(
  cloudWatch: CloudWatchClient,
  metrics: readonly MetricRequest[],
  end: Date,
  windowMinutes = METRIC_WINDOW_MINUTES,
): Promise<Map<string, { value: number; at: Date } | null>> {
  const newest = new Map<string, { value: number; at: Date } | null>(metrics.map((metric) => [metric.id, null]));
  if (metrics.length === 0) return newest;
  const queries: MetricDataQuery[] = metrics.map((metric) => ({
    Id: metric.id,
    MetricStat: {
      Metric: {
        Namespace: metric.namespace,
        MetricName: metric.metricName,
        Dimensions: Object.entries(metric.dimensions).map(([Name, Value]) => ({ Name, Value })),
      },
      Period: 60,
      Stat: 'Maximum',
    },
    ReturnData: true,
  }));
  const { MetricDataResults = [] } = await cloudWatch.send(
    new GetMetricDataCommand({
      MetricDataQueries: queries,
      StartTime: new Date(end.getTime() - windowMinutes * 60_000),
      EndTime: end,
      ScanBy: 'TimestampDescending',
    }),
  );
  for (const result of MetricDataResults) {
    const at = result.Timestamps?.[0];
    const value = result.Values?.[0];
    if (result.Id && at !== undefined && value !== undefined) newest.set(result.Id, { value, at });
  }
  return newest;
}

function stackFactOf(role: StackFact['role'], stack: Stack): StackFact {
  return {
    role,
    name: stack.StackName ?? '',
    status: stack.StackStatus ?? 'UNKNOWN',
    reason: stack.StackStatusReason ?? null,
    lastDeployedAt: stack.LastUpdatedTime ?? stack.CreationTime ?? new Date(0),
  };
}

/** The queue's name, the AWS/SQS metrics' QueueName dimension: the URL's last segment. */
function queueNameOf(url: string): string {
  return url.replace(/\/+$/, '').split('/').pop() ?? url;
}

/** Reads every fact of a stage's health; throws AwsTargetError when its stacks cannot be read. */
export async function readStageHealth(stage: string, clients: StageHealthClients, now = new Date()): Promise<StageHealthFacts> {
  const names = stackNamesOf(stage);
  let stateful: Stack;
  let stateless: Stack;
  try {
    [stateful, stateless] = await Promise.all([describeStack(clients.cloudFormation, names.stateful), describeStack(clients.cloudFormation, names.stateless)]);
  } catch (error) {
    throw new AwsTargetError(`cannot read the stacks of stage "${stage}" (${(error as Error).message}); check --stage, --region and the AWS credentials`);
  }
  const missing = (stack: Stack, output: string) => `stack ${stack.StackName} has no ${output} output: deploy the current version`;
  /** An output's value, or the error a fact that needs it reports. */
  const output = (stack: Stack, key: string): Checked<string> => {
    const value = outputOf(stack, key);
    return value ? { ok: true, value } : { ok: false, error: missing(stack, key) };
  };

  const monitoringName = output(stateless, STACK_OUTPUTS.dashboardName);
  // A stage deployed before the ticket topic has only the paging one.
  const topicArns = [STACK_OUTPUTS.alarmTopicArn, STACK_OUTPUTS.ticketAlarmTopicArn].flatMap((key) => outputOf(stateless, key) ?? []);
  const queueUrls: Record<QueueRole, Checked<string>> = {
    'webhook-dead-letter': output(stateful, STACK_OUTPUTS.webhookDeadLetterQueueUrl),
    'indexer-failure': output(stateful, STACK_OUTPUTS.indexerFailureQueueUrl),
  };
  // The metrics' `service` dimension: the monitoring name is `<service>-<stage>` (lib/stack-names.ts monitoringNameOf).
  const service = monitoringName.ok ? serviceNameOf(monitoringName.value, stage) : null;
  const serviceName: Checked<string> = !monitoringName.ok
    ? monitoringName
    : service
      ? { ok: true, value: service }
      : { ok: false, error: `the ${STACK_OUTPUTS.dashboardName} output ${monitoringName.value} does not end in -${stage}` };
  const indexerFunction = output(stateless, STACK_OUTPUTS.indexerFunctionName);

  // Each metric with what it needs; one GetMetricData call reads those that can be asked for.
  const requests = new Map<string, Checked<MetricRequest>>();
  const want = (id: string, needs: Checked<string>, request: (value: string) => Omit<MetricRequest, 'id'>) =>
    requests.set(id, needs.ok ? { ok: true, value: { id, ...request(needs.value) } } : needs);
  want('lag', serviceName, (service) => ({ namespace: METRICS_NAMESPACE, metricName: METRIC_NAMES.indexerLagSeconds, dimensions: { service } }));
  want('iteratorAge', indexerFunction, (FunctionName) => ({ namespace: 'AWS/Lambda', metricName: 'IteratorAge', dimensions: { FunctionName } }));
  const ageId = (role: QueueRole) => (role === 'webhook-dead-letter' ? 'webhookDeadLetterAge' : 'indexerFailureAge');
  for (const [role, url] of Object.entries(queueUrls) as [QueueRole, Checked<string>][]) {
    want(ageId(role), url, (queueUrl) => ({
      namespace: 'AWS/SQS',
      metricName: 'ApproximateAgeOfOldestMessage',
      dimensions: { QueueName: queueNameOf(queueUrl) },
    }));
  }
  const askable = [...requests.values()].flatMap((request) => (request.ok ? [request.value] : []));

  const [alarms, depths, datapoints] = await Promise.all([
    monitoringName.ok ? checked(() => alarmsInAlarm(clients.cloudWatch, `${monitoringName.value}-`, topicArns)) : Promise.resolve(monitoringName),
    Promise.all(
      (Object.entries(queueUrls) as [QueueRole, Checked<string>][]).map(
        async ([role, url]) => [role, url.ok ? await checked(() => queueDepth(clients.sqs, url.value)) : url] as const,
      ),
    ),
    checked(() => newestDatapoints(clients.cloudWatch, askable, now)),
  ]);
  const reading = (id: string): Reading => {
    const request = requests.get(id)!;
    if (!request.ok) return request;
    return datapoints.ok ? { ok: true, value: datapoints.value.get(id) ?? null } : datapoints;
  };

  return {
    stage,
    checkedAt: now,
    metricWindowMinutes: METRIC_WINDOW_MINUTES,
    stacks: [stackFactOf('stateful', stateful), stackFactOf('stateless', stateless)],
    alarms,
    queues: depths.map(([role, depth]): QueueFact => ({ role, depth, oldestAgeSeconds: reading(ageId(role)) })),
    lag: { indexerLagSeconds: reading('lag'), iteratorAgeMs: reading('iteratorAge') },
  };
}
