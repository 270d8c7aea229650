import { resolve } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord } from 'aws-lambda';
import { REBUILD_REMEDY } from '../../lambdas/adapters/aws/opensearch-indices';
import { CHANGE_EVENT_SK, RECORD_SK } from '../../lambdas/adapters/aws/records-table';
import { localCursorKeys } from '../../lambdas/adapters/embedded/file-cursor-key';
import { LocalSecretSealer } from '../../lambdas/adapters/embedded/local-secret-sealer';
import { describeSpace } from '../../lambdas/core/search/vector-space';
import { allowsAnyOrigin, type CorsOrigins } from '../../lambdas/http/cors';
import { claimDataDir } from '../data-dir-lock';
import type { EngineName } from '../engines/engine-artifacts';
import { ENGINE_ENV, ENGINE_NAMES, healthy, readState, startEngine, stopEngine } from '../engines/engine-processes';
import type { ServerLimits } from '../http-connections';
import { loadLocalEmbedder } from '../local-embedder';
import { makeStatePrivate } from '../private-state';
import { applyLambdaEnvironment, lambdaEnvironment } from './lambda-environment';
import { ensureWebhookQueues, LOCAL_AWS_REGION, LOCAL_AWS_TABLE_NAME, startLocalTable } from './local-aws-resources';
import { startSqsEventSource } from './sqs-event-source';
import { StreamEventSource } from './table-stream';

/**
 * `npm start -- --engines`: the API on the AWS adapters, on one machine. OpenSearch and ElasticMQ
 * (npm run engines; reused when already running), dynalite as the records table behind a proxy
 * that gives it a stream, and the functions built by the Lambdas' composition roots: the API
 * routes behind the authorizer, the indexer and the webhook fan-out fed by the stream as Lambda's
 * event source mappings feed them, the webhook sender fed from the SQS queue, and the deadline
 * scan and the vector backfill on timers as EventBridge runs them.
 */

export interface EnginesModeOptions {
  dataDir: string;
  /** Seed the synthetic catalogue into a table not yet seeded (with this many grants; catalogueWithGrants), or not. */
  seed: false | { grants?: number };
  /** Public source files to import into a new table instead. */
  sources: readonly string[];
  port: number;
  host: string;
  /** The origins browser apps may call from (`--cors-origins`), given to the functions as the CDK gives them. */
  corsOrigins: CorsOrigins;
  /** The API server's connection limit and timeouts (`--max-connections`); the defaults otherwise. */
  limits?: Partial<ServerLimits>;
  say: (message: string) => void;
}

/** As lib/ configures the event source mappings (record-indexer.ts, webhook-delivery.ts). */
const STREAM_MAPPING = { batchSize: 100, maxBatchingWindowMs: 1_000, retryAttempts: 10, bisectBatchOnError: true } as const;
const SENDER_BATCH_SIZE = 10;
const DRAIN_ON_STOP_MS = 15_000;

/** Each engine: the one already running (left running at the end), or one started now (stopped at the end). */
async function engines(say: (message: string) => void, started: EngineName[]): Promise<Record<EngineName, string>> {
  const urls = {} as Record<EngineName, string>;
  for (const name of ENGINE_NAMES) {
    const running = readState(name);
    if (running && (await healthy(running))) {
      say(`${name}: reusing the one at ${running.url} (npm run engines; left running on exit)`);
      urls[name] = running.url;
      continue;
    }
    say(`${name}: starting (npm run engines -- start ${name}; fetched through mvn on first use)…`);
    const startedAt = Date.now();
    started.push(name);
    const state = await startEngine(name);
    say(`${name}: ${state.url} (ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s; ${ENGINE_ENV[name]})`);
    urls[name] = state.url;
  }
  return urls;
}

