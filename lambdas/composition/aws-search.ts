import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { BedrockEmbedder, type BedrockEmbedderOptions, TITAN_DIMENSIONS, TITAN_TEXT_V2, type TitanDimensions } from '../adapters/aws/bedrock-embedder';
import { DynamoChangeOutbox } from '../adapters/aws/dynamo-change-outbox';
import { DynamoEmbeddingCache } from '../adapters/aws/dynamo-embedding-cache';
import { DynamoRecordStore } from '../adapters/aws/dynamo-record-store';
import { DynamoVectorBacklog } from '../adapters/aws/dynamo-vector-backlog';
import { OpenSearchHttpClient } from '../adapters/aws/opensearch-client';
import { OpenSearchIndex } from '../adapters/aws/opensearch-index';
import { vectorSearchSettingsFromJson } from '../adapters/aws/opensearch-vector-search';
import { secretsManagerCursorKey } from '../adapters/aws/secrets-manager-cursor-key';
import { METRIC_NAMES } from '../core/metric-names';
import { measuredEmbedder, measuredSearchIndex } from '../core/search/measured';
import { memoizedEmbedder } from '../core/search/memoized-embedder';
import type { BackfillPorts } from '../core/use-cases/backfill-vectors';
import type { IndexerPorts } from '../core/use-cases/index-record-changes';
import { systemClock } from '../ports/clock';
import type { CursorKeySource } from '../ports/cursor-key';
import type { Embedder, VectorSpace } from '../ports/embedder';
import type { Services } from '../ports/services';
import { createAwsServices, requireEnv } from './aws';
import { awsTelemetry, traced } from './aws-telemetry';
import { FUNCTION_ENV } from './function-env';

/**
 * The composition of the functions that search or index: OpenSearch (SigV4) and Bedrock. Kept
 * apart from aws.ts so that functions which only read records by id bundle neither client.
 */

/** Titan dimensions from EMBEDDING_DIMENSIONS (set with EMBEDDING_MODEL by ServiceFunction.bindVectorSpace). */
function titanDimensionsFromEnv(env: NodeJS.ProcessEnv): TitanDimensions {
  const model = requireEnv(env, 'EMBEDDING_MODEL');
  if (model !== TITAN_TEXT_V2) throw new Error(`EMBEDDING_MODEL ${model} is not supported: the service speaks ${TITAN_TEXT_V2}`);
  const dimensions = Number(requireEnv(env, 'EMBEDDING_DIMENSIONS'));
  if (!TITAN_DIMENSIONS.includes(dimensions as TitanDimensions)) {
    throw new Error(`EMBEDDING_DIMENSIONS must be one of ${TITAN_DIMENSIONS.join(', ')} for ${model}, got "${env.EMBEDDING_DIMENSIONS}"`);
  }
  return dimensions as TitanDimensions;
}

/** The vector space the service is configured for; the search index records the one it was built in and refuses another. */
export function vectorSpaceFromEnv(env: NodeJS.ProcessEnv): VectorSpace {
  return { embedder: `bedrock:${TITAN_TEXT_V2}`, dimensions: titanDimensionsFromEnv(env) };
}

/**
 * A client of the search domain at `endpoint`, with requests signed (SigV4) by the caller's
 * credentials (the SDK's default chain: the function's role in Lambda). The thin node:https
 * client, not @opensearch-project/opensearch, which alone would take an API function's bundle
 * over its budget (test/infra/bundle-budget.test.ts).
 */
export function openSearchClient(endpoint: string, region: string): OpenSearchHttpClient {
  return new OpenSearchHttpClient({ node: endpoint, signing: { region, credentials: defaultProvider() } });
}

/** SEARCH_INDEX_REPLICAS, set on the functions that may create an index (lib: indexReplicasOf); undefined elsewhere. */
function indexReplicasFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const value = env.SEARCH_INDEX_REPLICAS;
  if (value === undefined || value === '') return undefined;
  const replicas = Number(value);
  if (!Number.isInteger(replicas) || replicas < 0) throw new Error(`SEARCH_INDEX_REPLICAS must be a whole number, got "${value}"`);
  return replicas;
}

