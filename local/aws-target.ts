import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand, type Stack } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { SQSClient } from '@aws-sdk/client-sqs';
import { ApiGatewayLegacyKeys } from '../lambdas/adapters/aws/api-gateway-legacy-keys';
import { DynamoAccountStore } from '../lambdas/adapters/aws/dynamo-account-store';
import { DynamoChangeOutbox } from '../lambdas/adapters/aws/dynamo-change-outbox';
import { DynamoDeadlineLedger } from '../lambdas/adapters/aws/dynamo-deadline-ledger';
import { DynamoDeliveryLog } from '../lambdas/adapters/aws/dynamo-delivery-log';
import { DynamoEmbeddingCache } from '../lambdas/adapters/aws/dynamo-embedding-cache';
import { DynamoKeyStore } from '../lambdas/adapters/aws/dynamo-key-store';
import { DynamoRecordStore } from '../lambdas/adapters/aws/dynamo-record-store';
import { DynamoRequestLog } from '../lambdas/adapters/aws/dynamo-request-log';
import { DynamoUsageMeter } from '../lambdas/adapters/aws/dynamo-usage-meter';
import { DynamoWebhookStore } from '../lambdas/adapters/aws/dynamo-webhook-store';
import { KmsSecretSealer } from '../lambdas/adapters/aws/kms-secret-sealer';
import type { OpenSearchIndex } from '../lambdas/adapters/aws/opensearch-index';
import { SqsDeliveryQueue } from '../lambdas/adapters/aws/sqs-delivery-queue';
import { dnsHostResolver } from '../lambdas/adapters/dns-host-resolver';
import { bedrockEmbedder, createAwsSearchServices, openSearchIndexFor, vectorSpaceFromEnv } from '../lambdas/composition/aws-search';
import { WEBHOOK_SECRET_KEY_ENV } from '../lambdas/composition/webhook-env';
import type { EmbeddingPorts } from '../lambdas/core/use-cases/embed-records';
import type { ChangeFanOutPorts } from '../lambdas/core/use-cases/fan-out-events';
import type { IngestPorts } from '../lambdas/core/use-cases/ingest-records';
import type { SearchPorts } from '../lambdas/core/use-cases/list-records';
import type { WebhookPorts } from '../lambdas/core/use-cases/manage-webhooks';
import type { DeadlineScanPorts } from '../lambdas/core/use-cases/scan-deadlines';
import type { AccountStore } from '../lambdas/ports/account-store';
import type { ChangeOutbox } from '../lambdas/ports/change-outbox';
import { systemClock } from '../lambdas/ports/clock';
import type { DeliveryLog } from '../lambdas/ports/delivery-log';
import type { DeliveryQueue } from '../lambdas/ports/delivery-queue';
import type { LegacyGatewayKeys } from '../lambdas/ports/gateway-keys';
import type { KeyStore } from '../lambdas/ports/key-store';
import type { RecordStore } from '../lambdas/ports/record-store';
import type { RequestLog } from '../lambdas/ports/request-log';
import { SECRETS_WITHHELD } from '../lambdas/ports/secret-sealer';
import type { UsageMeter } from '../lambdas/ports/usage-meter';
import { STACK_OUTPUTS, stackNamesOf } from '../lib/stack-names';

/**
 * The admin CLI's view of a deployed stage: the records table named by the stateful stack's
 * outputs. Writes go to DynamoDB only; its stream drives the indexer Lambda, as for any writer.
 */
export interface AwsTargetOptions {
  stage: string;
  region?: string;
  /** Skips the stack lookup. */
  tableName?: string;
}

/** A deployed stage that cannot be found or reached: the CLI prints the message alone. */
export class AwsTargetError extends Error {}

/** One stack as DescribeStacks answers it: status, times and outputs. A missing stack throws (the SDK's "Stack with id … does not exist"). */
export async function describeStack(cloudFormation: CloudFormationClient, stackName: string): Promise<Stack> {
  const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
  const stack = Stacks?.[0];
  if (!stack) throw new Error(`stack ${stackName} does not exist`);
  return stack;
}

