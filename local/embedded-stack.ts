import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoAccountStore } from '../lambdas/adapters/aws/dynamo-account-store';
import { DynamoChangeOutbox } from '../lambdas/adapters/aws/dynamo-change-outbox';
import { DynamoDeadlineLedger } from '../lambdas/adapters/aws/dynamo-deadline-ledger';
import { DynamoDeliveryLog } from '../lambdas/adapters/aws/dynamo-delivery-log';
import { DynamoKeyStore } from '../lambdas/adapters/aws/dynamo-key-store';
import { DynamoRecordStore } from '../lambdas/adapters/aws/dynamo-record-store';
import { DynamoRequestLog } from '../lambdas/adapters/aws/dynamo-request-log';
import { DynamoUsageMeter } from '../lambdas/adapters/aws/dynamo-usage-meter';
import { DynamoWebhookStore } from '../lambdas/adapters/aws/dynamo-webhook-store';
import { CachedKeyStore } from '../lambdas/adapters/embedded/cached-key-store';
import { localCursorKeys } from '../lambdas/adapters/embedded/file-cursor-key';
import { IndexingRecordStore } from '../lambdas/adapters/embedded/indexing-record-store';
import { LocalSecretSealer } from '../lambdas/adapters/embedded/local-secret-sealer';
import { SqliteEmbeddingCache } from '../lambdas/adapters/embedded/sqlite-embedding-cache';
import type { SqliteSearchIndex } from '../lambdas/adapters/embedded/sqlite-search-index';
import { SwappableSearchIndex } from '../lambdas/adapters/embedded/swappable-search-index';
import { DynamoWriteJournal } from '../lambdas/adapters/embedded/write-journal';
import { memoizedEmbedder } from '../lambdas/core/search/memoized-embedder';
import { semanticFloorOf } from '../lambdas/core/search/relevance';
import { reindexRecords } from '../lambdas/core/use-cases/reindex-records';
import type { AccountStore } from '../lambdas/ports/account-store';
import type { ChangeOutbox } from '../lambdas/ports/change-outbox';
import { type Clock, systemClock, utcDate } from '../lambdas/ports/clock';
import type { Embedder } from '../lambdas/ports/embedder';
import type { Services } from '../lambdas/ports/services';
import type { WebhookStore } from '../lambdas/ports/webhook-store';
import { claimDataDir } from './data-dir-lock';
import { progressReportingEmbedder } from './embedding-progress';
import { InProcessDynalite } from './in-process-dynalite';
import { type IndexRebuildResult, LocalIndexRebuilder, type RebuildProgress } from './index-rebuild';
import { loadLocalEmbedder } from './local-embedder';
import { type OpenedIndex, openLocalIndex, removeLocalIndex, writeIndexPointer } from './local-index-files';
import { ensureTable } from './local-table';
import { makeStatePrivate } from './private-state';
import { type CatalogueSpec, DEFAULT_CATALOGUE, generateContracts, generateFunders, generateGrants } from './synthetic-catalogue';
import { type GuardedEndpoint, listenGuarded } from './table-credentials';
import { type CleanStop, LocalWebhookDispatcher, type LocalWebhookOptions } from './webhook-dispatcher';

/**
 * The embedded stack: the real DynamoDB adapter against dynalite, the SQLite FTS5 index, and the
 * in-process change feed between them. `npm start`, the integration tests and the benchmark all
 * run the Lambda handlers on it.
 */

export const LOCAL_TABLE_NAME = 'gcf-records';
export { DEFAULT_DATA_DIR, importedDataDirFor } from './data-dirs';
export { IndexRebuildInProgress, type IndexRebuildResult, type RebuildProgress } from './index-rebuild';
export { removeLocalIndex } from './local-index-files';

/** Record vectors by text hash: kept apart from the index, so rebuilding the index re-embeds nothing. */
const EMBEDDINGS_FILE = 'embeddings.sqlite';
/** Query vectors the stack remembers (384 floats each). */
const REMEMBERED_QUERIES = 256;

/** As long as API Gateway caches an authorizer's answer in AWS. */
const KEY_CACHE_TTL_MS = 60_000;
const USAGE_FLUSH_MS = 1_000;
const CATALOGUE_MARKER = { pk: 'meta#catalogue', sk: 'seed' };
/** Written by a server's clean stop, taken (read and deleted) by the next open of the folder (LocalWebhookDispatcher.start). */
const CLEAN_STOP_MARKER = { pk: 'meta#webhooks', sk: 'clean-stop' };

