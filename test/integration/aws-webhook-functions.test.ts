import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AttributeValue, type DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, DynamoDBRecord, DynamoDBStreamEvent, ScheduledEvent, SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoChangeOutbox } from '../../lambdas/adapters/aws/dynamo-change-outbox';
import { DynamoDeliveryLog } from '../../lambdas/adapters/aws/dynamo-delivery-log';
import { DynamoWebhookStore } from '../../lambdas/adapters/aws/dynamo-webhook-store';
import { SqsDeliveryQueue } from '../../lambdas/adapters/aws/sqs-delivery-queue';
import { LocalSecretSealer } from '../../lambdas/adapters/embedded/local-secret-sealer';
import { httpWebhookTransport } from '../../lambdas/adapters/http-webhook-transport';
import type { Grant } from '../../lambdas/core/records';
import type { DeliveryPorts } from '../../lambdas/core/use-cases/deliver-webhook';
import type { ChangeFanOutPorts } from '../../lambdas/core/use-cases/fan-out-events';
import { createKey } from '../../lambdas/core/use-cases/manage-keys';
import { addSubscription } from '../../lambdas/core/use-cases/manage-webhooks';
import { verifyServiceSignature, verifyWebhookSignature } from '../../lambdas/core/webhooks/signature';
import { changeFanOutHandler } from '../../lambdas/http/change-fan-out';
import { deadlineScanHandler } from '../../lambdas/http/deadline-scan';
import { webhookSenderHandler } from '../../lambdas/http/webhook-sender';
import type { Clock } from '../../lambdas/ports/clock';
import { type EmbeddedStack, LOCAL_TABLE_NAME, startEmbeddedStack } from '../../local/embedded-stack';
import { DEFAULT_CATALOGUE, generateFunders, generateGrants } from '../../local/synthetic-catalogue';
import { type StandInSqs, sqsEventOf, startStandInSqs } from '../support/stand-in-sqs';

/**
 * The three webhook Lambdas' handlers, as AWS runs them: the fan-out fed DynamoDB stream records
 * of real outbox items, the sender fed SQS events, the deadline scan fed a schedule event. The
 * adapters are the production ones, against dynalite (the table) and a stand-in SQS that speaks
 * the SQS client's wire protocol; the sender posts to a real receiver on loopback (local
 * destination mode, since AWS mode refuses loopback, which one test checks).
 */

const context = { functionName: 'test', awsRequestId: 'req', getRemainingTimeInMillis: () => 60_000 } as unknown as Context;
const noCallback = () => undefined;

let stack: EmbeddedStack;
let sqs: StandInSqs;
let receiver: Server;
let base: string;
let keyId: string;
let grants: Grant[];
let client: DynamoDBClient;
const received: { path: string; body: string; headers: IncomingMessage['headers'] }[] = [];
/** Paths whose requests fail with 500. */
const failing = new Set<string>();
const clock = {
  at: new Date('2026-11-22T08:00:00Z'),
  now() {
    return new Date(this.at);
  },
} satisfies Clock & { at: Date };

