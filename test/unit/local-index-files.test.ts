import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteSearchIndex } from '../../lambdas/adapters/embedded/sqlite-search-index';
import {
  currentIndexFile,
  DEFAULT_INDEX_FILE,
  INDEX_POINTER_FILE,
  nextIndexFile,
  openLocalIndex,
  readIndexPointer,
  removeLocalIndex,
  writeIndexPointer,
} from '../../local/local-index-files';

const SPACE = { embedder: 'test-hash', dimensions: 4 };
let dataDir: string;
let messages: string[];
const files = () => readdirSync(dataDir).sort();
const open = () => {
  const opened = openLocalIndex(dataDir, SPACE, (m) => messages.push(m));
  opened.index.close();
  return opened;
};
/** An index file as a finished rebuild leaves it. */
const makeIndex = (file: string) => new SqliteSearchIndex({ filename: join(dataDir, file), space: SPACE }).close();

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'gcf-index-files-'));
  messages = [];
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the local index files', () => {
  it('a folder without a pointer opens index.sqlite, new and to be filled, then as it is', () => {
    expect(readIndexPointer(dataDir)).toEqual({ file: DEFAULT_INDEX_FILE, caughtUp: true });
    expect(open()).toMatchObject({ file: DEFAULT_INDEX_FILE, needsFill: true, catchUpPending: false });
    expect(open()).toMatchObject({ file: DEFAULT_INDEX_FILE, needsFill: false });
    expect(files()).not.toContain(INDEX_POINTER_FILE); // existing state folders stay as they were
    expect(nextIndexFile(dataDir)).toBe('index-1.sqlite');
    expect(nextIndexFile(undefined)).toBe(':memory:');
  });

  it('opens the file the pointer names and removes every other index file, side files and a torn pointer too', () => {
    makeIndex(DEFAULT_INDEX_FILE);
    makeIndex('index-3.sqlite');
    writeIndexPointer(dataDir, { file: 'index-3.sqlite', caughtUp: true });
    for (const leftover of ['index-4.sqlite', 'index-4.sqlite-wal', 'index-4.sqlite-shm', 'index.sqlite-journal', `${INDEX_POINTER_FILE}.tmp`])
      writeFileSync(join(dataDir, leftover), 'left by a dead rebuild');
    writeFileSync(join(dataDir, 'embeddings.sqlite'), 'not an index file');
    expect(nextIndexFile(dataDir)).toBe('index-5.sqlite');
    expect(open()).toMatchObject({ file: 'index-3.sqlite', needsFill: false, catchUpPending: false });
    expect(files().filter((name) => !name.endsWith('-wal') && !name.endsWith('-shm'))).toEqual(['embeddings.sqlite', 'index-3.sqlite', INDEX_POINTER_FILE]);
    expect(currentIndexFile(dataDir)).toBe(join(dataDir, 'index-3.sqlite'));
  });

  it('a pointer not caught up asks for a fill; writing it is atomic and leaves no temporary file', () => {
    makeIndex('index-1.sqlite');
    writeIndexPointer(dataDir, { file: 'index-1.sqlite', caughtUp: false });
    expect(readFileSync(join(dataDir, INDEX_POINTER_FILE), 'utf8')).toBe('{"file":"index-1.sqlite","caughtUp":false}\n');
    expect(open()).toMatchObject({ file: 'index-1.sqlite', needsFill: true, catchUpPending: true });
    expect(files()).not.toContain(`${INDEX_POINTER_FILE}.tmp`);
  });

  it.each([
    ['not JSON', 'index-1.sqlite'],
    ['a path outside the folder', JSON.stringify({ file: '../elsewhere/index.sqlite', caughtUp: true })],
    ['another file of the folder', JSON.stringify({ file: 'embeddings.sqlite', caughtUp: true })],
  ])('a pointer that is %s is dropped with the index files, and the index rebuilt, with a word', (_name, content) => {
    makeIndex('index-1.sqlite');
    writeFileSync(join(dataDir, INDEX_POINTER_FILE), content);
    expect(open()).toMatchObject({ file: DEFAULT_INDEX_FILE, needsFill: true });
    expect(messages.join('\n')).toMatch(/index\.current does not name an index file: rebuilding the search index from the record store/);
    expect(files().filter((name) => !name.endsWith('-wal') && !name.endsWith('-shm'))).toEqual([DEFAULT_INDEX_FILE]);
  });

  it('an index of another vector space is dropped, pointer and all, and rebuilt as index.sqlite', () => {
    new SqliteSearchIndex({ filename: join(dataDir, 'index-2.sqlite'), space: { embedder: 'other', dimensions: 8 } }).close();
    writeIndexPointer(dataDir, { file: 'index-2.sqlite', caughtUp: true });
    expect(open()).toMatchObject({ file: DEFAULT_INDEX_FILE, needsFill: true, catchUpPending: false });
    expect(messages.join('\n')).toContain('the search index holds vectors from other');
    expect(files().filter((name) => !name.endsWith('-wal') && !name.endsWith('-shm'))).toEqual([DEFAULT_INDEX_FILE]);
  });

  it('removeLocalIndex deletes every index file and the pointer, nothing else', () => {
    makeIndex(DEFAULT_INDEX_FILE);
    makeIndex('index-7.sqlite');
    writeIndexPointer(dataDir, { file: 'index-7.sqlite', caughtUp: true });
    writeFileSync(join(dataDir, `${INDEX_POINTER_FILE}.tmp`), '');
    writeFileSync(join(dataDir, 'embeddings.sqlite'), '');
    removeLocalIndex(dataDir);
    expect(files()).toEqual(['embeddings.sqlite']);
  });
});
