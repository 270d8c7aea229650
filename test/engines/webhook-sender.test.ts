import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, DeleteMessageCommand, DeleteQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DynamoChangeOutbox } from '../../lambdas/adapters/aws/dynamo-change-outbox';
import { DynamoDeliveryLog } from '../../lambdas/adapters/aws/dynamo-delivery-log';
import { DynamoWebhookStore } from '../../lambdas/adapters/aws/dynamo-webhook-store';
import { SqsDeliveryQueue } from '../../lambdas/adapters/aws/sqs-delivery-queue';
import { LocalSecretSealer } from '../../lambdas/adapters/embedded/local-secret-sealer';
import { httpWebhookTransport } from '../../lambdas/adapters/http-webhook-transport';
import type { Grant } from '../../lambdas/core/records';
import { type DeliveryPorts, replayDelivery } from '../../lambdas/core/use-cases/deliver-webhook';
import { createKey } from '../../lambdas/core/use-cases/manage-keys';
import { addSubscription } from '../../lambdas/core/use-cases/manage-webhooks';
import { changeFanOutHandler } from '../../lambdas/http/change-fan-out';
import { webhookSenderHandler } from '../../lambdas/http/webhook-sender';
import { WEBHOOK_MAX_RECEIVES } from '../../lib/stateful-stack';
import { type PollResult, pollSqsOnce, type SqsLambdaHandler } from '../../local/aws-mode/sqs-event-source';
import { type EmbeddedStack, LOCAL_TABLE_NAME, startEmbeddedStack } from '../../local/embedded-stack';
import { DEFAULT_CATALOGUE, generateFunders, generateGrants } from '../../local/synthetic-catalogue';
import { describeOnEngine } from './engine-suite';

/**
 * The webhook sender's handler on a real SQS-compatible queue (ElasticMQ, `npm run test:engines`
 * sets SQS_ENDPOINT), fed the way Lambda's event source feeds it: a receive of up to 10 messages,
 * the handler, then a delete of every message it did not report as a batch item failure. What SQS
 * itself does is real here: delays, visibility timeouts, receive counts and the redrive.
 */