/** The value of a stack's output, or undefined when a stack deployed from an older version lacks it. */
export function outputOf(stack: Stack, output: string): string | undefined {
  return stack.Outputs?.find((o) => o.OutputKey === output)?.OutputValue || undefined;
}

/** An output of one of the stage's stacks, or the explicit value that overrides the lookup. */
export async function stackOutput(
  options: AwsTargetOptions,
  stack: 'stateful' | 'stateless',
  output: string,
  what: string,
  flag: string,
  explicit?: string,
): Promise<string> {
  if (explicit) return explicit;
  const stackName = stackNamesOf(options.stage)[stack];
  const cloudFormation = new CloudFormationClient({ region: options.region });
  try {
    const value = outputOf(await describeStack(cloudFormation, stackName), output);
    if (!value) throw new Error(`stack ${stackName} has no ${output} output: deploy the current version first`);
    return value;
  } catch (error) {
    throw new AwsTargetError(`cannot find the ${what} of stage "${options.stage}" (${(error as Error).message}); pass ${flag} to skip the lookup`);
  } finally {
    cloudFormation.destroy();
  }
}

export function recordsTableOf(options: AwsTargetOptions): Promise<string> {
  return stackOutput(options, 'stateful', STACK_OUTPUTS.recordsTableName, 'records table', '--table-name', options.tableName);
}

export function searchEndpointOf(options: AwsTargetOptions & { searchEndpoint?: string }): Promise<string> {
  return stackOutput(options, 'stateful', STACK_OUTPUTS.searchDomainEndpoint, 'search domain', '--search-endpoint', options.searchEndpoint);
}

export interface AwsReindexPorts {
  store: RecordStore;
  index: OpenSearchIndex;
  /** Bedrock, with the embedding cache in the stage's table: a backfill embeds only texts never embedded. */
  embeddings: EmbeddingPorts;
  tableName: string;
  endpoint: string;
  close(): void;
}

/** The search domain and vector space of a stage, as the functions' environment names them. */
async function searchEnvironmentOf(options: AwsTargetOptions & { searchEndpoint?: string; embeddingDimensions?: string }, region: string) {
  const endpoint = await searchEndpointOf(options);
  const model = options.embeddingDimensions
    ? 'amazon.titan-embed-text-v2:0'
    : await stackOutput(options, 'stateless', STACK_OUTPUTS.embeddingModel, 'embedding model', '--embedding-dimensions');
  const dimensions = await stackOutput(
    options,
    'stateless',
    STACK_OUTPUTS.embeddingDimensions,
    'embedding dimensions',
    '--embedding-dimensions',
    options.embeddingDimensions,
  );
  // A rebuilt index gets the stage's replicas; a domain named by hand (--search-endpoint) gets the default.
  const replicas = options.searchEndpoint
    ? undefined
    : await stackOutput(options, 'stateful', STACK_OUTPUTS.searchIndexReplicas, 'search index replicas', '--search-endpoint');
  // Likewise the stage's k-NN graph, so a rebuilt index keeps the engine the stage configures.
  const vectors = options.searchEndpoint
    ? undefined
    : await stackOutput(options, 'stateful', STACK_OUTPUTS.searchVectorSettings, 'search vector settings', '--search-endpoint');
  const env = {
    ...(replicas === undefined ? {} : { SEARCH_INDEX_REPLICAS: replicas }),
    ...(vectors === undefined ? {} : { SEARCH_VECTOR_SETTINGS: vectors }),
    SEARCH_DOMAIN_ENDPOINT: endpoint.startsWith('http') ? endpoint : `https://${endpoint}`,
    AWS_REGION: region,
    EMBEDDING_MODEL: model,
    EMBEDDING_DIMENSIONS: dimensions,
  };
  try {
    return { env, endpoint, space: vectorSpaceFromEnv(env) };
  } catch (error) {
    throw new AwsTargetError((error as Error).message);
  }
}

/**
 * The records table, search domain and embedding model of a stage, for a backfill or rebuild of
 * its index (`admin reindex --target aws`). The model and dimensions come from the stateless
 * stack's outputs unless `embeddingDimensions` is given.
 */
