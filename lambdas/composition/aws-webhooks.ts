import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoChangeOutbox } from '../adapters/aws/dynamo-change-outbox';
import { DynamoDeliveryLog } from '../adapters/aws/dynamo-delivery-log';
import { DynamoWebhookStore } from '../adapters/aws/dynamo-webhook-store';
import { KmsSecretSealer } from '../adapters/aws/kms-secret-sealer';
import { SqsDeliveryQueue } from '../adapters/aws/sqs-delivery-queue';
import { dnsHostResolver } from '../adapters/dns-host-resolver';
import { httpWebhookTransport } from '../adapters/http-webhook-transport';
import type { DeliveryPorts } from '../core/use-cases/deliver-webhook';
import type { ChangeFanOutPorts } from '../core/use-cases/fan-out-events';
import { systemClock } from '../ports/clock';
import { SECRETS_WITHHELD, type SecretSealer } from '../ports/secret-sealer';
import { requireEnv } from './aws';
import { awsTelemetry, traced } from './aws-telemetry';
import { WEBHOOK_QUEUE_ENV, WEBHOOK_SECRET_KEY_ENV } from './webhook-env';

/**
 * The composition of the webhook functions: the subscriptions and delivery log in the records
 * table, and the SQS webhook queue with its dead-letter queue. The deadline scanner adds the
 * search index (composition/aws-deadline-scan.ts), so the sender and the fan-out do not bundle
 * the OpenSearch client.
 */

export interface AwsWebhookAdapters {
  dynamo: DynamoDBClient;
  tableName: string;
  webhooks: DynamoWebhookStore;
  log: DynamoDeliveryLog;
  queue: SqsDeliveryQueue;
}

/** The KMS sealer on a function given the key (the sender); the others read secrets still sealed and may not write one. */
export function secretSealerOf(env: NodeJS.ProcessEnv): SecretSealer {
  const keyArn = env[WEBHOOK_SECRET_KEY_ENV];
  return keyArn ? new KmsSecretSealer(traced(new KMSClient({})), keyArn) : SECRETS_WITHHELD;
}

/** `secrets` replaces the environment's sealer (the local AWS mode's key file, in place of KMS). */
export function createAwsWebhookAdapters(env: NodeJS.ProcessEnv = process.env, secrets: SecretSealer = secretSealerOf(env)): AwsWebhookAdapters {
  const dynamo = traced(new DynamoDBClient({}));
  const tableName = requireEnv(env, 'RECORDS_TABLE_NAME');
  return {
    dynamo,
    tableName,
    webhooks: new DynamoWebhookStore(dynamo, tableName, secrets),
    log: new DynamoDeliveryLog(dynamo, tableName),
    queue: new SqsDeliveryQueue(traced(new SQSClient({})), requireEnv(env, WEBHOOK_QUEUE_ENV.queueUrl), requireEnv(env, WEBHOOK_QUEUE_ENV.deadLetterQueueUrl)),
  };
}

let adapters: AwsWebhookAdapters | undefined;
/** Built on first use, once per cold start. */
export const awsWebhookAdapters = () => (adapters ??= createAwsWebhookAdapters());

/** The sender's ports: one attempt per message, over HTTPS to public addresses only (the handler's DeliveryOptions say which). */
export function createAwsDeliveryPorts(adapters: AwsWebhookAdapters): DeliveryPorts {
  const { webhooks, log, queue } = adapters;
  return {
    webhooks,
    log,
    queue,
    transport: httpWebhookTransport,
    resolver: dnsHostResolver,
    clock: systemClock,
    random: Math.random,
    metrics: awsTelemetry.metrics,
  };
}

let deliveryPorts: DeliveryPorts | undefined;

export function awsDeliveryPorts(): DeliveryPorts {
  deliveryPorts ??= createAwsDeliveryPorts(awsWebhookAdapters());
  return deliveryPorts;
}

/** The fan-out's ports: change events from the outbox to deliveries on the queue, then out of the outbox. */
export function createAwsFanOutPorts(adapters: AwsWebhookAdapters): ChangeFanOutPorts {
  const { dynamo, tableName, webhooks, log, queue } = adapters;
  return { webhooks, log, queue, clock: systemClock, outbox: new DynamoChangeOutbox(dynamo, tableName) };
}
