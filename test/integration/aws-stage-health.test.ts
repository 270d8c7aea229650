import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assessStageHealth, type StageHealth } from '../../lambdas/core/ops/stage-health';
import { STACK_OUTPUTS } from '../../lib/stack-names';
import { readStageHealth, type StageHealthClients } from '../../local/aws-stage-health';
import { AwsTargetError } from '../../local/aws-target';
import { runAdmin } from '../support/admin-cli';
import { type StandInCloudFormation, startStandInCloudFormation } from '../support/stand-in-cloudformation';
import { type StandInAlarm, type StandInCloudWatch, startStandInCloudWatch } from '../support/stand-in-cloudwatch';
import { type StandInSqs, startStandInSqs } from '../support/stand-in-sqs';
import { deployStandInStage, STAND_IN_INDEXER, STAND_IN_TICKET_TOPIC, STAND_IN_TOPIC } from '../support/stand-in-stage';

/**
 * `admin status --target aws`'s reads (local/aws-stage-health.ts) through the real SDK clients,
 * against loopback stand-ins that speak each service's wire protocol: CloudFormation's query XML,
 * CloudWatch's JSON 1.0 and SQS's JSON 1.0. Then the command itself, in a child process, reaching
 * the same stand-ins through the SDK's AWS_ENDPOINT_URL_<SERVICE> variables.
 */

const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
let cloudFormation: StandInCloudFormation;
let cloudWatch: StandInCloudWatch;
let sqs: StandInSqs;
let clients: StageHealthClients;
const queues = () => ({
  webhookDeadLetter: sqs.queueUrl('Gcf-dev-Stateful-WebhookDeadLetterQueue'),
  indexerFailure: sqs.queueUrl('Gcf-dev-Stateful-IndexerFailureQueue'),
});
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

function alarm(name: string, state: StandInAlarm['StateValue'], topic: string, minutes: number): StandInAlarm {
  return {
    AlarmName: name,
    StateValue: state,
    StateReason: `Threshold Crossed: 1 datapoint [3.0] was greater than the threshold (0.0) <${name}>.`,
    StateTransitionedTimestamp: minutesAgo(minutes),
    AlarmActions: [topic],
    AlarmDescription: `What broke. Dashboard: "x". Runbook: https://github.com/acme/gcf/blob/main/docs/runbook.md#${name.replace(/^gcf-data-service-[a-z]+(-alice)?-/, '')}`,
  };
}

beforeAll(async () => {
  [cloudFormation, cloudWatch, sqs] = await Promise.all([startStandInCloudFormation(), startStandInCloudWatch(), startStandInSqs()]);
  clients = {
    cloudFormation: new CloudFormationClient({ region: 'us-east-1', endpoint: cloudFormation.endpoint, credentials: CREDENTIALS }),
    cloudWatch: new CloudWatchClient({ region: 'us-east-1', endpoint: cloudWatch.endpoint, credentials: CREDENTIALS }),
    sqs: new SQSClient({ region: 'us-east-1', endpoint: sqs.endpoint, credentials: CREDENTIALS }),
  };
});
afterAll(async () => {
  for (const client of Object.values(clients ?? {})) client.destroy();
  await Promise.all([cloudFormation?.close(), cloudWatch?.close(), sqs?.close()]);
});
beforeEach(() => {
  cloudFormation.stacks.clear();
  cloudFormation.requests.length = 0;
  Object.assign(cloudWatch, { alarms: [], series: [], refused: new Map() });
  cloudWatch.requests.length = 0;
  sqs.sent.length = 0;
  deployStandInStage(cloudFormation, 'dev', queues());
});