/**
 * The OpenSearch adapter (with ensureIndices and rebuild), for the functions, the bootstrap and the
 * admin CLI. SEARCH_INDEX_ALIAS_PREFIX, unset in a deployment, gives the aliases another prefix so
 * that several runs can share one engine (the local AWS mode, the runtime SDK check).
 */
export function openSearchIndexFor(env: NodeJS.ProcessEnv, space: VectorSpace = vectorSpaceFromEnv(env)): OpenSearchIndex {
  const endpoint = requireEnv(env, 'SEARCH_DOMAIN_ENDPOINT');
  const aliasPrefix = env.SEARCH_INDEX_ALIAS_PREFIX || undefined;
  return new OpenSearchIndex(openSearchClient(endpoint, requireEnv(env, 'AWS_REGION')), {
    space,
    endpoint,
    replicas: indexReplicasFromEnv(env),
    aliasPrefix,
    vectors: vectorSearchSettingsFromJson(env.SEARCH_VECTOR_SETTINGS),
    onShed: () => awsTelemetry.metrics.record(METRIC_NAMES.vectorSearchesShed, 'Count', 1),
  });
}

/** The SDK's own attempts per adapter attempt (the first and one retry). */
const SDK_ATTEMPTS = 2;

/**
 * How long one call to Titan may take, and to connect (the SDK sets no limit, so a call that hangs
 * would wait for the function's own timeout and no TimeoutError would ever be retried). Titan
 * answers one text in well under a second.
 */
export interface BedrockTimeouts {
  requestMs: number;
  connectionMs: number;
}
const BATCH_TIMEOUTS: BedrockTimeouts = { requestMs: 10_000, connectionMs: 3_000 };

/**
 * Titan over Bedrock. The SDK retries once itself (maxAttempts 2: a dropped connection is tried
 * again after the SDK's own short backoff), and the adapter's backoff with full jitter paces
 * everything after that; `pacing` differs between a request waiting for one query vector and the
 * indexer embedding batches. Attempts multiply: at most 2 × (retries + 1) calls per text.
 */
export function bedrockEmbedder(
  env: NodeJS.ProcessEnv,
  pacing: Pick<BedrockEmbedderOptions, 'retries' | 'maxDelayMs' | 'maxConcurrency'> = {},
  timeouts: BedrockTimeouts = BATCH_TIMEOUTS,
): Embedder {
  const client = new BedrockRuntimeClient({
    maxAttempts: SDK_ATTEMPTS,
    requestHandler: { requestTimeout: timeouts.requestMs, connectionTimeout: timeouts.connectionMs },
  });
  return new BedrockEmbedder(traced(client), { dimensions: titanDimensionsFromEnv(env), ...pacing });
}

/**
 * The model (Titan), timed and counted (EmbeddingLatency, EmbeddingFailures), with each failed
 * call's cause in the log: the indexer carries on without vectors and hybrid search without its
 * semantic half, so the metric says that the model failed and this line says why. Never the texts.
 */
function observedEmbedder(embedder: Embedder): Embedder {
  const measured = measuredEmbedder(embedder, awsTelemetry.metrics);
  return {
    space: measured.space,
    embed: (texts, purpose) =>
      measured.embed(texts, purpose).catch((error: unknown) => {
        awsTelemetry.logger.warn('the embedding model could not embed', { texts: texts.length, purpose: purpose ?? 'document', error: error as Error });
        throw error;
      }),
  };
}

/** A caller waits for its query vector: two quick retries of short calls, then 503 rather than an API Gateway timeout. */
const QUERY_PACING = { retries: 2, maxDelayMs: 1_000 } as const;
const QUERY_TIMEOUTS: BedrockTimeouts = { requestMs: 2_000, connectionMs: 1_000 };
/** Query vectors a warm function remembers (a few hundred KB at 1,024 dimensions). */
const REMEMBERED_QUERIES = 256;

/**
 * Where vectors come from: Bedrock (Titan) in AWS. The local AWS mode (`npm start -- --engines`)
 * passes the local sentence model instead, as Bedrock cannot be reached from this machine; every
 * other adapter stays the one the functions build.
 */
export interface EmbeddingSource {
  /** The vector space the search indices are built in. */
  space(): VectorSpace;
  /** For a request waiting on its query vector. */
  queryEmbedder(): Embedder;
  /** For the indexer and the backfill, which embed records in batches. */
  recordEmbedder(): Embedder;
}