let queueUrl: string;
let deadLetterUrl: string;
let webhooks: DynamoWebhookStore;
let log: DynamoDeliveryLog;
let queue: SqsDeliveryQueue;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(failing.has(req.url ?? '') ? 500 : 204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  stack = await startEmbeddedStack({ seed: false });
  sqs = await startStandInSqs();
  client = stack.dynamoClient();
  webhooks = new DynamoWebhookStore(client, LOCAL_TABLE_NAME, new LocalSecretSealer());
  log = new DynamoDeliveryLog(client, LOCAL_TABLE_NAME);
  queueUrl = sqs.queueUrl('webhooks');
  deadLetterUrl = sqs.queueUrl('webhooks-dlq');
  queue = new SqsDeliveryQueue(
    new SQSClient({ endpoint: sqs.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
    queueUrl,
    deadLetterUrl,
  );
  keyId = (await createKey(stack.services.keys, { tier: 'developer', owner: 'dev@example.org', label: '' }, randomBytes, new Date())).record.key_id;
  const spec = { ...DEFAULT_CATALOGUE, funders: 2, grants: 8, awardedGrants: 0, contracts: 0, awardedContracts: 0, today: '2026-11-22' };
  grants = [...generateGrants(spec, generateFunders(spec))].flat();
});

afterAll(async () => {
  await stack?.close();
  await sqs?.close();
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

beforeEach(() => {
  sqs.sent.length = 0;
});

const subscribe = (path: string, events: string[], daysBefore?: number) =>
  addSubscription(
    { webhooks, keys: stack.services.keys, resolver: { resolve: async () => ['127.0.0.1'] } },
    { keyId, url: `${base}${path}`, events, daysBefore },
    'local',
    clock.now(),
  );

/** The outbox items in the table, as the stream hands them over (raw attribute values). */
async function outboxStreamRecords(): Promise<DynamoDBRecord[]> {
  const { Items = [] } = await client.send(
    new ScanCommand({ TableName: LOCAL_TABLE_NAME, FilterExpression: 'sk = :sk', ExpressionAttributeValues: { ':sk': { S: 'event' } } }),
  );
  return Items.map((item, i) => streamRecord('INSERT', item, String(i)));
}

function streamRecord(eventName: 'INSERT' | 'MODIFY' | 'REMOVE', item: Record<string, AttributeValue>, sequence: string): DynamoDBRecord {
  const image = item as DynamoDBRecord['dynamodb'] extends infer D ? (D extends { NewImage?: infer I } ? I : never) : never;
  return {
    eventName,
    eventSource: 'aws:dynamodb',
    dynamodb: {
      Keys: { pk: item.pk!, sk: item.sk! } as typeof image,
      ...(eventName === 'REMOVE' ? { OldImage: image } : { NewImage: image }),
      SequenceNumber: sequence,
    },
  };
}

const fanOutPorts = (): ChangeFanOutPorts => ({ webhooks, log, queue, clock, outbox: new DynamoChangeOutbox(client, LOCAL_TABLE_NAME) });
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
const FAST = { mode: 'local' as const, schedule: [30, 120], timeoutMs: 1_000 };

describe('webhook functions in AWS', () => {
  it('fans out new outbox items to the queue, once, and empties the outbox', async () => {
    const { subscription } = await subscribe('/changes', ['grant.created', 'grant.updated']);
    await stack.services.store.put('grant', grants.slice(0, 3));
    const records = await outboxStreamRecords();
    expect(records).toHaveLength(3);
    const recordItem = { pk: { S: `grant#${grants[0]!.id}` }, sk: { S: 'record' } };
    const event: DynamoDBStreamEvent = {
      Records: [
        ...records,
        streamRecord('REMOVE', records[0]!.dynamodb!.NewImage as Record<string, AttributeValue>, '9'),
        streamRecord('INSERT', recordItem, '10'),
      ],
    };

    const response = await changeFanOutHandler(fanOutPorts)(event, context, noCallback);
    expect(response).toEqual({ batchItemFailures: [] });
    const messages = sqs.drain(queueUrl);
    expect(messages).toHaveLength(3);
    expect(messages.every((m) => m.delaySeconds === 0)).toBe(true);
    const deliveries = await log.list(subscription.subscription_id, 10);
    expect(deliveries.map((d) => d.status)).toEqual(['pending', 'pending', 'pending']);
    expect(new Set(messages.map((m) => (JSON.parse(m.body) as { delivery_id: string }).delivery_id))).toEqual(new Set(deliveries.map((d) => d.delivery_id)));
    expect(await outboxStreamRecords()).toHaveLength(0);

    // A retried stream batch makes no second delivery; it queues the pending ones again, which
    // the sender's idempotence absorbs.
    await changeFanOutHandler(fanOutPorts)({ Records: records }, context, noCallback);
    expect(await log.list(subscription.subscription_id, 10)).toHaveLength(3);
    const requeued = sqs.drain(queueUrl);
    expect(requeued.map((m) => m.body).sort()).toEqual(messages.map((m) => m.body).sort());

    // The sender delivers them, signed; the same SQS batch again sends nothing more.
    const sender = webhookSenderHandler(() => deliveryPorts(), FAST);
    const sent = (await sender(sqsEventOf(messages), context, noCallback)) as SQSBatchResponse;
    expect(sent.batchItemFailures).toEqual([]);
    const arrived = received.filter((r) => r.path === '/changes');
    expect(arrived).toHaveLength(3);
    const { secret } = (await webhooks.get(subscription.subscription_id))!;
    for (const request of arrived) {
      expect(verifyServiceSignature(request.body, String(request.headers['x-service-signature']), secret)).toBe(true);
      expect(verifyWebhookSignature(request.body, request.headers, secret, { now: clock.now() })).toBe(true);
    }
    expect(arrived.map((r) => (JSON.parse(r.body) as { data: Grant }).data.id).sort()).toEqual(
      grants
        .slice(0, 3)
        .map((g) => g.id)
        .sort(),
    );
    expect((await log.list(subscription.subscription_id, 10)).every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
    await sender(sqsEventOf(requeued), context, noCallback);
    expect(received.filter((r) => r.path === '/changes')).toHaveLength(3);
    expect(sqs.sent).toHaveLength(0);
    await webhooks.update(subscription.subscription_id, { state: 'disabled', disabled_reason: 'test over', updated_at: clock.now().toISOString() });
  });

  it('re-queues a failed attempt with its delay, sends early arrivals back, and dead-letters after the last attempt', async () => {
    const { subscription } = await subscribe('/down', ['grant.created']);
    failing.add('/down');
    await stack.services.store.put('grant', [grants[3]!]);
    await changeFanOutHandler(fanOutPorts)({ Records: await outboxStreamRecords() }, context, noCallback);
    const sender = webhookSenderHandler(() => deliveryPorts(), FAST);

    let messages = sqs.drain(queueUrl);
    await sender(sqsEventOf(messages), context, noCallback);
    // random 0.5 is no jitter: the first retry waits the schedule's 30 s.
    messages = sqs.drain(queueUrl);
    expect(messages.map((m) => m.delaySeconds)).toEqual([30]);
    const [delivery] = await log.list(subscription.subscription_id, 1);
    expect(delivery).toMatchObject({ status: 'retrying', attempts: 1, last_status_code: 500 });

    // SQS handing it over early (it may) only puts it back for the rest of the wait.
    clock.at = new Date(clock.at.getTime() + 10_000);
    await sender(sqsEventOf(messages), context, noCallback);
    messages = sqs.drain(queueUrl);
    expect(messages.map((m) => m.delaySeconds)).toEqual([20]);
    expect(received.filter((r) => r.path === '/down')).toHaveLength(1);

    clock.at = new Date(clock.at.getTime() + 20_000);
    await sender(sqsEventOf(messages), context, noCallback);
    messages = sqs.drain(queueUrl);
    expect(messages.map((m) => m.delaySeconds)).toEqual([120]);
    clock.at = new Date(clock.at.getTime() + 120_000);
    await sender(sqsEventOf(messages), context, noCallback);
    expect(sqs.drain(queueUrl)).toEqual([]);
    expect(sqs.drain(deadLetterUrl).map((m) => JSON.parse(m.body))).toEqual([{ delivery_id: delivery!.delivery_id }]);
    expect(await log.get(delivery!.delivery_id)).toMatchObject({ status: 'failed', attempts: 3 });
    expect(received.filter((r) => r.path === '/down')).toHaveLength(3);
    failing.delete('/down');
    await webhooks.update(subscription.subscription_id, { state: 'disabled', disabled_reason: 'test over', updated_at: clock.now().toISOString() });
  });

  it('reports only the message that failed unexpectedly, and drops a message that names no delivery', async () => {
    const { subscription } = await subscribe('/partial', ['grant.created']);
    await stack.services.store.put('grant', grants.slice(4, 6));
    await changeFanOutHandler(fanOutPorts)({ Records: await outboxStreamRecords() }, context, noCallback);
    const messages = sqs.drain(queueUrl);
    expect(messages).toHaveLength(2);
    const broken = (JSON.parse(messages[0]!.body) as { delivery_id: string }).delivery_id;
    const flakyLog: DeliveryPorts['log'] = {
      ...log,
      create: (d) => log.create(d),
      save: (d) => log.save(d),
      list: (s, l) => log.list(s, l),
      get: async (id) => {
        if (id === broken) throw new Error('ProvisionedThroughputExceededException');
        return log.get(id);
      },
    };
    const garbage = { messageId: 'garbage', body: 'not json' };
    const response = (await webhookSenderHandler(() => deliveryPorts({ log: flakyLog }), FAST)(
      sqsEventOf([...messages, garbage]),
      context,
      noCallback,
    )) as SQSBatchResponse;
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: messages[0]!.messageId }]);
    expect(received.filter((r) => r.path === '/partial')).toHaveLength(1);
    expect((await log.list(subscription.subscription_id, 5)).map((d) => d.status).sort()).toEqual(['delivered', 'pending']);
    await webhooks.update(subscription.subscription_id, { state: 'disabled', disabled_reason: 'test over', updated_at: clock.now().toISOString() });
  });

  it('refuses a loopback receiver in AWS mode at delivery time (DNS rebinding) and retries it on the schedule', async () => {
    const { subscription } = await subscribe('/rebound', ['grant.created']);
    await stack.services.store.put('grant', [grants[6]!]);
    await changeFanOutHandler(fanOutPorts)({ Records: await outboxStreamRecords() }, context, noCallback);
    // The production options: AWS destination rules and schedule.
    await webhookSenderHandler(() => deliveryPorts())(sqsEventOf(sqs.drain(queueUrl)), context, noCallback);
    expect(received.filter((r) => r.path === '/rebound')).toHaveLength(0);
    const [delivery] = await log.list(subscription.subscription_id, 1);
    expect(delivery).toMatchObject({ status: 'retrying', attempts: 1, last_status_code: null });
    expect(delivery!.last_error).toMatch(/refused: 127\.0\.0\.1 is a loopback address/);
    expect(sqs.drain(queueUrl).map((m) => m.delaySeconds)).toEqual([60]);
    await webhooks.update(subscription.subscription_id, { state: 'disabled', disabled_reason: 'test over', updated_at: clock.now().toISOString() });
  });

  it('sends deadline events from the scheduled scan once per record and deadline', async () => {
    const { subscription } = await subscribe('/deadlines', ['grant.deadline_approaching'], 5);
    const soon = { ...grants[7]!, status: 'posted' as const, deadline_date: '2026-11-25', posted_date: '2026-11-01' };
    await stack.services.store.put('grant', [soon]);
    const scan = deadlineScanHandler(() => ({ webhooks, log, queue, clock, index: stack.services.index, ledger: stack.deadlineLedger }));
    const scheduled = { time: clock.now().toISOString() } as ScheduledEvent;
    await scan(scheduled, context, noCallback);
    const messages = sqs.drain(queueUrl);
    const deliveries = await log.list(subscription.subscription_id, 10);
    expect(deliveries.map((d) => [d.event, (JSON.parse(d.body) as { data: Grant }).data.id])).toContainEqual(['grant.deadline_approaching', soon.id]);
    expect(messages).toHaveLength(deliveries.length);
    await scan(scheduled, context, noCallback);
    expect(sqs.drain(queueUrl)).toEqual([]);
  });
});

describe('SqsDeliveryQueue', () => {
  it('sends whole seconds of delay within SQS limits', async () => {
    for (const delay of [0.2, 5_000, -3]) await queue.send({ delivery_id: `d${delay}` }, delay);
    expect(sqs.drain(queueUrl).map((m) => m.delaySeconds)).toEqual([1, 900, 0]);
    expect(queue.maxDelaySeconds).toBe(900);
  });
});