describeOnEngine('the webhook sender on ElasticMQ', 'SQS_ENDPOINT', (endpoint) => {
  const context = { functionName: 'test', awsRequestId: 'req', getRemainingTimeInMillis: () => 60_000 } as unknown as Context;
  const sqs = new SQSClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'engines', secretAccessKey: 'engines' } });
  const clock = { now: () => new Date() };
  /** Retries after 1 s, then 2 s, then the dead-letter queue: real delays, kept short. */
  const QUICK = { mode: 'local' as const, schedule: [1, 2], timeoutMs: 1_000 };
  const received: string[] = [];
  const failing = new Set<string>();
  let receiver: Server;
  let base = '';
  let stack: EmbeddedStack;
  let dynamo: DynamoDBClient;
  let webhooks: DynamoWebhookStore;
  let log: DynamoDeliveryLog;
  let queue: SqsDeliveryQueue;
  let queueUrl = '';
  let deadLetterUrl = '';
  let keyId = '';
  let grants: Grant[] = [];

  const deliveryPorts = (overrides: Partial<DeliveryPorts> = {}): DeliveryPorts => ({
    webhooks,
    log,
    queue,
    transport: httpWebhookTransport,
    resolver: { resolve: async () => ['127.0.0.1'] },
    clock,
    random: () => 0.5,
    ...overrides,
  });

  /** One poll of Lambda's SQS event source: receive, run the handler, delete what it did not report. */
  async function poll(ports: DeliveryPorts = deliveryPorts(), waitSeconds = 5): Promise<PollResult> {
    const source = { sqs, queueUrl, queueArn: 'arn:aws:sqs:us-east-1:000000000000:webhooks', region: 'us-east-1' };
    return pollSqsOnce(source, webhookSenderHandler(() => ports, QUICK) as SqsLambdaHandler, () => context, { waitSeconds });
  }

  /** Stream records of the outbox items, for the fan-out handler. */
  async function outboxRecords(): Promise<DynamoDBRecord[]> {
    const { Items = [] } = await dynamo.send(
      new ScanCommand({ TableName: LOCAL_TABLE_NAME, FilterExpression: 'sk = :sk', ExpressionAttributeValues: { ':sk': { S: 'event' } } }),
    );
    return Items.map((item, i) => ({
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      dynamodb: { Keys: { pk: item.pk!, sk: item.sk! } as never, NewImage: item as never, SequenceNumber: String(i) },
    }));
  }

  async function subscribeAndQueue(path: string, records: Grant[]) {
    const { subscription } = await addSubscription(
      { webhooks, keys: stack.services.keys, resolver: { resolve: async () => ['127.0.0.1'] } },
      { keyId, url: `${base}${path}`, events: ['grant.created'] },
      'local',
      clock.now(),
    );
    await stack.services.store.put('grant', records);
    await changeFanOutHandler(() => ({ webhooks, log, queue, clock, outbox: new DynamoChangeOutbox(dynamo, LOCAL_TABLE_NAME) }))(
      { Records: await outboxRecords() },
      context,
      () => undefined,
    );
    return subscription;
  }

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(req.url ?? '');
        res.writeHead(failing.has(req.url ?? '') ? 500 : 204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    stack = await startEmbeddedStack({ seed: false });
    dynamo = stack.dynamoClient();
    webhooks = new DynamoWebhookStore(dynamo, LOCAL_TABLE_NAME, new LocalSecretSealer());
    log = new DynamoDeliveryLog(dynamo, LOCAL_TABLE_NAME);
    const suffix = Date.now();
    deadLetterUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `sender-dlq-${suffix}` }))).QueueUrl!;
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: deadLetterUrl, AttributeNames: ['QueueArn'] }));
    queueUrl = (
      await sqs.send(
        new CreateQueueCommand({
          QueueName: `sender-${suffix}`,
          Attributes: {
            VisibilityTimeout: '1',
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes!.QueueArn, maxReceiveCount: WEBHOOK_MAX_RECEIVES }),
          },
        }),
      )
    ).QueueUrl!;
    queue = new SqsDeliveryQueue(sqs, queueUrl, deadLetterUrl);
    keyId = (await createKey(stack.services.keys, { tier: 'developer', owner: 'dev@example.org', label: '' }, randomBytes, new Date())).record.key_id;
    const spec = {
      ...DEFAULT_CATALOGUE,
      funders: 2,
      grants: 6,
      awardedGrants: 0,
      contracts: 0,
      awardedContracts: 0,
      today: clock.now().toISOString().slice(0, 10),
    };
    grants = [...generateGrants(spec, generateFunders(spec))].flat();
  });

  afterAll(async () => {
    for (const url of [queueUrl, deadLetterUrl]) if (url) await sqs.send(new DeleteQueueCommand({ QueueUrl: url }));
    sqs.destroy();
    dynamo?.destroy();
    await stack?.close();
    receiver?.closeAllConnections();
    await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  });

  it('delivers what the fan-out queued, and the queue is empty after the event source deletes it', async () => {
    const subscription = await subscribeAndQueue('/ok', grants.slice(0, 2));
    const { messages, failures } = await poll();
    expect(messages).toHaveLength(2);
    expect(failures).toEqual([]);
    expect(received.filter((path) => path === '/ok')).toHaveLength(2);
    expect((await log.list(subscription.subscription_id, 5)).map((d) => d.status)).toEqual(['delivered', 'delivered']);
    expect((await poll(deliveryPorts(), 1)).messages).toEqual([]);
    await webhooks.update(subscription.subscription_id, { state: 'disabled', disabled_reason: 'test over', updated_at: clock.now().toISOString() });
  });

  it('re-queues a failed attempt with its real delay, dead-letters the delivery after the last one, and delivers it on replay', async () => {
    const subscription = await subscribeAndQueue('/down', [grants[2]!]);
    failing.add('/down');
    const sentAt = Date.now();
    expect((await poll()).messages).toHaveLength(1);
    // The retry the sender queued is invisible for its 1 s delay, then arrives.
    expect((await poll(deliveryPorts(), 0)).messages).toEqual([]);
    expect((await poll()).messages).toHaveLength(1);
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(900);
    expect((await poll()).messages).toHaveLength(1);
    expect(received.filter((path) => path === '/down')).toHaveLength(3);
    const [delivery] = await log.list(subscription.subscription_id, 1);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 3, last_status_code: 500 });
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: deadLetterUrl, WaitTimeSeconds: 5 }));
    expect(Messages.map((m) => JSON.parse(m.Body!))).toEqual([{ delivery_id: delivery!.delivery_id }]);
    for (const m of Messages) await sqs.send(new DeleteMessageCommand({ QueueUrl: deadLetterUrl, ReceiptHandle: m.ReceiptHandle! }));
    failing.delete('/down');
    // The receiver is back: a replay (`admin webhooks replay --target aws`) queues it afresh, and the sender delivers it.
    expect(await replayDelivery({ log, queue, clock }, delivery!.delivery_id)).toMatchObject({ status: 'pending', attempts: 0 });
    const replayed = await poll();
    expect(replayed.messages.map((m) => JSON.parse(m.Body!))).toEqual([{ delivery_id: delivery!.delivery_id }]);
    expect(received.filter((path) => path === '/down')).toHaveLength(4);
    expect(await log.get(delivery!.delivery_id)).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 204 });
    await webhooks.update(subscription.subscription_id, { state: 'disabled', disabled_reason: 'test over', updated_at: clock.now().toISOString() });
  });

  it('loses no event when the queue refuses the send (it does not exist): the outbox keeps it, and the retried fan-out queues it', async () => {
    const { subscription } = await addSubscription(
      { webhooks, keys: stack.services.keys, resolver: { resolve: async () => ['127.0.0.1'] } },
      { keyId, url: `${base}/refused`, events: ['grant.created'] },
      'local',
      clock.now(),
    );
    await stack.services.store.put('grant', [grants[5]!]);
    const records = await outboxRecords();
    expect(records).toHaveLength(1);
    const refusing = new SqsDeliveryQueue(sqs, `${queueUrl}-missing`, deadLetterUrl);
    const fanOut = (q: SqsDeliveryQueue) =>
      changeFanOutHandler(() => ({ webhooks, log, queue: q, clock, outbox: new DynamoChangeOutbox(dynamo, LOCAL_TABLE_NAME) }))(
        { Records: records },
        context,
        () => undefined,
      );
    // Its only record failed: the whole batch fails, and the stream hands it over again.
    await expect(fanOut(refusing)).rejects.toThrow('All records failed processing');
    expect(await outboxRecords()).toHaveLength(1);
    expect((await log.list(subscription.subscription_id, 5)).map((d) => d.status)).toEqual(['pending']);
    // The stream hands the batch over again; the queue now takes it.
    expect(await fanOut(queue)).toEqual({ batchItemFailures: [] });
    expect(await outboxRecords()).toHaveLength(0);
    expect((await poll()).messages).toHaveLength(1);
    expect(received.filter((path) => path === '/refused')).toHaveLength(1);
    expect((await log.list(subscription.subscription_id, 5)).map((d) => d.status)).toEqual(['delivered']);
    await webhooks.update(subscription.subscription_id, { state: 'disabled', disabled_reason: 'test over', updated_at: clock.now().toISOString() });
  });

  it('leaves a message it reports as failed on the queue, where SQS hands it over again after the visibility timeout', async () => {
    const subscription = await subscribeAndQueue('/partial', grants.slice(3, 5));
    const flaky = { broken: '' };
    const flakyLog: DeliveryPorts['log'] = {
      create: (d) => log.create(d),
      save: (d) => log.save(d),
      list: (s, l) => log.list(s, l),
      get: async (id) => {
        flaky.broken ||= id;
        if (id === flaky.broken) throw new Error('ProvisionedThroughputExceededException');
        return log.get(id);
      },
    };
    const first = await poll(deliveryPorts({ log: flakyLog }));
    expect(first.messages).toHaveLength(2);
    expect(first.failures).toHaveLength(1);
    expect(received.filter((path) => path === '/partial')).toHaveLength(1);
    // The reported one comes back once its visibility timeout (1 s) ends, received a second time.
    const again = await poll();
    expect(again.messages.map((m) => m.MessageId)).toEqual(first.failures);
    expect(again.messages[0]!.Attributes?.ApproximateReceiveCount).toBe('2');
    expect(received.filter((path) => path === '/partial')).toHaveLength(2);
    expect((await log.list(subscription.subscription_id, 5)).map((d) => d.status)).toEqual(['delivered', 'delivered']);
    await webhooks.update(subscription.subscription_id, { state: 'disabled', disabled_reason: 'test over', updated_at: clock.now().toISOString() });
  });
});
