import { type Duration, type RemovalPolicy, Stack, Tags } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, type CfnFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IDomain } from 'aws-cdk-lib/aws-opensearchservice';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { INDEX_ALIASES } from '../../lambdas/adapters/aws/opensearch-mappings';
import type { VectorSearchSettings } from '../../lambdas/adapters/aws/opensearch-vector-search';
import { FUNCTION_ENV } from '../../lambdas/composition/function-env';
import { WEBHOOK_SECRET_KEY_ENV } from '../../lambdas/composition/webhook-env';
import { RESOURCE_KINDS } from '../../lambdas/core/records';
import type { EmbeddingSettings } from '../config';
import type { WebhookSecretKey } from './webhook-secret-key';

/** Environment variables the handlers' composition root reads (defined without CDK imports, for the local AWS mode too). */
export { FUNCTION_ENV };

/**
 * OpenSearch read APIs that are sent as POST (query bodies); POST in general would also allow
 * writes such as `_bulk`.
 */
const SEARCH_READ_POST_APIS = ['_search', '_msearch', '_count', '_mget'] as const;

/** Partition-key patterns of record items (`grant#<id>`...): the only items a read route may get. */
export const RECORD_PARTITION_PATTERNS = RESOURCE_KINDS.map((kind) => `${kind}#*`);

/** The service's indices on the domain: each alias and the versioned indices behind it (`gcf-grants-v1`). */
function indexPathsOf(domain: IDomain): string[] {
  return Object.values(INDEX_ALIASES).flatMap((alias) => [alias, `${alias}/*`, `${alias}-v*`, `${alias}-v*/*`].map((path) => `${domain.domainArn}/${path}`));
}

/** GET/HEAD on the service's indices and their aliases (mappings, refresh, alias lookups), nothing cluster-wide. */
function indexReadStatement(domain: IDomain): PolicyStatement {
  return new PolicyStatement({
    actions: ['es:ESHttpGet', 'es:ESHttpHead'],
    resources: [...indexPathsOf(domain), ...Object.values(INDEX_ALIASES).map((alias) => `${domain.domainArn}/_alias/${alias}`)],
  });
}