export async function awsReindexPorts(options: AwsTargetOptions & { searchEndpoint?: string; embeddingDimensions?: string }): Promise<AwsReindexPorts> {
  const tableName = await recordsTableOf(options);
  const client = new DynamoDBClient({ region: options.region });
  const { env, endpoint, space } = await searchEnvironmentOf(options, options.region ?? (await client.config.region()));
  return {
    store: new DynamoRecordStore(client, tableName),
    index: openSearchIndexFor(env, space),
    embeddings: { embedder: bedrockEmbedder(env), cache: new DynamoEmbeddingCache(client, tableName) },
    tableName,
    endpoint,
    close: () => client.destroy(),
  };
}

/**
 * The key store, usage meter and accounts in a stage's records table (`admin keys|accounts --target aws`), and the
 * API Gateway keys earlier versions made per customer key (`keys migrate-gateway-keys`).
 */
export async function awsKeyPorts(
  options: AwsTargetOptions,
): Promise<{ keys: KeyStore; meter: UsageMeter; accounts: AccountStore; requestLog: RequestLog; legacyGatewayKeys: LegacyGatewayKeys; close(): void }> {
  const tableName = await recordsTableOf(options);
  const client = new DynamoDBClient({ region: options.region });
  const apiGateway = new APIGatewayClient({ region: options.region });
  return {
    keys: new DynamoKeyStore(client, tableName),
    meter: new DynamoUsageMeter(client, tableName),
    accounts: new DynamoAccountStore(client, tableName),
    requestLog: new DynamoRequestLog(client, tableName),
    legacyGatewayKeys: new ApiGatewayLegacyKeys(apiGateway),
    close: () => {
      client.destroy();
      apiGateway.destroy();
    },
  };
}

/**
 * The stage's webhook subscriptions and keys (the records table), and the system resolver for URL
 * checks. Secrets are sealed and opened with the stage's KMS key (looked up when first needed);
 * the caller's role must carry the key's principal tag (docs/deploy.md).
 */
export async function awsWebhookPorts(options: AwsTargetOptions & { webhookSecretKeyArn?: string }): Promise<WebhookPorts & { close(): void }> {
  const tableName = await recordsTableOf(options);
  const client = new DynamoDBClient({ region: options.region });
  const kms = new KMSClient({ region: options.region });
  const keyArn = () =>
    stackOutput(
      options,
      'stateful',
      STACK_OUTPUTS.webhookSecretKeyArn,
      'webhook secret key',
      `${WEBHOOK_SECRET_KEY_ENV}=<key arn> (environment)`,
      options.webhookSecretKeyArn ?? process.env[WEBHOOK_SECRET_KEY_ENV],
    );
  return {
    webhooks: new DynamoWebhookStore(client, tableName, new KmsSecretSealer(kms, keyArn)),
    keys: new DynamoKeyStore(client, tableName),
    resolver: dnsHostResolver,
    close: () => {
      client.destroy();
      kms.destroy();
    },
  };
}

/**
 * The list's search services of a stage (its search domain and Bedrock), for counting what a saved
 * search matches today (`webhooks add --filter --target aws`); null, with why, when the domain
 * cannot be found from the stack outputs or --search-endpoint.
 */
export async function awsSavedSearchPorts(
  options: AwsTargetOptions & { searchEndpoint?: string; embeddingDimensions?: string },
): Promise<{ ports: SearchPorts } | { missing: string }> {
  const client = new DynamoDBClient({ region: options.region });
  try {
    const { env } = await searchEnvironmentOf(options, options.region ?? (await client.config.region()));
    return { ports: createAwsSearchServices(env) };
  } catch (error) {
    return { missing: (error as Error).message };
  } finally {
    client.destroy();
  }
}

export async function awsDeliveryLog(options: AwsTargetOptions): Promise<{ log: DeliveryLog; close(): void }> {
  const tableName = await recordsTableOf(options);
  const client = new DynamoDBClient({ region: options.region });
  return { log: new DynamoDeliveryLog(client, tableName), close: () => client.destroy() };
}

export interface WebhookQueueOptions {
  /** Skip the lookup of the stateful stack's outputs. */
  queueUrl?: string;
  deadLetterQueueUrl?: string;
}

