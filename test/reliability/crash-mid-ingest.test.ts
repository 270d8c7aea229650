import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoRecordStore } from '../../lambdas/adapters/aws/dynamo-record-store';
import { IndexingRecordStore } from '../../lambdas/adapters/embedded/indexing-record-store';
import { SqliteEmbeddingCache } from '../../lambdas/adapters/embedded/sqlite-embedding-cache';
import { DynamoWriteJournal } from '../../lambdas/adapters/embedded/write-journal';
import type { ChangeEvent } from '../../lambdas/core/change-feed';
import { type Grant, RESOURCE_KINDS, type ResourceKind } from '../../lambdas/core/records';
import { systemClock } from '../../lambdas/ports/clock';
import type { RecordStore } from '../../lambdas/ports/record-store';
import type { SearchIndex } from '../../lambdas/ports/search-index';
import { type EmbeddedStack, LOCAL_TABLE_NAME, startEmbeddedStack } from '../../local/embedded-stack';
import { DEFAULT_CATALOGUE, generateFunders, generateGrants } from '../../local/synthetic-catalogue';
import { hasSharedData, SHARED_DATA_SKIP_MESSAGE, sharedDataLineCount, sharedDataPath } from '../support/shared-data';
import { killStartedCommands, runAdminToEnd, startAdmin } from './helpers/child-process';
import { type DataDirSnapshot, indexedRows, indexFileContents, recordHashes, snapshotDataDir } from './helpers/data-dir';
import { type GrantsFixture, writeGrantsFixture } from './helpers/grants-fixture';

// Crash consistency of the store, index and change feed is what this suite checks, over imports of
// 4,000 grants: with the word-vector fallback each import takes seconds, with the sentence
// transformer minutes. The admin children inherit the choice.
process.env.GCF_EMBEDDER = 'wink';

if (!hasSharedData) console.warn(SHARED_DATA_SKIP_MESSAGE);

/**
 * `admin ingest` SIGKILLed in the middle of an import, at several points: the folder it leaves
 * must open again (the dead process's lock taken over), hold only whole, valid records on which
 * the store and the search index agree, and a second run of the same import must finish it, equal
 * to an import that was never interrupted.
 */

const GRANTS = 4_000;
/**
 * Where to kill: once the index holds this fraction of the grants (early, midway, late), and then
 * this far into the next batch (a fraction of the time a batch takes, measured as the import
 * runs), so the kills land at different steps of a batch: reading, the store write, embedding,
 * the index write, the change events.
 */
const KILL_POINTS = [
  [0.1, 0.35],
  [0.5, 0.65],
  [0.85, 0.9],
] as const;

let dir: string;
let fixture: GrantsFixture;
let clean: Promise<DataDirSnapshot> | undefined;
/** Every import of this file runs after this: a created_at from then on is an import's time, not a source's date. */
const SUITE_STARTED_AT = Date.now();