export async function serveOnEngines(options: EnginesModeOptions): Promise<void> {
  const { say } = options;
  const cleanups: (() => Promise<void> | void)[] = [];
  const cleanUp = async () => {
    for (const step of cleanups.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        say(`while stopping: ${(error as Error).message}`);
      }
    }
  };
  // From the first step: an interrupted start stops what it had started too.
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    say('stopping…');
    await cleanUp();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  try {
    makeStatePrivate(options.dataDir);
    cleanups.push(claimDataDir(options.dataDir));
    const started: EngineName[] = [];
    cleanups.push(async () => {
      for (const name of started) say(`${name}: ${(await stopEngine(name)) ? 'stopped' : 'was not running'}`);
    });
    const urls = await engines(say, started);
    const embedder = await loadLocalEmbedder({ onProgress: say });
    say(`embedder: ${describeSpace(embedder.space)}, in process, in place of Bedrock (Titan), which cannot be reached from here`);
    const table = await startLocalTable(options.dataDir);
    cleanups.push(() => table.close());
    const queues = await ensureWebhookQueues(urls.elasticmq);
    const env = lambdaEnvironment({
      region: LOCAL_AWS_REGION,
      tableName: LOCAL_AWS_TABLE_NAME,
      dynamoEndpoint: table.endpoint,
      credentials: table.credentials,
      sqsEndpoint: urls.elasticmq,
      queueUrl: queues.queueUrl,
      deadLetterQueueUrl: queues.deadLetterQueueUrl,
      searchEndpoint: urls.opensearch,
      corsOrigins: options.corsOrigins,
    });
    // As Lambda does: the environment first, then the functions' code (which reads it as it loads).
    applyLambdaEnvironment(env);
    // Modules that build the logger or read the environment as they load come after it.
    const { buildLocalAwsFunctions } = await import('./lambda-functions');
    const { createApiServer, listen } = await import('../http-server');
    const { fillIndicesFromTable, seedCatalogue } = await import('./local-aws-catalogue');
    const { startSchedules } = await import('./schedules');
    const functions = buildLocalAwsFunctions(process.env, embedder, LOCAL_AWS_REGION, localCursorKeys(options.dataDir), new LocalSecretSealer(options.dataDir));

    // The search indices' deploy-time bootstrap (a CloudFormation custom resource in AWS).
    const bootstrap = (await functions
      .bootstrap({ RequestType: 'Create', ResourceProperties: { Embedder: embedder.space.embedder, Dimensions: String(embedder.space.dimensions) } })
      .catch((error: Error) => {
        // The running engine holds indices another embedder built (GCF_EMBEDDER changed): here they are derived state.
        if (!error.message.includes(REBUILD_REMEDY)) throw error;
        throw new Error(`${error.message} Locally: \`npm run engines -- stop opensearch\`, then start again on a fresh engine.`);
      })) as { Data?: Record<string, string> };
    say(
      `search indices: ${Object.entries(bootstrap.Data ?? {})
        .map(([kind, check]) => `${kind} ${check}`)
        .join('; ')}`,
    );
    const filled = await fillIndicesFromTable(functions, {
      tableCreated: table.created,
      indicesCreated: Object.values(bootstrap.Data ?? {}).every((check) => check.startsWith('created')),
    });
    if (filled) say(filled);

    const mapping = (name: string, handler: typeof functions.indexer, filter: (r: DynamoDBRecord) => boolean) =>
      new StreamEventSource(table.stream, handler, functions.context(name, 60_000), {
        name,
        ...STREAM_MAPPING,
        filter,
        onError: (error, records) =>
          say(`${name}: a batch of ${records.length} failed (${(error as Error).message}); retrying as the event source mapping would`),
        onGivenUp: (records, error) =>
          say(
            `${name}: gave up ${records.length} stream record(s) after ${STREAM_MAPPING.retryAttempts} retries (${(error as Error).message}); in AWS they go to the failure queue: npm run admin -- reindex catches the index up`,
          ),
      });
    // The filters lib/ gives the mappings: record items to the indexer; new and rewritten outbox items to the fan-out.
    const sortKeyOf = (r: DynamoDBRecord) => (r.dynamodb?.Keys as Record<string, { S?: string }> | undefined)?.sk?.S;
    const indexer = mapping('indexer', functions.indexer, (r) => sortKeyOf(r) === RECORD_SK);
    const fanOut = mapping(
      'webhook-fan-out',
      functions.fanOut,
      (r) => sortKeyOf(r) === CHANGE_EVENT_SK && (r.eventName === 'INSERT' || r.eventName === 'MODIFY'),
    );
    indexer.start();
    fanOut.start();
    cleanups.push(async () => {
      await Promise.race([table.stream.drained(), new Promise((resolve) => setTimeout(resolve, DRAIN_ON_STOP_MS))]);
      await Promise.all([indexer.stop(), fanOut.stop()]);
    });
    const sqs = new SQSClient({});
    const sender = startSqsEventSource(
      { sqs, queueUrl: queues.queueUrl, queueArn: queues.queueArn, region: LOCAL_AWS_REGION },
      functions.sender,
      functions.context('webhook-sender', 60_000),
      {
        batchSize: SENDER_BATCH_SIZE,
        onError: (error) => say(`webhook-sender: polling the queue failed (${(error as Error).message}); polling again`),
      },
    );
    cleanups.push(async () => {
      await sender.stop();
      sqs.destroy();
    });

    const seeded = await seedCatalogue(functions, {
      tableName: LOCAL_AWS_TABLE_NAME,
      seed: options.seed,
      sources: options.sources,
      dataDir: options.dataDir,
      say,
    });
    if (seeded) {
      say('waiting for the stream to index it…');
      await table.stream.drained();
      await functions.indices.refresh();
      say('indexed');
    }
    const { ensureLocalKeys } = await import('../local-keys');
    const keys = await ensureLocalKeys(functions.services, options.dataDir);
    if (keys.created) say(`created one API key per tier in ${keys.file} (only their hashes are in the table)`);

    const timers = startSchedules(functions, say);
    cleanups.push(() => timers.stop());

    const server = createApiServer(functions.routes, functions.authorize, { corsOrigins: options.corsOrigins, limits: options.limits });
    const baseUrl = await listen(server, options.port, options.host).catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'EADDRINUSE' ? new Error(`port ${options.port} is in use: set PORT to another one`) : error;
    });
    cleanups.push(
      () =>
        new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        }),
    );
    say(`state: ${options.dataDir}`);
    say(`CORS: ${allowsAnyOrigin(options.corsOrigins) ? 'any origin' : options.corsOrigins.join(', ')} (--cors-origins)`);
    say(`table ${LOCAL_AWS_TABLE_NAME} at ${table.endpoint} (dynalite with an emulated stream); webhook queue ${queues.queueUrl}`);
    // The credential is named by its file, never printed: output may go to a log others can read.
    const fromFile = (field: string) => `$(node -p 'require("${resolve(table.credentialsFile)}").${field}')`;
    say(
      `admin commands against it: AWS_ENDPOINT_URL_DYNAMODB=${table.endpoint} AWS_ENDPOINT_URL_SQS=${urls.elasticmq} AWS_REGION=${LOCAL_AWS_REGION} AWS_ACCESS_KEY_ID=${fromFile('accessKeyId')} AWS_SECRET_ACCESS_KEY=${fromFile('secretAccessKey')} npm run admin -- <command> --target aws --table-name ${LOCAL_AWS_TABLE_NAME}`,
    );
    say(
      `API ready at ${baseUrl}  (try: curl -H "Authorization: Bearer $(node -p 'require("${resolve(keys.file!)}").developer')" "${baseUrl}/grants-api?limit=2")`,
    );
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