/** The stage's webhook queue and dead-letter queue (SQS), for replay and the deadline scan. */
async function webhookQueueOf(options: AwsTargetOptions & WebhookQueueOptions): Promise<{ queue: SqsDeliveryQueue; close(): void }> {
  const queueUrl = await stackOutput(options, 'stateful', STACK_OUTPUTS.webhookQueueUrl, 'webhook queue', '--queue-url', options.queueUrl);
  const deadLetterQueueUrl = await stackOutput(
    options,
    'stateful',
    STACK_OUTPUTS.webhookDeadLetterQueueUrl,
    'webhook dead-letter queue',
    '--dead-letter-queue-url',
    options.deadLetterQueueUrl,
  );
  const sqs = new SQSClient({ region: options.region });
  return { queue: new SqsDeliveryQueue(sqs, queueUrl, deadLetterQueueUrl), close: () => sqs.destroy() };
}

/** The stage's delivery log and webhook queue: `webhooks replay --target aws` queues on SQS, and the sender Lambda delivers. */
export async function awsDeliveryQueuePorts(
  options: AwsTargetOptions & WebhookQueueOptions,
): Promise<{ log: DeliveryLog; queue: DeliveryQueue; close(): void }> {
  const { log, close } = await awsDeliveryLog(options);
  const { queue, close: closeQueue } = await webhookQueueOf(options);
  return {
    log,
    queue,
    close: () => {
      close();
      closeQueue();
    },
  };
}

/**
 * The outbox, subscriptions, delivery log and webhook queue of a stage: `webhooks fan-out --target
 * aws`. With the search domain found (from the stack or --search-endpoint), saved searches are
 * matched as the fan-out function matches them; without it, a fan-out that meets one fails with
 * what is missing.
 */
export async function awsChangeFanOutPorts(
  options: AwsTargetOptions & WebhookQueueOptions & { searchEndpoint?: string; embeddingDimensions?: string },
): Promise<ChangeFanOutPorts & { outbox: ChangeOutbox; close(): void }> {
  const tableName = await recordsTableOf(options);
  const client = new DynamoDBClient({ region: options.region });
  const { queue, close } = await webhookQueueOf(options);
  const search = await awsSavedSearchPorts(options);
  return {
    ...('ports' in search ? { savedSearch: search.ports } : {}),
    // Matching needs no secret: they stay sealed, as in the fan-out and deadline scan functions.
    webhooks: new DynamoWebhookStore(client, tableName, SECRETS_WITHHELD),
    log: new DynamoDeliveryLog(client, tableName),
    outbox: new DynamoChangeOutbox(client, tableName),
    queue,
    clock: systemClock,
    close: () => {
      client.destroy();
      close();
    },
  };
}

/** What the deadline scanner Lambda uses, from the operator's machine (`scan-deadlines --target aws`). */
export async function awsDeadlineScanPorts(
  options: AwsTargetOptions & WebhookQueueOptions & { searchEndpoint?: string; embeddingDimensions?: string },
): Promise<DeadlineScanPorts & { close(): void }> {
  const tableName = await recordsTableOf(options);
  const client = new DynamoDBClient({ region: options.region });
  const { env, space } = await searchEnvironmentOf(options, options.region ?? (await client.config.region()));
  const { queue, close } = await webhookQueueOf(options);
  return {
    // Matching needs no secret: they stay sealed, as in the fan-out and deadline scan functions.
    webhooks: new DynamoWebhookStore(client, tableName, SECRETS_WITHHELD),
    log: new DynamoDeliveryLog(client, tableName),
    ledger: new DynamoDeadlineLedger(client, tableName),
    index: openSearchIndexFor(env, space),
    queue,
    clock: systemClock,
    // Saved searches are matched as the deadline scanner matches them: the list's services (OpenSearch, Bedrock).
    savedSearch: createAwsSearchServices(env),
    close: () => {
      client.destroy();
      close();
    },
  };
}

export async function awsIngestPorts(options: AwsTargetOptions): Promise<IngestPorts & { tableName: string; close(): void }> {
  const tableName = await recordsTableOf(options);
  const client = new DynamoDBClient({ region: options.region });
  return { store: new DynamoRecordStore(client, tableName), clock: systemClock, tableName, close: () => client.destroy() };
}
