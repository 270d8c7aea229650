import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteSearchIndex } from '../lambdas/adapters/embedded/sqlite-search-index';
import { describeSpace, VectorSpaceMismatch } from '../lambdas/core/search/vector-space';
import type { VectorSpace } from '../lambdas/ports/embedder';

/**
 * The local search index's files in a state folder. The index is derived state: it can be
 * deleted and rebuilt from the record store at any time. A rebuild while the server runs
 * (EmbeddedStack.rebuildIndex) fills a new file beside the one being served, so which file is
 * current is kept in a small pointer file, replaced atomically (a temporary file renamed over
 * it), and every start removes the index files it does not name: what a rebuild left when its
 * process died.
 *
 *   index.sqlite        the index of a state folder that was never rebuilt live (generation 0)
 *   index-<n>.sqlite    the index the n-th live rebuild made
 *   index.current       {"file": "index-<n>.sqlite", "caughtUp": true}; absent means index.sqlite
 */

export const DEFAULT_INDEX_FILE = 'index.sqlite';
export const INDEX_POINTER_FILE = 'index.current';
const POINTER_TEMP_FILE = `${INDEX_POINTER_FILE}.tmp`;
/** SQLite's side files of a database file: its WAL, shared memory and rollback journal. */
const SIDE_FILE_SUFFIXES = ['-wal', '-shm', '-journal'] as const;
const SIDE_FILE = `(?:${SIDE_FILE_SUFFIXES.join('|')})`;
/** An index file's name, its generation captured, with or without a side file's suffix. */
const INDEX_FILE_PATTERN = new RegExp(`^index(?:-(\\d+))?\\.sqlite${SIDE_FILE}?$`);
const INDEX_NAME_PATTERN = /^index(?:-\d+)?\.sqlite$/;
/** The index file a side file belongs to. */
const mainFileOf = (name: string) => name.replace(new RegExp(`${SIDE_FILE}$`), '');

export interface IndexPointer {
  /** The current index file's name in the state folder. */
  file: string;
  /**
   * False from the moment a live rebuild points at its new file until its catch-up (of the writes
   * made while the file was filled) is done: a start that finds it false catches up itself.
   */
  caughtUp: boolean;
}

/** Thrown for a pointer file that is not one this code wrote. */
class UnreadablePointer extends Error {}