// esbuild's ESM output has no `require`; some dependencies still call it for Node built-ins.
const ESM_REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * How every function is bundled (NodejsFunction's esbuild options). Exported so that the bundle
 * budget test and the cold-start bench (bench/bundles.ts) bundle exactly as a deployment does.
 */
export const FUNCTION_BUNDLING = {
  minify: true,
  sourceMap: true,
  // Stack traces need file names and lines, not the embedded sources; keeps the bundle small.
  sourcesContent: false,
  format: OutputFormat.ESM,
  target: 'node22',
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  // The Node 22 runtime ships AWS SDK v3; bundling it would take every API function over its
  // budget (test/infra/bundle-budget.test.ts), so the functions run on the runtime's copy, proven
  // against RUNTIME_SDK_FLOOR by test/engines/runtime-sdk.test.ts.
  externalModules: ['@aws-sdk/*'],
} satisfies BundlingOptions;

/**
 * The oldest AWS SDK v3 release the functions are tested against as the runtime's SDK. Lambda
 * ships "a specific minor version", per runtime version and Region, and does not publish it; the
 * Lambda guide's example of that answer is 3.632.0 (August 2024, before the Node 22 runtime
 * existed), so every runtime our functions can meet ships this release or a later one.
 */
export const RUNTIME_SDK_FLOOR = '3.632.0';

export interface ServiceFunctionProps {
  /** Absolute path of the TypeScript entry; it must export `handler`. */
  readonly entry: string;
  readonly description: string;
  /** POWERTOOLS_SERVICE_NAME. */
  readonly serviceName: string;
  readonly memorySizeMb: number;
  readonly timeout: Duration;
  readonly logRetention: RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  /** Directory holding package-lock.json; esbuild resolves modules from it. */
  readonly projectRoot: string;
  readonly environment?: Record<string, string>;
}

/**
 * One Lambda of the service with the house defaults (Node 22 on arm64, X-Ray, source maps, ESM
 * bundle, its own log group). Use the `bind*` helpers to give it a dependency: each sets the
 * environment variable the handler reads and grants the matching permissions in one call.
 */
export class ServiceFunction extends Construct {
  readonly lambdaFunction: NodejsFunction;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);

    // An explicit log group (instead of the implicit /aws/lambda one) gives it a retention and a
    // removal policy, and avoids the LogRetention custom-resource helper function.
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });

    this.lambdaFunction = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySizeMb,
      timeout: props.timeout,
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      projectRoot: props.projectRoot,
      depsLockFilePath: `${props.projectRoot}/package-lock.json`,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        [FUNCTION_ENV.serviceName]: props.serviceName,
        ...props.environment,
      },
      bundling: { ...FUNCTION_BUNDLING, mainFields: [...FUNCTION_BUNDLING.mainFields], externalModules: [...FUNCTION_BUNDLING.externalModules] },
    });
  }

  /**
   * Reserved concurrency (stage config, per function group): caps the function and guarantees it
   * that many concurrent executions out of the account's pool. Undefined leaves it unreserved.
   */
  reserveConcurrency(count: number | undefined): this {
    if (count !== undefined) (this.lambdaFunction.node.defaultChild as CfnFunction).reservedConcurrentExecutions = count;
    return this;
  }

  /** Read access to the list cursors' signing key, located through CURSOR_KEY_SECRET_ARN (lambdas/composition/aws-search.ts). */
  bindCursorKey(secret: ISecret): this {
    this.lambdaFunction.addEnvironment(FUNCTION_ENV.cursorKeySecretArn, secret.secretArn);
    secret.grantRead(this.lambdaFunction);
    return this;
  }

  /**
   * Reads of record items only (GetItem/BatchGetItem on `grant#*`, `contract#*`, `funder#*`), through
   * RECORDS_TABLE_NAME: no Scan or Query, so keys, webhooks and usage in the same table stay out of reach.
   */
  bindRecordReader(table: ITable): this {
    return this.bindItemsByPrefix(table, ['dynamodb:GetItem', 'dynamodb:BatchGetItem'], RECORD_PARTITION_PATTERNS);
  }

  /**
   * The usage counters (daily quota, usage figures) in the records table, through
   * RECORDS_TABLE_NAME: read and update, on usage items only.
   */
  bindUsageMeter(table: ITable): this {
    return this.bindItemsByPrefix(table, ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query'], ['usage#*']);
  }

  /** Writes of each key's recent-requests log ("reqlog#*", lambdas/adapters/aws/dynamo-request-log.ts): PutItem only, no reads. */
  bindRequestLogWriter(table: ITable): this {
    return this.bindItemsByPrefix(table, ['dynamodb:PutItem'], ['reqlog#*']);
  }

  /** Reads of API keys and their hash pointers (the authorizer), through RECORDS_TABLE_NAME. */
  bindKeyReader(table: ITable): this {
    return this.bindItemsByPrefix(table, ['dynamodb:GetItem'], ['apikey#*', 'apikeyhash#*']);
  }

  /**
   * The account API (lambdas/handlers/account-api.ts): accounts, their owner claims, directory and
   * audit ("account#*", "accountowner#*", "accounts"); keys, hash pointers and idempotency claims
   * (a pointer is deleted only when a rotation loses a race); usage and request-log reads; webhook
   * subscriptions read and turned off or on (no KMS: secrets stay sealed and are never shown).
   */
  bindAccountApi(table: ITable): this {
    this.bindItemsByPrefix(
      table,
      ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'],
      ['account#*', 'accountowner#*', 'accounts'],
    );
    this.bindItemsByPrefix(
      table,
      ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      ['apikey#*', 'apikeyhash#*', 'apikeyidem#*'],
    );
    this.bindItemsByPrefix(table, ['dynamodb:DeleteItem'], ['apikeyhash#*']);
    this.bindItemsByPrefix(table, ['dynamodb:GetItem', 'dynamodb:Query'], ['usage#*']);
    this.bindItemsByPrefix(table, ['dynamodb:Query'], ['reqlog#*']);
    return this.bindItemsByPrefix(table, ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'], ['webhooks']);
  }

  /** Actions on the items whose partition key starts with one of `prefixes`, and on nothing else. */
  private bindItemsByPrefix(table: ITable, actions: string[], prefixes: string[]): this {
    this.lambdaFunction.addEnvironment(FUNCTION_ENV.recordsTableName, table.tableName);
    this.lambdaFunction.addToRolePolicy(
      new PolicyStatement({
        actions,
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes } },
      }),
    );
    return this;
  }

  /**
   * Webhook subscriptions (one partition, "webhooks") and the delivery log ("delivery#*") in the
   * records table: read, log and update deliveries, disable a subscription on 410 Gone.
   */
  bindWebhookDeliveries(table: ITable): this {
    return this.bindItemsByPrefix(table, ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'], ['webhooks', 'delivery#*']);
  }

  /** Removal of change events from the outbox ("event#*") once they are fanned out. */
  bindChangeOutboxConsumer(table: ITable): this {
    return this.bindItemsByPrefix(table, ['dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'], ['event#*']);
  }

  /** Lists and takes records off the vector backlog ("vector-backlog#*") once they have their vector; the indexer adds them with its table writes. */
  bindVectorBacklogConsumer(table: ITable): this {
    return this.bindItemsByPrefix(table, ['dynamodb:Query', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'], ['vector-backlog#*']);
  }

  /** The deadline scan's markers ("deadline-sent#*"): one event per subscription, record and deadline. */
  bindDeadlineLedger(table: ITable): this {
    return this.bindItemsByPrefix(table, ['dynamodb:GetItem', 'dynamodb:PutItem'], ['deadline-sent#*']);
  }

  /**
   * Opens sealed webhook secrets (kms:Decrypt on the key, WEBHOOK_SECRET_KEY_ARN) with the principal
   * tag the key's policy asks for; only the sender signs, so only it is bound.
   */
  bindWebhookSecretKey(secretKey: WebhookSecretKey): this {
    this.lambdaFunction.addEnvironment(WEBHOOK_SECRET_KEY_ENV, secretKey.key.keyArn);
    this.lambdaFunction.addToRolePolicy(new PolicyStatement({ actions: ['kms:Decrypt'], resources: [secretKey.key.keyArn] }));
    Tags.of(this.lambdaFunction.role!).add(secretKey.principalTag.key, secretKey.principalTag.value);
    return this;
  }

  /** Sends to the webhook queue and its dead-letter queue (WEBHOOK_QUEUE_URL, WEBHOOK_DEAD_LETTER_QUEUE_URL). */
  bindWebhookQueue(queue: IQueue, deadLetterQueue: IQueue): this {
    this.lambdaFunction.addEnvironment(FUNCTION_ENV.webhookQueueUrl, queue.queueUrl);
    this.lambdaFunction.addEnvironment(FUNCTION_ENV.webhookDeadLetterQueueUrl, deadLetterQueue.queueUrl);
    queue.grantSendMessages(this.lambdaFunction);
    deadLetterQueue.grantSendMessages(this.lambdaFunction);
    return this;
  }

  /** The indexer's table writes, through RECORDS_TABLE_NAME: change events to the outbox ("event#*") and records onto the vector backlog ("vector-backlog#*"). */
  bindIndexerOutputs(table: ITable): this {
    return this.bindItemsByPrefix(table, ['dynamodb:PutItem', 'dynamodb:BatchWriteItem'], ['event#*', 'vector-backlog#*']);
  }

  /** Which embedding model and dimensions the search index is built with (EMBEDDING_MODEL, EMBEDDING_DIMENSIONS, SEMANTIC_FLOOR). */
  bindVectorSpace(settings: EmbeddingSettings): this {
    this.lambdaFunction.addEnvironment(FUNCTION_ENV.embeddingModel, settings.model);
    this.lambdaFunction.addEnvironment(FUNCTION_ENV.embeddingDimensions, String(settings.dimensions));
    if (settings.semanticFloor !== undefined) this.lambdaFunction.addEnvironment(FUNCTION_ENV.semanticFloor, String(settings.semanticFloor));
    return this;
  }

  /** Embeddings from the Bedrock model (InvokeModel on that model only), with the vector space's env vars. */
  bindEmbeddings(settings: EmbeddingSettings): this {
    this.bindVectorSpace(settings);
    const stack = Stack.of(this);
    this.lambdaFunction.addToRolePolicy(
      new PolicyStatement({
        actions: ['bedrock:InvokeModel'],
        resources: [`arn:${stack.partition}:bedrock:${stack.region}::foundation-model/${settings.model}`],
      }),
    );
    return this;
  }

  /** The record-embedding cache items in the records table (read and write, on embedding items only). */
  bindEmbeddingCache(table: ITable): this {
    return this.bindItemsByPrefix(table, ['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem'], ['embedding#*']);
  }

  /**
   * Index writes on the search domain, through SEARCH_DOMAIN_ENDPOINT: PUT (create an index, add
   * mappings) on the service's indices and `_bulk` (upserts and document deletes go in its body).
   * No ESHttpDelete: dropping an old index after a rebuild is the admin CLI's, under operator
   * credentials. An index the function creates gets `indexReplicas` replicas (lib/config.ts indexReplicasOf).
   */
  bindSearchDomainWriter(domain: IDomain, indexReplicas: number, vectors: VectorSearchSettings): this {
    this.bindSearchDomain(domain, vectors);
    this.lambdaFunction.addEnvironment(FUNCTION_ENV.searchIndexReplicas, String(indexReplicas));
    this.lambdaFunction.addToRolePolicy(new PolicyStatement({ actions: ['es:ESHttpPut'], resources: indexPathsOf(domain) }));
    this.lambdaFunction.addToRolePolicy(new PolicyStatement({ actions: ['es:ESHttpPost'], resources: [`${domain.domainArn}/_bulk`] }));
    return this;
  }

  /**
   * Searches on the service's indices only, located through SEARCH_DOMAIN_ENDPOINT (an https://
   * URL): GET/HEAD on their paths and POST on the read APIs under their aliases.
   */
  bindSearchDomain(domain: IDomain, vectors: VectorSearchSettings): this {
    this.lambdaFunction.addEnvironment(FUNCTION_ENV.searchDomainEndpoint, `https://${domain.domainEndpoint}`);
    this.lambdaFunction.addEnvironment(FUNCTION_ENV.searchVectorSettings, JSON.stringify(vectors));
    this.lambdaFunction.addToRolePolicy(indexReadStatement(domain));
    this.lambdaFunction.addToRolePolicy(
      new PolicyStatement({
        actions: ['es:ESHttpPost'],
        resources: Object.values(INDEX_ALIASES).flatMap((alias) => SEARCH_READ_POST_APIS.map((api) => `${domain.domainArn}/${alias}/${api}`)),
      }),
    );
    return this;
  }
}