async function takeCleanStop(doc: DynamoDBDocumentClient): Promise<CleanStop | null> {
  const item = (await doc.send(new DeleteCommand({ TableName: LOCAL_TABLE_NAME, Key: CLEAN_STOP_MARKER, ReturnValues: 'ALL_OLD' }))).Attributes;
  return item ? { deliveryIds: (item.delivery_ids as string[] | undefined) ?? [] } : null;
}

export interface EmbeddedStackOptions {
  /** Folder for state that survives restarts; in memory when omitted. */
  dataDir?: string;
  clock?: Clock;
  /** Seed the synthetic catalogue into an empty store (default true); partial specs override the defaults. */
  seed?: boolean | Partial<Omit<CatalogueSpec, 'today'>>;
  /** The embedder of records and queries; the sentence-embedding model (loadLocalEmbedder) unless given. */
  embedder?: Embedder;
  /**
   * Where record vectors are cached by text: `<dataDir>/embeddings.sqlite` with a data folder;
   * otherwise GCF_EMBEDDING_CACHE (the test run shares one file, so a catalogue is embedded once
   * per machine) or memory.
   */
  embeddingCacheFile?: string;
  /** Overrides the embedder's default minimum cosine for semantic matches. */
  semanticFloor?: number;
  onProgress?: (message: string) => void;
  /** Deliver webhooks from this process (the local server does; most tests do not). */
  webhooks?: LocalWebhookOptions;
  /** Drop the data folder's search index before opening it, so it is rebuilt from the record store (`admin local reindex`). */
  freshIndex?: boolean;
  /**
   * Also serve the table on a loopback port for other processes (tests of `--target aws`), to
   * requests signed with a random credential of this start only (`tableEndpoint`). Off by default:
   * the stack's own clients call dynalite in process, with no port at all.
   */
  tableEndpoint?: boolean;
}

export interface ImportedCatalogue {
  /** Absolute paths of the files and folders imported. */
  sources: string[];
  importedAt: string;
}

export interface EmbeddedStack {
  /** Its store hands every write on to the index (the local change feed). */
  services: Services;
  /** Change events the local indexer produced, waiting for the webhooks sender. */
  outbox: ChangeOutbox;
  /** Webhook subscriptions, in the same table as in AWS. */
  webhooks: WebhookStore;
  /** Accounts and their audit logs, in the same table as in AWS. */
  accounts: AccountStore;
  /** Every webhook delivery and its attempts. */
  deliveries: DynamoDeliveryLog;
  /** Which deadline reminders went out. */
  deadlineLedger: DynamoDeadlineLedger;
  /** Fans change events out to subscriptions and delivers them; null unless the `webhooks` option was given. */
  webhookDispatcher: LocalWebhookDispatcher | null;
  /** A new DynamoDB client of the stack's table, in process (no port); the caller destroys it. */
  dynamoClient(): DynamoDBClient;
  /** The table over loopback with its credential, when the `tableEndpoint` option asked for it; else null. */
  tableEndpoint: GuardedEndpoint | null;
  /** The spec the synthetic catalogue was seeded with, or null when the store was not seeded. */
  seededCatalogue: CatalogueSpec | null;
  /** What was imported into this state (`npm start -- --data`), or null. */
  importedCatalogue: ImportedCatalogue | null;
  /** Records that the catalogue now holds these imported sources (so the next start serves it as is). */
  markImported(sources: readonly string[]): Promise<void>;
  /**
   * Rebuilds the search index from the record store while requests go on being answered, in full,
   * from the old one (local/index-rebuild.ts); every port holding the index moves to the new one
   * at once, and the state folder's pointer makes it the one the next start opens. A second call
   * while one runs is refused with IndexRebuildInProgress.
   */
  rebuildIndex(onProgress?: RebuildProgress): Promise<IndexRebuildResult>;
  close(): Promise<void>;
}