/** The pointer's content; the default index (caught up) when there is no pointer file. */
export function readIndexPointer(dataDir: string): IndexPointer {
  let text: string;
  try {
    text = readFileSync(join(dataDir, INDEX_POINTER_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { file: DEFAULT_INDEX_FILE, caughtUp: true };
    throw error;
  }
  let pointer: Partial<IndexPointer> | null = null;
  try {
    pointer = JSON.parse(text) as Partial<IndexPointer>;
  } catch {
    // Reported below.
  }
  // Only a bare index file name: the pointer never leads outside the state folder.
  if (!pointer || typeof pointer.file !== 'string' || !INDEX_NAME_PATTERN.test(pointer.file) || typeof pointer.caughtUp !== 'boolean') {
    throw new UnreadablePointer(`${join(dataDir, INDEX_POINTER_FILE)} does not name an index file`);
  }
  return { file: pointer.file, caughtUp: pointer.caughtUp };
}

/** The current index file's path (tools that read the index file directly). */
export function currentIndexFile(dataDir: string): string {
  return join(dataDir, readIndexPointer(dataDir).file);
}

/**
 * Makes `pointer` the current one, atomically: a crash leaves the old pointer or the new one,
 * never a torn file. Synced before and after the rename, and written only after the index it
 * names is checkpointed (synced), so a power cut cannot leave it naming an index short of its writes.
 */
export function writeIndexPointer(dataDir: string, pointer: IndexPointer): void {
  const temp = join(dataDir, POINTER_TEMP_FILE);
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, `${JSON.stringify(pointer)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, join(dataDir, INDEX_POINTER_FILE));
  syncFolder(dataDir);
}

function syncFolder(dataDir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dataDir, 'r');
    fsyncSync(fd);
  } catch {
    // Some platforms cannot open or sync a folder; the rename is still atomic there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The index files in the folder, side files included. */
function indexFilesIn(dataDir: string): string[] {
  return readdirSync(dataDir).filter((name) => INDEX_FILE_PATTERN.test(name));
}

/** Deletes one index file with its side files. */
export function removeIndexFile(dataDir: string, file: string): void {
  for (const suffix of ['', ...SIDE_FILE_SUFFIXES]) rmSync(join(dataDir, `${file}${suffix}`), { force: true });
}

/** A name for the next rebuild's file: one generation past every index file in the folder. */
export function nextIndexFile(dataDir: string | undefined): string {
  if (!dataDir) return ':memory:';
  const generations = indexFilesIn(dataDir).map((name) => Number(INDEX_FILE_PATTERN.exec(name)![1] ?? 0));
  return `index-${Math.max(0, ...generations) + 1}.sqlite`;
}

/** Deletes every index file and the pointer: the next start rebuilds the index from the record store. */
export function removeLocalIndex(dataDir: string): void {
  for (const name of indexFilesIn(dataDir)) rmSync(join(dataDir, name), { force: true });
  rmSync(join(dataDir, POINTER_TEMP_FILE), { force: true });
  rmSync(join(dataDir, INDEX_POINTER_FILE), { force: true });
}

export interface OpenedIndex {
  index: SqliteSearchIndex;
  /** The index file's name in the state folder (':memory:' without one). */
  file: string;
  /** The index must be (re)filled from the record store: new and empty, or left mid-catch-up by a rebuild. */
  needsFill: boolean;
  /** A live rebuild died before its catch-up: once filled, the pointer is to be marked caught up (writeIndexPointer). */
  catchUpPending: boolean;
}

/**
 * The local search index the pointer names, after removing the index files it does not name
 * (a rebuild that died). One built with another embedder's vectors (the adapter refuses it), or
 * behind a pointer this code did not write, is dropped and rebuilt from the record store, with a
 * word to the user.
 */
export function openLocalIndex(dataDir: string | undefined, space: VectorSpace, progress: (message: string) => void): OpenedIndex {
  if (!dataDir) {
    const index = new SqliteSearchIndex({ filename: ':memory:', space, scanInWorker: true });
    return { index, file: ':memory:', needsFill: index.wasCreated, catchUpPending: false };
  }
  let pointer: IndexPointer;
  try {
    pointer = readIndexPointer(dataDir);
  } catch (error) {
    if (!(error instanceof UnreadablePointer)) throw error;
    progress(`${error.message}: rebuilding the search index from the record store…`);
    removeLocalIndex(dataDir);
    pointer = { file: DEFAULT_INDEX_FILE, caughtUp: true };
  }
  for (const name of indexFilesIn(dataDir)) {
    if (mainFileOf(name) !== pointer.file) rmSync(join(dataDir, name), { force: true });
  }
  rmSync(join(dataDir, POINTER_TEMP_FILE), { force: true });
  const filename = join(dataDir, pointer.file);
  try {
    const index = new SqliteSearchIndex({ filename, space, scanInWorker: true });
    return { index, file: pointer.file, needsFill: index.wasCreated || !pointer.caughtUp, catchUpPending: !pointer.caughtUp };
  } catch (error) {
    if (!(error instanceof VectorSpaceMismatch)) throw error;
    progress(
      `the search index holds vectors from ${describeSpace(error.found)}, and the service now embeds with ${describeSpace(space)}: rebuilding it from the record store (each record is embedded once and cached)…`,
    );
    removeLocalIndex(dataDir);
    return {
      index: new SqliteSearchIndex({ filename: join(dataDir, DEFAULT_INDEX_FILE), space, scanInWorker: true }),
      file: DEFAULT_INDEX_FILE,
      needsFill: true,
      catchUpPending: false,
    };
  }
}