/** Titan over Bedrock, in the space EMBEDDING_MODEL and EMBEDDING_DIMENSIONS name. */
export function bedrockEmbeddings(env: NodeJS.ProcessEnv): EmbeddingSource {
  return {
    space: () => vectorSpaceFromEnv(env),
    queryEmbedder: () => bedrockEmbedder(env, QUERY_PACING, QUERY_TIMEOUTS),
    recordEmbedder: () => bedrockEmbedder(env),
  };
}

/**
 * The list cursors' key: the Secrets Manager secret CURSOR_KEY_SECRET_ARN names
 * (ServiceFunction.bindCursorKey), looked up when a key is first needed, so the functions that
 * share these services and never page (semantic search, matching) need neither.
 */
export function secretCursorKeys(env: NodeJS.ProcessEnv): CursorKeySource {
  let source: CursorKeySource | undefined;
  return {
    key: async () => {
      source ??= secretsManagerCursorKey(traced(new SecretsManagerClient({})), requireEnv(env, FUNCTION_ENV.cursorKeySecretArn));
      return source.key();
    },
  };
}

/**
 * For functions that list and search. The local AWS mode passes its own cursor key (the state
 * folder's), as it has no Secrets Manager.
 */
export function createAwsSearchServices(
  env: NodeJS.ProcessEnv = process.env,
  embeddings: EmbeddingSource = bedrockEmbeddings(env),
  cursorKeys: (env: NodeJS.ProcessEnv) => CursorKeySource = secretCursorKeys,
): Services {
  return createAwsServices(env, {
    cursorKeys,
    index: (env) => measuredSearchIndex(openSearchIndexFor(env, embeddings.space()), awsTelemetry.metrics),
    // Timed inside the memo: EmbeddingLatency is the model's, not a remembered vector's.
    embedder: () => memoizedEmbedder(observedEmbedder(embeddings.queryEmbedder()), REMEMBERED_QUERIES),
  });
}

let cachedServices: Services | undefined;

export function awsSearchServices(): Services {
  cachedServices ??= createAwsSearchServices();
  return cachedServices;
}

/**
 * The indexer's ports: the index it writes, the outbox, the embedding cache and the vector backlog
 * in the records table, and Bedrock.
 */
export function createAwsIndexerPorts(env: NodeJS.ProcessEnv = process.env, embeddings: EmbeddingSource = bedrockEmbeddings(env)): IndexerPorts {
  const dynamo = traced(new DynamoDBClient({}));
  const tableName = requireEnv(env, 'RECORDS_TABLE_NAME');
  return {
    index: openSearchIndexFor(env, embeddings.space()),
    outbox: new DynamoChangeOutbox(dynamo, tableName),
    clock: systemClock,
    embeddings: { embedder: observedEmbedder(embeddings.recordEmbedder()), cache: new DynamoEmbeddingCache(dynamo, tableName) },
    vectorBacklog: new DynamoVectorBacklog(dynamo, tableName),
    metrics: awsTelemetry.metrics,
  };
}

/** The vector backfill's ports: the records it reads again, the index, Bedrock and its cache, the backlog. */
export function createAwsBackfillPorts(env: NodeJS.ProcessEnv = process.env, embeddings: EmbeddingSource = bedrockEmbeddings(env)): BackfillPorts {
  const dynamo = traced(new DynamoDBClient({}));
  const tableName = requireEnv(env, 'RECORDS_TABLE_NAME');
  return {
    store: new DynamoRecordStore(dynamo, tableName),
    index: openSearchIndexFor(env, embeddings.space()),
    embeddings: { embedder: observedEmbedder(embeddings.recordEmbedder()), cache: new DynamoEmbeddingCache(dynamo, tableName) },
    backlog: new DynamoVectorBacklog(dynamo, tableName),
    metrics: awsTelemetry.metrics,
  };
}

let cachedBackfillPorts: BackfillPorts | undefined;

export function awsBackfillPorts(): BackfillPorts {
  cachedBackfillPorts ??= createAwsBackfillPorts();
  return cachedBackfillPorts;
}

let cachedIndexerPorts: IndexerPorts | undefined;

export function awsIndexerPorts(): IndexerPorts {
  cachedIndexerPorts ??= createAwsIndexerPorts();
  return cachedIndexerPorts;
}