export async function startEmbeddedStack(options: EmbeddedStackOptions = {}): Promise<EmbeddedStack> {
  const clock = options.clock ?? systemClock;
  const progress = options.onProgress ?? (() => {});
  let releaseDataDir = () => {};
  if (options.dataDir) {
    makeStatePrivate(options.dataDir);
    releaseDataDir = claimDataDir(options.dataDir);
    // Under the folder's lock: never the index of a process that is using it.
    if (options.freshIndex) removeLocalIndex(options.dataDir);
  }

  let embeddings: { embedder: Embedder; cache: SqliteEmbeddingCache } | undefined;
  let opened: OpenedIndex;
  let semanticFloor: number;
  try {
    const model = options.embedder ?? (await loadLocalEmbedder({ onProgress: progress }));
    const embedder = options.onProgress ? progressReportingEmbedder(model, progress) : model;
    semanticFloor = semanticFloorOf(embedder.space, options.semanticFloor);
    const cacheFile =
      options.embeddingCacheFile ?? (options.dataDir ? join(options.dataDir, EMBEDDINGS_FILE) : (process.env.GCF_EMBEDDING_CACHE ?? ':memory:'));
    if (cacheFile !== ':memory:') mkdirSync(dirname(cacheFile), { recursive: true });
    embeddings = { embedder, cache: new SqliteEmbeddingCache(cacheFile) };
    opened = openLocalIndex(options.dataDir, embedder.space, progress);
  } catch (error) {
    embeddings?.cache.close();
    releaseDataDir();
    throw error;
  }
  const { embedder } = embeddings;
  // Every holder of the index holds this one object, so a live rebuild moves them all at once.
  const index = new SwappableSearchIndex<SqliteSearchIndex>(opened.index);

  // The pinned AWS SDK runs on this machine's Node 20; its notice that 2027 releases need Node 22
  // (what Lambda runs) is for whoever upgrades the SDK, not for every local start or test.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const dynamo = new InProcessDynalite({ path: options.dataDir ? join(options.dataDir, 'dynamodb') : undefined });
  const dynamoClient = () => dynamo.client({ region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const client = dynamoClient();
  const tableEndpoint = options.tableEndpoint ? await listenGuarded(dynamo.listener) : null;
  const { funderIndex } = await ensureTable(client, LOCAL_TABLE_NAME);

  const dynamoStore = new DynamoRecordStore(client, LOCAL_TABLE_NAME, { funderIndex });
  const storedOutbox = new DynamoChangeOutbox(client, LOCAL_TABLE_NAME);
  const webhooks = new DynamoWebhookStore(client, LOCAL_TABLE_NAME, new LocalSecretSealer(options.dataDir));
  const deliveries = new DynamoDeliveryLog(client, LOCAL_TABLE_NAME);
  let webhookDispatcher: LocalWebhookDispatcher | null = null;
  // The local stand-in for the stream's fan-out: events go to the dispatcher as they are appended.
  // A failed fan-out leaves them in the outbox (logged) for the next start; the write stands.
  const outbox: ChangeOutbox = {
    append: async (events) => {
      await storedOutbox.append(events);
      await webhookDispatcher?.onEvents(events).catch(() => undefined);
    },
    scan: () => storedOutbox.scan(),
    remove: (ids) => storedOutbox.remove(ids),
  };
  // Every request reads a key and counts usage: each dynalite call costs a few milliseconds of
  // this process's CPU, so keys are cached (and forgotten on any change) and figures batched.
  const meter = new DynamoUsageMeter(client, LOCAL_TABLE_NAME, { flushIntervalMs: USAGE_FLUSH_MS });
  const keys = new CachedKeyStore(new DynamoKeyStore(client, LOCAL_TABLE_NAME), KEY_CACHE_TTL_MS);
  // Each write is journaled until indexed, so one a killed process left half done is finished below.
  const store = new IndexingRecordStore(dynamoStore, { index, outbox, clock, embeddings }, new DynamoWriteJournal(client, LOCAL_TABLE_NAME));
  const doc = DynamoDBDocumentClient.from(client);

  const marker = (await doc.send(new GetCommand({ TableName: LOCAL_TABLE_NAME, Key: CATALOGUE_MARKER }))).Item;
  // Taken by every open, so only the start right after a clean stop (nothing else in between) trusts it.
  let cleanStop = await takeCleanStop(doc);
  let seededCatalogue: CatalogueSpec | null = (marker?.spec as CatalogueSpec | undefined) ?? null;
  let importedCatalogue: ImportedCatalogue | null = marker?.imported_sources
    ? { sources: marker.imported_sources as string[], importedAt: String(marker.imported_at) }
    : null;

  if (opened.needsFill) {
    // The index is derived state: rebuild it from the system of record (or finish the catch-up
    // of a live rebuild the last process died in).
    await reindexRecords(dynamoStore, { index, embeddings });
    if (opened.catchUpPending) writeIndexPointer(options.dataDir!, { file: opened.file, caughtUp: true });
    if (marker)
      progress(
        opened.catchUpPending
          ? 'caught up the search index a rebuild left unfinished (the server stopped during it)'
          : 'rebuilt the search index from the record store',
      );
  }
  const rebuilder = new LocalIndexRebuilder({ dataDir: options.dataDir, space: embedder.space, index, store: dynamoStore, embeddings }, opened.file);
  // Writes a stopped process left between the store and the index: indexed and announced now.
  const replayed = await store.replayJournal();
  if (replayed > 0) progress(`finished ${replayed} write${replayed === 1 ? '' : 's'} the last process left unindexed (it stopped mid-write)`);
  // Writes replayed or seeded before the dispatcher starts leave their events in the outbox.
  if (replayed > 0) cleanStop = null;

  if (!marker && options.seed !== false) {
    const spec: CatalogueSpec = { ...DEFAULT_CATALOGUE, ...(typeof options.seed === 'object' ? options.seed : {}), today: utcDate(clock) };
    progress(`seeding a synthetic catalogue (${spec.grants} grants, ${spec.contracts} contracts, ${spec.funders} funders)…`);
    const funders = generateFunders(spec);
    await store.put('funder', funders);
    for (const batch of generateGrants(spec, funders)) await store.put('grant', batch);
    for (const batch of generateContracts(spec, funders)) await store.put('contract', batch);
    await doc.send(new PutCommand({ TableName: LOCAL_TABLE_NAME, Item: { ...CATALOGUE_MARKER, spec, seeded_at: clock.now().toISOString() } }));
    seededCatalogue = spec;
    cleanStop = null;
  }

  const deadlineLedger = new DynamoDeadlineLedger(client, LOCAL_TABLE_NAME);
  // Query vectors are remembered, as the AWS functions do: paging through one search, or changing
  // its filters, asks for the same vector again, and each embedding is costly.
  const queryEmbedder = memoizedEmbedder(embedder, REMEMBERED_QUERIES);
  if (options.webhooks) {
    // Started after seeding: a seeded catalogue's events have no subscriber to go to.
    const savedSearch = { index, embedder: queryEmbedder, semanticFloor };
    webhookDispatcher = new LocalWebhookDispatcher(
      { outbox: storedOutbox, webhooks, log: deliveries, clock, index, ledger: deadlineLedger, savedSearch },
      options.webhooks,
    );
    await webhookDispatcher.start(cleanStop);
  }

  // A subscription changed through the stack (an admin command in the server) reaches the
  // dispatcher's deliveries at once, not after its subscription cache expires.
  const changingWebhooks: WebhookStore = {
    create: async (subscription) => {
      await webhooks.create(subscription);
      webhookDispatcher?.forgetSubscriptions();
    },
    get: (subscriptionId) => webhooks.get(subscriptionId),
    list: (keyId) => webhooks.list(keyId),
    update: async (subscriptionId, changes) => {
      const updated = await webhooks.update(subscriptionId, changes);
      webhookDispatcher?.forgetSubscriptions();
      return updated;
    },
  };

  return {
    services: {
      store,
      index,
      embedder: queryEmbedder,
      semanticFloor,
      clock,
      meter,
      requestLog: new DynamoRequestLog(client, LOCAL_TABLE_NAME),
      keys,
      cursorKeys: localCursorKeys(options.dataDir),
    },
    outbox,
    webhooks: changingWebhooks,
    accounts: new DynamoAccountStore(client, LOCAL_TABLE_NAME),
    deliveries,
    deadlineLedger,
    webhookDispatcher,
    dynamoClient,
    tableEndpoint,
    seededCatalogue,
    get importedCatalogue() {
      return importedCatalogue;
    },
    async markImported(sources) {
      importedCatalogue = { sources: [...sources], importedAt: clock.now().toISOString() };
      // An update, not a put: a synthetic catalogue's spec on the same marker stays.
      await doc.send(
        new UpdateCommand({
          TableName: LOCAL_TABLE_NAME,
          Key: CATALOGUE_MARKER,
          UpdateExpression: 'SET imported_sources = :sources, imported_at = :at',
          ExpressionAttributeValues: { ':sources': importedCatalogue.sources, ':at': importedCatalogue.importedAt },
        }),
      );
    },
    rebuildIndex: (onProgress) => rebuilder.rebuild(onProgress),
    async close() {
      // A rebuild still filling its file stops and deletes it; one catching up finishes.
      await rebuilder.close();
      // No new attempt starts; the ones under way finish (each is cut off at its timeout).
      const handOver = webhookDispatcher?.cleanStop() ?? null;
      webhookDispatcher?.close();
      await webhookDispatcher?.settle();
      if (handOver) await doc.send(new PutCommand({ TableName: LOCAL_TABLE_NAME, Item: { ...CLEAN_STOP_MARKER, delivery_ids: handOver.deliveryIds } }));
      await meter.close();
      index.current.close();
      embeddings.cache.close();
      client.destroy();
      await tableEndpoint?.close();
      await dynamo.close();
      releaseDataDir();
    },
  };
}