/** The uninterrupted import to compare with, started by the first crash test and run beside it (it is another folder). */
function cleanImport(): Promise<DataDirSnapshot> {
  if (!clean) {
    const cleanDir = join(dir, 'clean');
    clean = runAdminToEnd(['ingest', fixture.path, '--data-dir', cleanDir]).then(() => snapshotDataDir(cleanDir));
    clean.catch(() => undefined);
  }
  return clean;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gcf-crash-ingest-'));
  fixture = writeGrantsFixture(join(dir, 'grants.jsonl'), GRANTS);
});
afterAll(async () => {
  await killStartedCommands();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Store and index agree, record for record, and every record is whole. */
function expectConsistent(snapshot: DataDirSnapshot, label: string): void {
  expect(snapshot.problems, label).toEqual([]);
  expect(snapshot.duplicateIds, label).toEqual([]);
  expect(snapshot.duplicateIndexIds, label).toEqual([]);
  for (const kind of RESOURCE_KINDS) {
    const stored = [...snapshot.store[kind].keys()].sort();
    const indexed = [...snapshot.index[kind].keys()].sort();
    // Every stored record is in the index, and the index has nothing the store does not.
    expect(indexed, `${label}: ${kind} ids in the index vs the store`).toEqual(stored);
    expect(snapshot.indexTotals[kind], `${label}: ${kind} count`).toBe(stored.length);
    for (const [id, record] of snapshot.index[kind]) expect(record, `${label}: ${kind} ${id} as indexed`).toEqual(snapshot.store[kind].get(id));
  }
  expectIndexFileConsistent(snapshot, label);
}

/** The index file's tables agree with each other: a document for every row, no document or vector without a row, one row per id. */
function expectIndexFileConsistent(snapshot: DataDirSnapshot, label: string): void {
  for (const kind of RESOURCE_KINDS) {
    const { rows, docs, vectors, orphans, ids } = snapshot.indexFile[kind];
    expect({ docs, orphans, distinctIds: new Set(ids).size }, `${label}: ${kind} index tables`).toEqual({ docs: rows, orphans: 0, distinctIds: rows });
    expect(vectors, `${label}: ${kind} vectors`).toBeLessThanOrEqual(rows);
  }
}

const sizes = (s: DataDirSnapshot) => Object.fromEntries(RESOURCE_KINDS.map((kind) => [kind, s.store[kind].size])) as Record<ResourceKind, number>;

/**
 * Starts `admin ingest <file>` into `dataDir`, SIGKILLs it once the index holds `threshold`
 * grants and `into` of a batch's time has passed after that, checks the folder, runs the same
 * import again to its end and checks it against `reference` (an uninterrupted import).
 */
async function killMidImportAndResume(options: {
  file: string;
  dataDir: string;
  threshold: number;
  into: number;
  reference: () => Promise<DataDirSnapshot>;
  lines: number;
}): Promise<void> {
  const { file, dataDir, threshold, into } = options;
  const ingest = startAdmin(['ingest', file, '--data-dir', dataDir]);
  let indexed = 0;
  // When the indexed count last changed, and the intervals between changes (one batch each).
  let changedAt = 0;
  const intervals: number[] = [];
  const started = Date.now();
  while (indexed < threshold || intervals.length < 2) {
    if (ingest.child.exitCode !== null) throw new Error(`ingest ended before the kill point (${indexed} indexed):\n${ingest.output()}`);
    if (Date.now() - started > 90_000) throw new Error(`no progress to ${threshold} grants in 90 s (${indexed} indexed):\n${ingest.output()}`);
    await sleep(5);
    const now = indexedRows(dataDir, 'grant');
    if (now !== indexed) {
      if (changedAt > 0) intervals.push(Date.now() - changedAt);
      changedAt = Date.now();
      indexed = now;
    }
  }
  const batchMs = intervals.sort((a, b) => a - b)[Math.floor(intervals.length / 2)]!;
  await sleep(Math.max(0, changedAt + into * batchMs - Date.now()));
  ingest.child.kill('SIGKILL');
  expect(await ingest.exited).toEqual({ code: null, signal: 'SIGKILL' });
  // The dead process's lock is still there; it must not keep the folder shut.
  expect(readFileSync(join(dataDir, 'owner.pid'), 'utf8').trim()).toBe(String(ingest.pid));

  const reference = await options.reference();
  const after = await snapshotDataDir(dataDir);
  const label = `after the kill at ${threshold} grants + ${into} of a batch`;
  console.info(`${label}: ${after.store.grant.size} grants stored; on reopening: ${after.startMessages.join('; ') || 'nothing to finish'}`);
  expectConsistent(after, label);
  expect(after.store.grant.size, label).toBeGreaterThanOrEqual(threshold);
  for (const kind of RESOURCE_KINDS) expect(after.store[kind].size, `${label}: ${kind}`).toBeLessThanOrEqual(reference.store[kind].size);
  expect(existsSync(join(dataDir, 'owner.pid')), 'the lock is released after a clean close').toBe(false);

  // The same import again finishes the job: the same records as the uninterrupted import, no more.
  const output = await runAdminToEnd(['ingest', file, '--data-dir', dataDir]);
  expect(output).toMatch(new RegExp(`read ${options.lines} records`));
  const resumed = await snapshotDataDir(dataDir);
  expectConsistent(resumed, `resumed: ${label}`);
  expect(sizes(resumed)).toEqual(sizes(reference));
  const importWindow = { from: SUITE_STARTED_AT, to: Date.now() };
  expect(recordHashes(resumed.store, importWindow)).toEqual(recordHashes(reference.store, importWindow));
  // And indexed alike: the same records have vectors.
  for (const kind of RESOURCE_KINDS) expect(resumed.indexFile[kind].idsWithVectors, `${kind} with vectors`).toEqual(reference.indexFile[kind].idsWithVectors);
}

describe('admin ingest killed with SIGKILL mid-import (a generated file)', () => {
  it.each(KILL_POINTS.map(([point, into], i) => [i + 1, point, into] as const))(
    'kill %i (once %s of the grants are indexed, %s of a batch later): the folder reopens consistent, and a second run completes it exactly',
    async (_n, point, into) => {
      void cleanImport();
      await killMidImportAndResume({
        file: fixture.path,
        dataDir: join(dir, `killed-${point}`),
        threshold: Math.round(GRANTS * point),
        into,
        reference: cleanImport,
        lines: GRANTS,
      });
      expect(sizes(await cleanImport())).toEqual({ grant: GRANTS, contract: 0, funder: fixture.funders });
    },
    120_000,
  );
});

describe.skipIf(!hasSharedData)('admin ingest killed with SIGKILL mid-import (../shared/data grants.jsonl)', () => {
  it('killed midway: the folder reopens consistent, and a second run completes it exactly', async () => {
    const file = sharedDataPath('grants.jsonl');
    const cleanDir = join(dir, 'shared-clean');
    const reference = runAdminToEnd(['ingest', file, '--data-dir', cleanDir]).then(() => snapshotDataDir(cleanDir));
    reference.catch(() => undefined);
    await killMidImportAndResume({
      file,
      dataDir: join(dir, 'shared-killed'),
      threshold: 1_500,
      into: 0.5,
      reference: () => reference,
      lines: sharedDataLineCount('grants.jsonl'),
    });
    expect((await reference).store.grant.size).toBeGreaterThan(3_000);
  }, 150_000);
});

/**
 * The kill above lands wherever it lands; these stop a write at the two places that matter, every
 * time: after the store has the records and before the index does, and partway through the store
 * write itself (a batch write is 25 items at a time, not all or nothing).
 */
describe('a write stopped between the record store and the search index', () => {
  const spec = { ...DEFAULT_CATALOGUE, funders: 3, grants: 60, awardedGrants: 0, contracts: 0, awardedContracts: 0, today: '2026-11-22' };
  const grants: Grant[] = [...generateGrants(spec, generateFunders(spec))].flat();

  /** The folder's table through a store of its own, as a second (about to die) process would see it, whose index or store fails mid-write. */
  function interruptedWriter(stack: EmbeddedStack, fail: { index?: boolean; storeAfter?: number }) {
    const client = stack.dynamoClient();
    const dynamo = new DynamoRecordStore(client, LOCAL_TABLE_NAME);
    const store: RecordStore =
      fail.storeAfter === undefined
        ? dynamo
        : {
            get: (kind, id) => dynamo.get(kind, id),
            versions: (kind, ids) => dynamo.versions(kind, ids),
            scan: (kind) => dynamo.scan(kind),
            async put(kind, records) {
              await dynamo.put(kind, records.slice(0, fail.storeAfter));
              throw new Error('killed during the store write');
            },
          };
    const index: SearchIndex = {
      ...stack.services.index,
      query: (kind, query, semantic) => stack.services.index.query(kind, query, semantic),
      upsert: async (kind, records, vectors) => {
        if (fail.index) throw new Error('killed before the index write');
        return stack.services.index.upsert(kind, records, vectors);
      },
      remove: (kind, ids) => stack.services.index.remove(kind, ids),
    };
    const cache = new SqliteEmbeddingCache(':memory:');
    const writer = new IndexingRecordStore(
      store,
      { index, outbox: { append: async () => undefined }, clock: systemClock, embeddings: { embedder: stack.services.embedder, cache } },
      new DynamoWriteJournal(client, LOCAL_TABLE_NAME),
    );
    return {
      writer,
      close: () => {
        cache.close();
        client.destroy();
      },
    };
  }

  async function outboxEvents(stack: EmbeddedStack): Promise<ChangeEvent[]> {
    const events: ChangeEvent[] = [];
    for await (const page of stack.outbox.scan()) events.push(...page);
    return events;
  }

  it('is indexed and announced at the next start, once', async () => {
    const dataDir = join(dir, 'journal-index');
    const first = await startEmbeddedStack({ dataDir, seed: false });
    await first.services.store.put('grant', grants.slice(0, 20));
    const amended = { ...grants[0]!, title: `${grants[0]!.title} (amended)` };
    const { writer, close } = interruptedWriter(first, { index: true });
    await expect(writer.put('grant', [amended, ...grants.slice(20, 40)])).rejects.toThrow('killed before the index write');
    close();
    await first.close();
    // The store is ahead of the index: 40 grants stored, 20 indexed (and grant 0 in its old version).
    expect(indexFileContents(dataDir).grant.rows).toBe(20);

    const messages: string[] = [];
    const second = await startEmbeddedStack({ dataDir, seed: false, onProgress: (m) => messages.push(m) });
    try {
      expect(messages).toContain('finished 1 write the last process left unindexed (it stopped mid-write)');
      const events = await outboxEvents(second);
      const created = events.filter((e) => e.event === 'grant.created').map((e) => e.record_id);
      expect(new Set(created)).toEqual(new Set(grants.slice(0, 40).map((g) => g.id)));
      expect(events.filter((e) => e.event === 'grant.updated').map((e) => [e.record_id, (e.data as Grant).title])).toEqual([[amended.id, amended.title]]);
    } finally {
      await second.close();
    }
    const snapshot = await snapshotDataDir(dataDir);
    expectConsistent(snapshot, 'after the replay');
    expect(snapshot.store.grant.size).toBe(40);
    expect(snapshot.index.grant.get(amended.id)).toEqual(amended);
    // Replayed once: the journal is empty, and the next start replays nothing.
    const messagesAgain: string[] = [];
    const third = await startEmbeddedStack({ dataDir, seed: false, onProgress: (m) => messagesAgain.push(m) });
    await third.close();
    expect(messagesAgain.filter((m) => m.startsWith('finished'))).toEqual([]);
  });

  it('a store write stopped partway: the records that landed are indexed, the rest are nowhere', async () => {
    const dataDir = join(dir, 'journal-store');
    const first = await startEmbeddedStack({ dataDir, seed: false });
    const { writer, close } = interruptedWriter(first, { storeAfter: 25 });
    await expect(writer.put('grant', grants.slice(0, 60))).rejects.toThrow('killed during the store write');
    close();
    await first.close();
    expect(indexFileContents(dataDir).grant.rows).toBe(0);

    const snapshot = await snapshotDataDir(dataDir);
    expectConsistent(snapshot, 'after the replay');
    expect([...snapshot.store.grant.keys()].sort()).toEqual(
      grants
        .slice(0, 25)
        .map((g) => g.id)
        .sort(),
    );
  });
});
