import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { contentHashOf } from '../../../lambdas/core/ingest/identity';
import { parseListQuery } from '../../../lambdas/core/query/list-query';
import { type AnyRecord, RECORD_SCHEMAS, RESOURCE_KINDS, type ResourceKind } from '../../../lambdas/core/records';
import { utcDate } from '../../../lambdas/ports/clock';
import { startEmbeddedStack } from '../../../local/embedded-stack';
import { currentIndexFile } from '../../../local/local-index-files';

/** Records of the grants the search index holds, read from its file while another process writes it (SQLite WAL: readers never block the writer). */
export function indexedRows(dataDir: string, kind: ResourceKind): number {
  const file = currentIndexFile(dataDir);
  if (!existsSync(file)) return 0;
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { fileMustExist: true, timeout: 100 });
    return db.prepare(`SELECT count(*) FROM ${kind}_rows`).pluck().get() as number;
  } catch {
    return 0; // not created yet, or busy for a moment
  } finally {
    db?.close();
  }
}

export interface IndexFileContents {
  rows: number;
  docs: number;
  vectors: number;
  /** Documents or vectors with no row. */
  orphans: number;
  ids: string[];
  /** Ids of the rows that have a vector (a record whose text has no word the embedder knows has none). */
  idsWithVectors: string[];
}

/** What the index file holds per kind, by table (rows, documents, vectors), and the ids of its rows. */
export function indexFileContents(dataDir: string): Record<ResourceKind, IndexFileContents> {
  const db = new Database(currentIndexFile(dataDir), { fileMustExist: true, readonly: true });
  try {
    const count = (sql: string) => db.prepare(sql).pluck().get() as number;
    return Object.fromEntries(
      RESOURCE_KINDS.map((kind) => [
        kind,
        {
          rows: count(`SELECT count(*) FROM ${kind}_rows`),
          docs: count(`SELECT count(*) FROM ${kind}_docs`),
          vectors: count(`SELECT count(*) FROM ${kind}_vectors`),
          orphans:
            count(`SELECT count(*) FROM ${kind}_docs d WHERE NOT EXISTS (SELECT 1 FROM ${kind}_rows r WHERE r.rowid = d.rowid)`) +
            count(`SELECT count(*) FROM ${kind}_vectors v WHERE NOT EXISTS (SELECT 1 FROM ${kind}_rows r WHERE r.rowid = v.rowid)`),
          ids: db.prepare(`SELECT id FROM ${kind}_rows`).pluck().all() as string[],
          idsWithVectors: db.prepare(`SELECT r.id FROM ${kind}_rows r JOIN ${kind}_vectors v ON v.rowid = r.rowid ORDER BY r.id`).pluck().all() as string[],
        },
      ]),
    ) as never;
  } finally {
    db.close();
  }
}

export interface DataDirSnapshot {
  /** Every stored record by kind and id. */
  store: Record<ResourceKind, Map<string, AnyRecord>>;
  /** Ids the store scan returned more than once. */
  duplicateIds: string[];
  /** Every record the search index lists, by kind and id (listed page by page through the port, as the API lists). */
  index: Record<ResourceKind, Map<string, AnyRecord>>;
  /** Ids the index listing returned more than once. */
  duplicateIndexIds: string[];
  /** The total the index counts (count_only) per kind. */
  indexTotals: Record<ResourceKind, number>;
  /** What the stack said as it opened the folder (a replay of writes left unindexed, say). */
  startMessages: string[];
  /** The index file's tables, read after the stack closed. */
  indexFile: Record<ResourceKind, IndexFileContents>;
  /** Problems found: a record that fails its schema, whose stored hash is not its fields', or that get-by-id does not return as stored. */
  problems: string[];
}

/**
 * Opens the embedded stack on a folder (as `npm start` or an admin command would after whatever
 * happened to it) and reads everything back: the store by scan and by id, the index by listing.
 */
