import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assessStageHealth } from '../../lambdas/core/ops/stage-health';
import { queueDepth, readStageHealth } from '../../local/aws-stage-health';
import { type StandInCloudFormation, startStandInCloudFormation } from '../support/stand-in-cloudformation';
import { type StandInCloudWatch, startStandInCloudWatch } from '../support/stand-in-cloudwatch';
import { deployStandInStage } from '../support/stand-in-stage';
import { describeOnEngine } from './engine-suite';

/**
 * `admin status`'s dead-letter queue depths against ElasticMQ, an SQS-compatible server speaking
 * the SDK's JSON protocol (`npm run test:engines` starts it and sets SQS_ENDPOINT): messages
 * waiting, received and not deleted (in flight), and delayed are each counted, and a queue holding
 * any of them is a problem. The stage's stacks and metrics come from loopback stand-ins
 * (test/integration/aws-stage-health.test.ts covers those).
 */

describeOnEngine('admin status: dead-letter queue depths on ElasticMQ', 'SQS_ENDPOINT', (endpoint) => {
  const credentials = { accessKeyId: 'engines', secretAccessKey: 'engines' };
  const sqs = new SQSClient({ endpoint, region: 'us-east-1', credentials });
  const suffix = Date.now();
  const urls = { webhookDeadLetter: '', indexerFailure: '' };
  let cloudFormation: StandInCloudFormation;
  let cloudWatch: StandInCloudWatch;

  beforeAll(async () => {
    urls.webhookDeadLetter = (await sqs.send(new CreateQueueCommand({ QueueName: `status-webhook-dlq-${suffix}` }))).QueueUrl!;
    urls.indexerFailure = (await sqs.send(new CreateQueueCommand({ QueueName: `status-indexer-failure-${suffix}` }))).QueueUrl!;
    [cloudFormation, cloudWatch] = await Promise.all([startStandInCloudFormation(), startStandInCloudWatch()]);
    deployStandInStage(cloudFormation, 'dev', urls);
  });

  afterAll(async () => {
    for (const url of Object.values(urls)) if (url) await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
    sqs.destroy();
    await Promise.all([cloudFormation?.close(), cloudWatch?.close()]);
  });

  it('reads an empty queue as empty', async () => {
    expect(await queueDepth(sqs, urls.indexerFailure)).toEqual({ visible: 0, inFlight: 0, delayed: 0 });
  });

  it('counts waiting, in-flight and delayed messages apart', async () => {
    for (const id of ['d1', 'd2', 'd3'])
      await sqs.send(new SendMessageCommand({ QueueUrl: urls.webhookDeadLetter, MessageBody: JSON.stringify({ delivery_id: id }) }));
    await sqs.send(new SendMessageCommand({ QueueUrl: urls.webhookDeadLetter, MessageBody: '{"delivery_id":"later"}', DelaySeconds: 120 }));
    // Someone looking at a message (a replay, the console) takes it out of sight but not out of the queue.
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: urls.webhookDeadLetter, MaxNumberOfMessages: 1, VisibilityTimeout: 120 }));
    expect(Messages).toHaveLength(1);
    expect(await queueDepth(sqs, urls.webhookDeadLetter)).toEqual({ visible: 2, inFlight: 1, delayed: 1 });
  });

  it('reads both queues of a stage from its stack outputs, and calls a non-empty one a problem', async () => {
    const clients = {
      cloudFormation: new CloudFormationClient({ region: 'us-east-1', endpoint: cloudFormation.endpoint, credentials }),
      cloudWatch: new CloudWatchClient({ region: 'us-east-1', endpoint: cloudWatch.endpoint, credentials }),
      sqs,
    };
    const health = assessStageHealth(await readStageHealth('dev', clients));
    clients.cloudFormation.destroy();
    clients.cloudWatch.destroy();
    expect(health.queues.map(({ queue, messages, in_flight, delayed, error }) => ({ queue, messages, in_flight, delayed, error }))).toEqual([
      { queue: 'webhook-dead-letter', messages: 2, in_flight: 1, delayed: 1, error: null },
      { queue: 'indexer-failure', messages: 0, in_flight: 0, delayed: 0, error: null },
    ]);
    expect(health.problems).toEqual(['the webhook dead-letter queue holds 4 messages']);
    expect(health.healthy).toBe(false);
  });
});
