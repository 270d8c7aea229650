import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ingestFiles } from '../../lambdas/adapters/source-files/ingest-files';
import { RESOURCE_KINDS } from '../../lambdas/core/records';
import { reindexRecords } from '../../lambdas/core/use-cases/reindex-records';
import { type Clock, utcDate } from '../../lambdas/ports/clock';
import type { RecordStore } from '../../lambdas/ports/record-store';
import { ingestReporter, stderrTerminal } from '../ingest-report';
import { type CatalogueSpec, catalogueWithGrants, generateContracts, generateFunders, generateGrants } from '../synthetic-catalogue';
import type { LocalAwsFunctions } from './lambda-functions';

/**
 * The catalogue of the local AWS mode. A new table is seeded (or loaded from --data files) by
 * writing through the functions' record store, so the stream carries every record to the indexer
 * as in AWS. The search indices are derived state on an engine that may have been started afresh
 * (npm run engines keeps no data between starts) or may hold another state folder's records, so
 * unless both the table and the indices are new they are rebuilt from the table first (the admin
 * CLI's `reindex --rebuild`: new indices filled, then the aliases moved).
 */

export async function fillIndicesFromTable(functions: LocalAwsFunctions, state: { tableCreated: boolean; indicesCreated: boolean }): Promise<string | null> {
  if (state.tableCreated && state.indicesCreated) return null;
  const { store } = functions.services;
  const counts: string[] = [];
  for (const kind of RESOURCE_KINDS) {
    const { documents } = await functions.indices.rebuild(kind, (write) =>
      reindexRecords(
        store,
        { index: { upsert: (_kind, records, vectors) => write(records, vectors) }, embeddings: functions.indexerPorts.embeddings },
        { kinds: [kind] },
      ).then(() => undefined),
    );
    counts.push(`${documents} ${kind}s`);
  }
  return `search indices rebuilt from the table (${counts.join(', ')}): the engine's indices are derived state`;
}

/** Written once the catalogue is in: a start interrupted while seeding seeds again. */
const CATALOGUE_MARKER = { pk: 'meta#catalogue', sk: 'seed' } as const;

export interface SeedOptions {
  tableName: string;
  seed: false | { grants?: number };
  sources: readonly string[];
  dataDir: string;
  say: (message: string) => void;
}

/** Fills a table not seeded yet; says whether it wrote anything. */
export async function seedCatalogue(functions: LocalAwsFunctions, options: SeedOptions): Promise<boolean> {
  const { store, clock } = functions.services;
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient({}));
  try {
    const marker = (await doc.send(new GetCommand({ TableName: options.tableName, Key: CATALOGUE_MARKER }))).Item;
    if (marker) {
      options.say(`serving the catalogue seeded ${String(marker.seeded_at)} in ${options.dataDir} (--reset starts afresh)`);
      return false;
    }
    const what = await writeCatalogue(store, clock, options);
    if (what === null) return false;
    await doc.send(new PutCommand({ TableName: options.tableName, Item: { ...CATALOGUE_MARKER, ...what, seeded_at: clock.now().toISOString() } }));
    return true;
  } finally {
    doc.destroy();
  }
}

async function writeCatalogue(store: RecordStore, clock: Clock, options: SeedOptions): Promise<Record<string, unknown> | null> {
  if (options.sources.length > 0) {
    options.say(`importing ${options.sources.join(', ')} through the table's stream…`);
    const reporter = ingestReporter({ rejectionsFile: resolve(options.dataDir, 'ingest-rejections.tsv'), progressStream: stderrTerminal() });
    const result = await ingestFiles(options.sources, { store, clock }, { onProgress: reporter.onProgress, onRejected: reporter.onRejected });
    for (const line of reporter.finish(result)) options.say(line);
    return { imported_sources: [...options.sources] };
  }
  if (options.seed === false) return null;
  const spec: CatalogueSpec = { ...catalogueWithGrants(options.seed.grants), today: utcDate(clock) };
  options.say(`seeding a synthetic catalogue (${spec.grants} grants, ${spec.contracts} contracts, ${spec.funders} funders) through the table's stream…`);
  const funders = generateFunders(spec);
  await store.put('funder', funders);
  for (const batch of generateGrants(spec, funders)) await store.put('grant', batch);
  for (const batch of generateContracts(spec, funders)) await store.put('contract', batch);
  return { spec };
}