export async function snapshotDataDir(dataDir: string): Promise<DataDirSnapshot> {
  const startMessages: string[] = [];
  const stack = await startEmbeddedStack({ dataDir, seed: false, onProgress: (message) => startMessages.push(message) });
  const empty = () => ({ grant: new Map(), contract: new Map(), funder: new Map() }) as Record<ResourceKind, Map<string, AnyRecord>>;
  const snapshot: DataDirSnapshot = {
    store: empty(),
    duplicateIds: [],
    index: empty(),
    duplicateIndexIds: [],
    indexTotals: { grant: 0, contract: 0, funder: 0 },
    indexFile: undefined as never,
    startMessages,
    problems: [],
  };
  try {
    const { store, index, clock } = stack.services;
    const today = utcDate(clock);
    for (const kind of RESOURCE_KINDS) {
      for await (const page of store.scan(kind)) {
        for (const record of page as AnyRecord[]) {
          if (snapshot.store[kind].has(record.id)) snapshot.duplicateIds.push(record.id);
          snapshot.store[kind].set(record.id, record);
          const parsed = RECORD_SCHEMAS[kind].safeParse(record);
          if (!parsed.success)
            snapshot.problems.push(`${kind} ${record.id} fails its schema: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
        }
      }
      // Every item's stored content hash is the hash of the fields it holds (nothing half-written)...
      const stored = [...snapshot.store[kind]];
      const versions = await store.versions(
        kind,
        stored.map(([id]) => id),
      );
      for (const [id, record] of stored) {
        if (versions.get(id)?.contentHash !== contentHashOf(record))
          snapshot.problems.push(`${kind} ${id}: its stored content hash is not the hash of its fields`);
      }
      // ...and get-by-id returns the record (every one up to 300, else a spread of 300 of them).
      const step = Math.max(1, Math.floor(stored.length / 300));
      const sample = stored.filter((_, i) => i % step === 0);
      for (let i = 0; i < sample.length; i += 50) {
        await Promise.all(
          sample.slice(i, i + 50).map(async ([id, record]) => {
            const got = await store.get(kind, id);
            if (!got || contentHashOf(got) !== contentHashOf(record)) snapshot.problems.push(`${kind} ${id}: get-by-id does not return the stored record`);
          }),
        );
      }
      const params = (extra: Record<string, string>) =>
        Object.fromEntries(Object.entries({ ...(kind === 'funder' ? {} : { opportunity_type: 'all' }), ...extra }).map(([k, v]) => [k, [v]]));
      snapshot.indexTotals[kind] = (await index.query(kind, { ...parseListQuery(kind, params({ count_only: 'true' }), today), kind } as never)).total;
      for (let offset = 0; offset < snapshot.indexTotals[kind]; offset += 100) {
        const page = await index.query(kind, {
          ...parseListQuery(kind, params({ limit: '100', offset: String(offset), sort_by: 'created_at' }), today),
          kind,
        } as never);
        for (const record of page.results as AnyRecord[]) {
          if (snapshot.index[kind].has(record.id)) snapshot.duplicateIndexIds.push(record.id);
          snapshot.index[kind].set(record.id, record);
        }
      }
    }
  } finally {
    await stack.close();
  }
  snapshot.indexFile = indexFileContents(dataDir);
  return snapshot;
}

/**
 * Content hashes by kind and id, for comparing two catalogues. A record whose source gives no date
 * (a funder made from an agency name, say) is dated by the import that first stored it, so a
 * created_at inside `importWindow` (when the imports being compared ran) is left out of its hash;
 * every other field, and every date a source gave, must be equal.
 */
export function recordHashes(
  records: Record<ResourceKind, Map<string, AnyRecord>>,
  importWindow: { from: number; to: number },
): Record<ResourceKind, Record<string, string>> {
  return Object.fromEntries(
    RESOURCE_KINDS.map((kind) => [
      kind,
      Object.fromEntries(
        [...records[kind]]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([id, record]) => {
            const { created_at: createdAt, ...rest } = record;
            const at = Date.parse(createdAt);
            const importTime = at >= importWindow.from - 1_000 && at <= importWindow.to + 1_000;
            return [id, contentHashOf(importTime ? rest : { ...rest, created_at: createdAt })];
          }),
      ),
    ]),
  ) as never;
}
