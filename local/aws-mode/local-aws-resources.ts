import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  WEBHOOK_DEAD_LETTER_RETENTION_SECONDS,
  WEBHOOK_MAX_RECEIVES,
  WEBHOOK_QUEUE_RETENTION_SECONDS,
  WEBHOOK_VISIBILITY_TIMEOUT_SECONDS,
} from '../../lib/webhook-queue-settings';
import { InProcessDynalite } from '../in-process-dynalite';
import { ensureTable } from '../local-table';
import { makeStatePrivate, PRIVATE_FILE_MODE } from '../private-state';
import { newTableCredentials, type TableCredentials } from '../table-credentials';
import { StreamProxy } from './stream-proxy';
import { TableStream } from './table-stream';

/**
 * What the stateful stack holds, on this machine: the records table in dynalite (in a data folder)
 * behind the stream proxy, its stream, and the webhook queue with its dead-letter queue on
 * ElasticMQ, made with the stack's settings. The table answers only requests signed with this
 * start's random credential, which the functions are given and `table-credentials.json` (600) in
 * the state folder holds for admin commands.
 */

export const LOCAL_AWS_TABLE_NAME = 'gcf-records';
export const LOCAL_AWS_QUEUE_NAMES = { queue: 'gcf-webhooks', deadLetter: 'gcf-webhooks-dlq' } as const;
/** Any region: the engines ignore it, but the SDK and the ARNs need one. */
export const LOCAL_AWS_REGION = 'us-east-1';
/** ElasticMQ checks that requests are signed, not by whom. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
export const TABLE_CREDENTIALS_FILE = 'table-credentials.json';

export interface LocalTable {
  /** The proxy's endpoint, with the stream: what every client of the table uses. */
  endpoint: string;
  /** What every request to the endpoint must be signed with (this start's alone). */
  credentials: TableCredentials;
  /** Where the credentials are kept for admin commands (mode 600). */
  credentialsFile: string;
  stream: TableStream;
  /** Whether the table was created by this start (a new or reset data folder). */
  created: boolean;
  close(): Promise<void>;
}

export async function startLocalTable(dataDir: string): Promise<LocalTable> {
  makeStatePrivate(dataDir);
  // The pinned SDK's notice that its 2027 releases need Node 22 (Lambda's runtime) is not for each start.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const dynamo = new InProcessDynalite({ path: join(dataDir, 'dynamodb') });
  const closeServer = () => dynamo.close();
  const client = dynamo.client({ region: LOCAL_AWS_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    const { created } = await ensureTable(client, LOCAL_AWS_TABLE_NAME);
    const { Table } = await client.send(new DescribeTableCommand({ TableName: LOCAL_AWS_TABLE_NAME }));
    const keyNames = (Table?.KeySchema ?? []).sort((a) => (a.KeyType === 'HASH' ? -1 : 1)).map((k) => k.AttributeName!);
    const stream = new TableStream();
    const credentials = newTableCredentials();
    const credentialsFile = join(dataDir, TABLE_CREDENTIALS_FILE);
    writeFileSync(credentialsFile, `${JSON.stringify(credentials, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
    const proxy = new StreamProxy({
      dynamo,
      accessKeyId: credentials.accessKeyId,
      tableName: LOCAL_AWS_TABLE_NAME,
      keyNames,
      region: LOCAL_AWS_REGION,
      stream,
    });
    const endpoint = await proxy.listen();
    return {
      endpoint,
      credentials,
      credentialsFile,
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
    const deadLetterQueueUrl = (
      await sqs.send(
        new CreateQueueCommand({
          QueueName: LOCAL_AWS_QUEUE_NAMES.deadLetter,
          Attributes: { MessageRetentionPeriod: String(WEBHOOK_DEAD_LETTER_RETENTION_SECONDS) },
        }),
      )
    ).QueueUrl!;
    const queueUrl = (
      await sqs.send(
        new CreateQueueCommand({
          QueueName: LOCAL_AWS_QUEUE_NAMES.queue,
          Attributes: {
            VisibilityTimeout: String(WEBHOOK_VISIBILITY_TIMEOUT_SECONDS),
            MessageRetentionPeriod: String(WEBHOOK_QUEUE_RETENTION_SECONDS),
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: await arnOf(deadLetterQueueUrl), maxReceiveCount: WEBHOOK_MAX_RECEIVES }),
          },
        }),
      )
    ).QueueUrl!;
    return { queueUrl, queueArn: await arnOf(queueUrl), deadLetterQueueUrl };
  } finally {
    sqs.destroy();
  }
}