describe('readStageHealth', () => {
  it('reads a healthy stage: both stacks, no alarm, empty queues, and "no data" where a metric has none', async () => {
    const health = assessStageHealth(await readStageHealth('dev', clients));
    expect(health).toMatchObject({
      stage: 'dev',
      healthy: true,
      problems: [],
      alarms: [],
      queues: [
        { queue: 'webhook-dead-letter', messages: 0, in_flight: 0, delayed: 0, oldest_age_seconds: { value: null }, error: null },
        { queue: 'indexer-failure', messages: 0, in_flight: 0, delayed: 0, oldest_age_seconds: { value: null }, error: null },
      ],
      indexer_lag: {
        metric_window_minutes: 30,
        seconds: null,
        indexer_lag_seconds: { value: null, at: null },
        iterator_age_seconds: { value: null, at: null },
      },
      stacks: [
        { stack: 'stateful', name: 'Gcf-dev-Stateful', status: 'UPDATE_COMPLETE', complete: true, last_deployed_at: '2026-11-20T10:02:00.000Z' },
        { stack: 'stateless', name: 'Gcf-dev-Stateless', status: 'CREATE_COMPLETE', complete: true, last_deployed_at: '2026-11-25T16:30:00.000Z' },
      ],
    } satisfies Partial<Record<keyof StageHealth, unknown>>);
    expect(cloudFormation.requests.map((params) => params.get('StackName')).sort()).toEqual(['Gcf-dev-Stateful', 'Gcf-dev-Stateless']);
  });

  it("keeps the alarms in ALARM that carry the stage's prefix and notify its paging or ticket topic, across pages", async () => {
    cloudWatch.alarms.push(
      alarm('gcf-data-service-dev-webhook-dlq', 'ALARM', STAND_IN_TICKET_TOPIC('dev'), 18),
      alarm('gcf-data-service-dev-api-5xx-rate', 'OK', STAND_IN_TOPIC('dev'), 60),
      // Stage dev-alice's alarms start with dev's prefix too: only the topic tells them apart.
      alarm('gcf-data-service-dev-alice-webhook-dlq', 'ALARM', STAND_IN_TICKET_TOPIC('dev-alice'), 30),
      alarm('gcf-data-service-prod-webhook-dlq', 'ALARM', STAND_IN_TOPIC('prod'), 5),
      alarm('gcf-data-service-dev-indexer-lag', 'ALARM', STAND_IN_TOPIC('dev'), 4),
      alarm('gcf-data-service-dev-search-cluster-red', 'ALARM', STAND_IN_TOPIC('dev'), 2),
    );
    const health = assessStageHealth(await readStageHealth('dev', clients));
    expect(health.alarms!.map((a) => a.name)).toEqual([
      'gcf-data-service-dev-webhook-dlq',
      'gcf-data-service-dev-indexer-lag',
      'gcf-data-service-dev-search-cluster-red',
    ]);
    expect(health.alarms![0]).toEqual({
      name: 'gcf-data-service-dev-webhook-dlq',
      reason: 'Threshold Crossed: 1 datapoint [3.0] was greater than the threshold (0.0) <gcf-data-service-dev-webhook-dlq>.',
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      runbook: 'https://github.com/acme/gcf/blob/main/docs/runbook.md#webhook-dlq',
    });
    expect(Date.now() - Date.parse(health.alarms![0]!.since)).toBeGreaterThan(17 * 60_000);
    expect(health.problems).toEqual(health.alarms!.map((a) => `alarm ${a.name} is in ALARM`));
    const describes = cloudWatch.requests.filter((r) => r.operation === 'DescribeAlarms');
    expect(describes.map((r) => r.body)).toEqual([
      { AlarmNamePrefix: 'gcf-data-service-dev-', StateValue: 'ALARM' },
      { AlarmNamePrefix: 'gcf-data-service-dev-', StateValue: 'ALARM', NextToken: '2' },
    ]);
  });

  it('reads the newest datapoint of each metric in the last 30 minutes, by the exact dimensions the stage publishes', async () => {
    const service = { service: 'gcf-data-service' };
    cloudWatch.series.push(
      {
        namespace: 'GcfDataService',
        metricName: 'IndexerLagSeconds',
        dimensions: service,
        points: [
          { at: minutesAgo(10), value: 12 },
          { at: minutesAgo(3), value: 7 },
          { at: minutesAgo(40), value: 900 },
        ],
      },
      // Another service's lag, newer and larger: not this stage's.
      { namespace: 'GcfDataService', metricName: 'IndexerLagSeconds', dimensions: { service: 'other-service' }, points: [{ at: minutesAgo(1), value: 999 }] },
      {
        namespace: 'AWS/Lambda',
        metricName: 'IteratorAge',
        dimensions: { FunctionName: STAND_IN_INDEXER('dev') },
        points: [{ at: minutesAgo(2), value: 95_000 }],
      },
      {
        namespace: 'AWS/SQS',
        metricName: 'ApproximateAgeOfOldestMessage',
        dimensions: { QueueName: 'Gcf-dev-Stateful-WebhookDeadLetterQueue' },
        points: [{ at: minutesAgo(2), value: 600 }],
      },
    );
    const facts = await readStageHealth('dev', clients);
    expect(facts.lag.indexerLagSeconds).toEqual({ ok: true, value: { value: 7, at: expect.any(Date) } });
    expect(Math.round((Date.now() - (facts.lag.indexerLagSeconds as { value: { at: Date } }).value.at.getTime()) / 60_000)).toBe(3);
    expect(assessStageHealth(facts).indexer_lag).toMatchObject({ seconds: 95, iterator_age_seconds: { value: 95 } });
    expect(facts.queues.map((queue) => queue.oldestAgeSeconds)).toEqual([
      { ok: true, value: { value: 600, at: expect.any(Date) } },
      { ok: true, value: null },
    ]);
    const [query] = cloudWatch.requests.filter((r) => r.operation === 'GetMetricData').map((r) => r.body);
    expect(query!.EndTime - query!.StartTime).toBe(30 * 60);
    expect(query!.ScanBy).toBe('TimestampDescending');
    expect(query!.MetricDataQueries.map((q: { MetricStat: { Period: number; Stat: string } }) => q.MetricStat)).toEqual(
      Array(4).fill(expect.objectContaining({ Period: 60, Stat: 'Maximum' })),
    );
  });

  it('counts the messages in a dead-letter queue as a problem', async () => {
    const sender = new SQSClient({ region: 'us-east-1', endpoint: sqs.endpoint, credentials: CREDENTIALS });
    for (const body of ['{"delivery_id":"d1"}', '{"delivery_id":"d2"}'])
      await sender.send(new SendMessageCommand({ QueueUrl: queues().webhookDeadLetter, MessageBody: body }));
    sender.destroy();
    const health = assessStageHealth(await readStageHealth('dev', clients));
    expect(health.queues.map((queue) => [queue.queue, queue.messages])).toEqual([
      ['webhook-dead-letter', 2],
      ['indexer-failure', 0],
    ]);
    expect(health.problems).toEqual(['the webhook dead-letter queue holds 2 messages']);
  });

  it('reports what it could not read, and reads the rest: outputs of an older deploy, a refused operation', async () => {
    const { stateful, stateless } = deployStandInStage(cloudFormation, 'dev', queues());
    delete stateful.Outputs[STACK_OUTPUTS.indexerFailureQueueUrl];
    delete stateless.Outputs[STACK_OUTPUTS.indexerFunctionName];
    cloudWatch.refused.set('DescribeAlarms', 'User: arn:aws:iam::123456789012:user/oncall is not authorized to perform: cloudwatch:DescribeAlarms');
    cloudWatch.series.push({
      namespace: 'GcfDataService',
      metricName: 'IndexerLagSeconds',
      dimensions: { service: 'gcf-data-service' },
      points: [{ at: minutesAgo(1), value: 2 }],
    });
    const facts = await readStageHealth('dev', clients);
    expect(facts.alarms).toEqual({ ok: false, error: 'User: arn:aws:iam::123456789012:user/oncall is not authorized to perform: cloudwatch:DescribeAlarms' });
    expect(facts.queues[1]!.depth).toEqual({ ok: false, error: 'stack Gcf-dev-Stateful has no IndexerFailureQueueUrl output: deploy the current version' });
    expect(facts.lag.iteratorAgeMs).toEqual({ ok: false, error: 'stack Gcf-dev-Stateless has no IndexerFunctionName output: deploy the current version' });
    expect(facts.lag.indexerLagSeconds).toMatchObject({ ok: true, value: { value: 2 } });
    expect(facts.queues[0]!.depth).toEqual({ ok: true, value: { visible: 0, inFlight: 0, delayed: 0 } });
    expect(assessStageHealth(facts).problems).toHaveLength(2);
  });

  it('fails with one line when a stack of the stage does not exist', async () => {
    const read = readStageHealth('qa', clients);
    await expect(read).rejects.toBeInstanceOf(AwsTargetError);
    await expect(read).rejects.toThrow(
      /^cannot read the stacks of stage "qa" \(Stack with id Gcf-qa-(Stateful|Stateless) does not exist\); check --stage, --region and the AWS credentials$/,
    );
  });
});

