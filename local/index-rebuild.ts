import { join } from 'node:path';
import { SqliteSearchIndex } from '../lambdas/adapters/embedded/sqlite-search-index';
import { noTouchedIds, type SwappableSearchIndex, type TouchedIds } from '../lambdas/adapters/embedded/swappable-search-index';
import { RESOURCE_KINDS, type ResourceKind } from '../lambdas/core/records';
import { type EmbeddingPorts, embedRecords } from '../lambdas/core/use-cases/embed-records';
import { reindexRecords } from '../lambdas/core/use-cases/reindex-records';
import type { VectorSpace } from '../lambdas/ports/embedder';
import type { RecordStore } from '../lambdas/ports/record-store';
import { nextIndexFile, removeIndexFile, writeIndexPointer } from './local-index-files';

/**
 * Rebuilding the local search index while the server answers from it (EmbeddedStack.rebuildIndex):
 *
 * 1. fill a new index file from the record store (vectors from the embedding cache), while
 *    requests are answered from the old index and writes go on into it, their ids noted;
 * 2. point the state folder at the new file (marked not caught up: a start after a crash from
 *    here on catches up itself, with a full pass over the store);
 * 3. with writes to the index held back (queries go on), switch every holder of the index to the
 *    new one, wait for the calls under way on the old one, and catch up: each record a write
 *    touched during the fill is read back from the store and upserted, or removed when the store
 *    no longer holds it. Holding writes makes this exact: no write can land between the catch-up's
 *    read and its upsert and be overwritten by an older version, as it could in a second full
 *    reindexRecords pass running beside writes (and that pass could not see removals at all);
 * 4. mark the pointer caught up; close the old index and delete its files.
 */

/** Records a write touched during the fill, read back one by one; past this, the catch-up is one pass over the store. */
const CATCH_UP_BY_ID_MAX = 2_000;
const READS_AT_ONCE = 16;

/** A second rebuild while one runs: refused, in one line, so a caller can say so and retry later. */
export class IndexRebuildInProgress extends Error {
  constructor(startedAt: Date) {
    super(`the search index is already being rebuilt (since ${startedAt.toISOString()}): wait for that rebuild to finish, then run this again if needed`);
    this.name = 'IndexRebuildInProgress';
  }
}

export type RebuildPhase = 'fill' | 'catch-up';
/** Records indexed so far of a kind, in a phase (counts start again at the catch-up). */
export type RebuildProgress = (kind: ResourceKind, indexed: number, phase: RebuildPhase) => void;

export interface IndexRebuildResult {
  /** Records copied into the new index by kind (the fill). */
  indexed: Record<ResourceKind, number>;
  /** Records written during the fill, brought up to date in the new index after the switch. */
  caughtUp: number;
  /** The new index's file in the state folder (':memory:' without one). */
  file: string;
}

export interface IndexRebuildPorts {
  dataDir?: string;
  space: VectorSpace;
  /** What every holder of the index holds. */
  index: SwappableSearchIndex<SqliteSearchIndex>;
  /** The system of record (read only), not the change feed over it. */
  store: RecordStore;
  embeddings: EmbeddingPorts;
  /** Past this many records written during the fill, the catch-up is a pass over the store (default CATCH_UP_BY_ID_MAX). */
  catchUpByIdMax?: number;
}

export class LocalIndexRebuilder {
  private running: { startedAt: Date; done: Promise<IndexRebuildResult> } | null = null;
  private closing = false;

  /** `file`: the current index's file name. */
  constructor(
    private readonly ports: IndexRebuildPorts,
    private file: string,
  ) {}

  rebuild(onProgress?: RebuildProgress): Promise<IndexRebuildResult> {
    if (this.closing) return Promise.reject(new Error('the embedded stack is closing: the search index is not rebuilt'));
    if (this.running) return Promise.reject(new IndexRebuildInProgress(this.running.startedAt));
    const done = this.run(onProgress);
    const running = { startedAt: new Date(), done };
    this.running = running;
    const clear = () => {
      if (this.running === running) this.running = null;
    };
    done.then(clear, clear);
    return done;
  }

  /** Stops a rebuild still filling its index (its file is deleted), or lets one catching up finish; resolves when none runs. */
  async close(): Promise<void> {
    this.closing = true;
    await this.running?.done.catch(() => undefined);
  }

