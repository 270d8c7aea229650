import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deliveryMessageOf, SqsDeliveryQueue } from '../../lambdas/adapters/aws/sqs-delivery-queue';
import { WEBHOOK_MAX_RECEIVES } from '../../lib/stateful-stack';
import { describeOnEngine } from './engine-suite';

/**
 * The webhook queue adapter against ElasticMQ, an SQS-compatible server speaking the SDK's JSON
 * protocol (`npm run test:engines` starts it and sets SQS_ENDPOINT): delays, visibility, and the
 * dead-letter queue by the sender's hand and by SQS's redrive after WEBHOOK_MAX_RECEIVES receives,
 * as the stateful stack configures it.
 */

describeOnEngine('SqsDeliveryQueue on ElasticMQ', 'SQS_ENDPOINT', (endpoint) => {
  const sqs = new SQSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'engines', secretAccessKey: 'engines' } });
  const suffix = Date.now();
  let queueUrl = '';
  let deadLetterUrl = '';
  let queue: SqsDeliveryQueue;

  async function arn(url: string): Promise<string> {
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
    return Attributes!.QueueArn!;
  }

  async function receive(url: string, waitSeconds = 0, visibilityTimeout?: number) {
    const { Messages } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: waitSeconds,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        ...(visibilityTimeout === undefined ? {} : { VisibilityTimeout: visibilityTimeout }),
      }),
    );
    return Messages ?? [];
  }

  /** What the Lambda event source does with a message the sender processed. */
  async function remove(url: string, messages: Message[]): Promise<void> {
    for (const message of messages) await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle! }));
  }

  beforeAll(async () => {
    deadLetterUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `webhook-dlq-${suffix}` }))).QueueUrl!;
    queueUrl = (
      await sqs.send(
        new CreateQueueCommand({
          QueueName: `webhook-${suffix}`,
          Attributes: {
            VisibilityTimeout: '1',
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: await arn(deadLetterUrl), maxReceiveCount: WEBHOOK_MAX_RECEIVES }),
          },
        }),
      )
    ).QueueUrl!;
    queue = new SqsDeliveryQueue(sqs, queueUrl, deadLetterUrl);
  });

  afterAll(async () => {
    for (const url of [queueUrl, deadLetterUrl]) if (url) await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
    sqs.destroy();
  });

  it('sends a delivery that becomes visible only after its delay, rounded up to whole seconds', async () => {
    const sentAt = Date.now();
    await queue.send({ delivery_id: 'delayed-1' }, 1.2);
    expect(await receive(queueUrl)).toEqual([]);
    const messages = await receive(queueUrl, 5);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1_900);
    expect(messages.map((m) => deliveryMessageOf(m.Body!))).toEqual([{ delivery_id: 'delayed-1' }]);
    await remove(queueUrl, messages);
  });

  it('puts a message on the dead-letter queue when the sender gives up on it', async () => {
    await queue.deadLetter({ delivery_id: 'gave-up-1' });
    const messages = await receive(deadLetterUrl, 5);
    expect(messages.map((m) => deliveryMessageOf(m.Body!))).toEqual([{ delivery_id: 'gave-up-1' }]);
    await remove(deadLetterUrl, messages);
  });

  it(`redrives a message received ${WEBHOOK_MAX_RECEIVES} times and never deleted (a sender that keeps failing) to the dead-letter queue`, async () => {
    await queue.send({ delivery_id: 'poison-1' }, 0);
    const counts: string[] = [];
    for (let receipt = 0; receipt < WEBHOOK_MAX_RECEIVES; receipt++) {
      // Not deleted: as when the sender reports the message as a batch item failure.
      const [message] = await receive(queueUrl, 5);
      expect(deliveryMessageOf(message!.Body!)).toEqual({ delivery_id: 'poison-1' });
      counts.push(message!.Attributes!.ApproximateReceiveCount!);
    }
    expect(counts).toEqual(['1', '2', '3', '4', '5']);
    // The next receive finds it past maxReceiveCount: it moves, and the queue is empty.
    expect(await receive(queueUrl, 2)).toEqual([]);
    const dead = await receive(deadLetterUrl, 5);
    expect(dead.map((m) => deliveryMessageOf(m.Body!))).toEqual([{ delivery_id: 'poison-1' }]);
    await remove(deadLetterUrl, dead);
  });
});