describe('admin status (the command, through AWS_ENDPOINT_URL_<SERVICE>)', () => {
  const env = () => ({
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: 'us-east-1',
    AWS_PROFILE: '',
    AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.endpoint,
    AWS_ENDPOINT_URL_CLOUDWATCH: cloudWatch.endpoint,
    AWS_ENDPOINT_URL_SQS: sqs.endpoint,
  });

  it('prints one JSON document and exits 0 for a healthy stage', async () => {
    const { code, stdout } = await runAdmin(['status', '--target', 'aws', '--stage', 'dev', '--json'], env());
    expect(code).toBe(0);
    const health = JSON.parse(stdout) as StageHealth;
    expect(health).toMatchObject({ stage: 'dev', healthy: true, problems: [], alarms: [] });
    expect(health.stacks.map((stack) => stack.status)).toEqual(['UPDATE_COMPLETE', 'CREATE_COMPLETE']);
  });

  it('exits 1 with the problems, verdict first in the table form, when an alarm fires and a dead-letter queue fills', async () => {
    cloudWatch.alarms.push(alarm('gcf-data-service-dev-webhook-dlq', 'ALARM', STAND_IN_TOPIC('dev'), 18));
    const sender = new SQSClient({ region: 'us-east-1', endpoint: sqs.endpoint, credentials: CREDENTIALS });
    await sender.send(new SendMessageCommand({ QueueUrl: queues().webhookDeadLetter, MessageBody: '{"delivery_id":"d1"}' }));
    sender.destroy();
    const json = await runAdmin(['status', '--target', 'aws', '--json'], env());
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      healthy: false,
      problems: ['alarm gcf-data-service-dev-webhook-dlq is in ALARM', 'the webhook dead-letter queue holds 1 message'],
      alarms: [{ name: 'gcf-data-service-dev-webhook-dlq', runbook: 'https://github.com/acme/gcf/blob/main/docs/runbook.md#webhook-dlq' }],
    });
    const table = await runAdmin(['status'], env());
    expect(table.code).toBe(1);
    expect(table.stderr).toBe('');
    expect(table.stdout.split('\n').slice(0, 3)).toEqual([
      expect.stringMatching(/^stage dev: 2 problems \(checked \d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/),
      '  - alarm gcf-data-service-dev-webhook-dlq is in ALARM',
      '  - the webhook dead-letter queue holds 1 message',
    ]);
    expect(table.stdout).toMatch(/^ {2}webhook dead-letter queue {3}1 waiting, 0 in flight, 0 delayed$/m);
  });

  it('exits 1 with one line when the stage cannot be found, and 2 for --target local', async () => {
    const missing = await runAdmin(['status', '--stage', 'qa'], env());
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^admin: cannot read the stacks of stage "qa" \(Stack with id Gcf-qa-\w+ does not exist\)/),
    ]);
    const local = await runAdmin(['status', '--target', 'local'], env());
    expect(local.code).toBe(2);
    expect(local.stderr).toContain('status reads a deployed stage (--target aws); for the local state use `npm run admin -- local stats`');
  });
});
