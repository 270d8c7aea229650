import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import dynalite from 'dynalite';
import {
  WEBHOOK_DEAD_LETTER_RETENTION_SECONDS, WEBHOOK_MAX_RECEIVES, WEBHOOK_QUEUE_RETENTION_SECONDS, WEBHOOK_VISIBILITY_TIMEOUT_SECONDS,
} from '../../lib/webhook-queue-settings';
import { ensureTable } from '../local-table';
import { StreamProxy } from './stream-proxy';
import { TableStream } from './table-stream';

/**
 * What the stateful stack holds, on this machine: the records table in dynalite (in a data folder)
 * behind the stream proxy, its stream, and the webhook queue with its dead-letter queue on
 * ElasticMQ, made with the stack's settings.
 */

export const LOCAL_AWS_TABLE_NAME = 'gcf-records';
export const LOCAL_AWS_QUEUE_NAMES = { queue: 'gcf-webhooks', deadLetter: 'gcf-webhooks-dlq' } as const;
/** Any region: the engines ignore it, but the SDK and the ARNs need one. */
export const LOCAL_AWS_REGION = 'us-east-1';
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export interface LocalTable {
  /** The proxy's endpoint, with the stream: what every client of the table uses. */
  endpoint: string;
  stream: TableStream;
  /** Whether the table was created by this start (a new or reset data folder). */
  created: boolean;
  close(): Promise<void>;
}

export async function startLocalTable(dataDir: string): Promise<LocalTable> {
  mkdirSync(dataDir, { recursive: true });
  // The pinned SDK's notice that its 2027 releases need Node 22 (Lambda's runtime) is not for each start.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const server = dynalite({ path: join(dataDir, 'dynamodb'), createTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const closeServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const client = new DynamoDBClient({ endpoint: target, region: LOCAL_AWS_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    const { created } = await ensureTable(client, LOCAL_AWS_TABLE_NAME);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: LOCAL_AWS_TABLE_NAME }));
    const keyNames = (Table?.KeySchema ?? []).sort((a) => (a.KeyType === 'HASH' ? -1 : 1)).map((k) => k.AttributeName!);
    const stream = new TableStream();
    const proxy = new StreamProxy({ target, tableName: LOCAL_AWS_TABLE_NAME, keyNames, region: LOCAL_AWS_REGION, stream });
    const endpoint = await proxy.listen();
    return {
      endpoint,
      stream,
      created,
      async close() {
        await proxy.close();
        await closeServer();
      },
    };
  } catch (error) {
    await closeServer();
    throw error;
  } finally {
    client.destroy();
  }
}

export interface LocalQueues {
  queueUrl: string;
  queueArn: string;
  deadLetterQueueUrl: string;
}

/** The webhook queue and its dead-letter queue, with the stateful stack's settings (CreateQueue is idempotent). */
export async function ensureWebhookQueues(sqsEndpoint: string): Promise<LocalQueues> {
  const sqs = new SQSClient({ endpoint: sqsEndpoint, region: LOCAL_AWS_REGION, credentials: LOCAL_CREDENTIALS });
  const arnOf = async (url: string) => (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  try {
    const deadLetterQueueUrl = (await sqs.send(new CreateQueueCommand({
      QueueName: LOCAL_AWS_QUEUE_NAMES.deadLetter,
      Attributes: { MessageRetentionPeriod: String(WEBHOOK_DEAD_LETTER_RETENTION_SECONDS) },
    }))).QueueUrl!;
    const queueUrl = (await sqs.send(new CreateQueueCommand({
      QueueName: LOCAL_AWS_QUEUE_NAMES.queue,
      Attributes: {
        VisibilityTimeout: String(WEBHOOK_VISIBILITY_TIMEOUT_SECONDS),
        MessageRetentionPeriod: String(WEBHOOK_QUEUE_RETENTION_SECONDS),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: await arnOf(deadLetterQueueUrl), maxReceiveCount: WEBHOOK_MAX_RECEIVES }),
      },
    }))).QueueUrl!;
    return { queueUrl, queueArn: await arnOf(queueUrl), deadLetterQueueUrl };
  } finally {
    sqs.destroy();
  }
}