  private async run(onProgress?: RebuildProgress): Promise<IndexRebuildResult> {
    const { dataDir, index, store, embeddings } = this.ports;
    const file = nextIndexFile(dataDir);
    const fresh = new SqliteSearchIndex({ filename: dataDir ? join(dataDir, file) : ':memory:', space: this.ports.space, scanInWorker: true });
    const writes = index.recordWrites();
    let indexed: Record<ResourceKind, number>;
    try {
      const target = {
        upsert: ((kind, records, vectors) => {
          if (this.closing) throw new Error('the embedded stack closed while the search index was being rebuilt; the index it served is kept');
          return fresh.upsert(kind, records, vectors);
        }) as SqliteSearchIndex['upsert'],
      };
      indexed = await reindexRecords(store, { index: target, embeddings }, { onProgress: (kind, n) => onProgress?.(kind, n, 'fill') });
      fresh.checkpoint(); // before the pointer names it: a power cut leaves the pointer or a full file
      if (dataDir) writeIndexPointer(dataDir, { file, caughtUp: false });
    } catch (error) {
      // Nothing points at the new file yet: it goes, and the old index serves on.
      writes.stop();
      fresh.close();
      if (dataDir) removeIndexFile(dataDir, file);
      throw error;
    }

    let previous: SqliteSearchIndex | undefined;
    let caughtUp: number;
    try {
      caughtUp = await index.holdWrites(async () => {
        previous = await index.replace(fresh);
        return this.catchUp(fresh, writes.stop(), onProgress);
      });
    } catch (error) {
      throw new Error(
        `the rebuilt search index serves now, but catching up the writes made while it was filled failed (${(error as Error).message}); the next start of the server catches up`,
        { cause: error },
      );
    } finally {
      // Switched (replace cannot fail): the old index is idle, and the pointer names the new file.
      if (previous) {
        previous.close();
        if (dataDir) removeIndexFile(dataDir, this.file);
        this.file = file;
      }
    }
    fresh.checkpoint();
    if (dataDir) writeIndexPointer(dataDir, { file, caughtUp: true });
    return { indexed, caughtUp, file };
  }

  /** Brings each touched record up to date in `fresh` from the store; writes are held meanwhile, so they go to `fresh` directly. */
  private async catchUp(fresh: SqliteSearchIndex, touched: TouchedIds, onProgress?: RebuildProgress): Promise<number> {
    const { store, embeddings } = this.ports;
    const count = RESOURCE_KINDS.reduce((sum, kind) => sum + touched[kind].size, 0);
    if (count === 0) return 0;
    if (count > (this.ports.catchUpByIdMax ?? CATCH_UP_BY_ID_MAX)) {
      // Many writes (an ingest ran alongside): one pass over the store is cheaper than reading each.
      const seen = noTouchedIds();
      const target = {
        upsert: ((kind, records, vectors) => {
          for (const record of records) seen[kind].add(record.id);
          return fresh.upsert(kind, records, vectors);
        }) as SqliteSearchIndex['upsert'],
      };
      await reindexRecords(store, { index: target, embeddings }, { onProgress: (kind, n) => onProgress?.(kind, n, 'catch-up') });
      for (const kind of RESOURCE_KINDS) {
        const gone = [...touched[kind]].filter((id) => !seen[kind].has(id));
        if (gone.length > 0) await fresh.remove(kind, gone);
      }
      return count;
    }
    for (const kind of RESOURCE_KINDS) {
      const ids = [...touched[kind]];
      for (let i = 0; i < ids.length; i += READS_AT_ONCE) {
        const part = ids.slice(i, i + READS_AT_ONCE);
        const records = await Promise.all(part.map((id) => store.get(kind, id)));
        const present = records.filter((record) => record !== null);
        const gone = part.filter((_, j) => records[j] === null);
        if (present.length > 0) await fresh.upsert(kind, present, await embedRecords(kind, present, embeddings));
        if (gone.length > 0) await fresh.remove(kind, gone);
        onProgress?.(kind, Math.min(i + READS_AT_ONCE, ids.length), 'catch-up');
      }
    }
    return count;
  }
}
