import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoRecordStore } from '../../lambdas/adapters/aws/dynamo-record-store';
import type { SqliteSearchIndex } from '../../lambdas/adapters/embedded/sqlite-search-index';
import type { SwappableSearchIndex } from '../../lambdas/adapters/embedded/swappable-search-index';
import type { Grant } from '../../lambdas/core/records';
import { IndexRebuildInProgress, type IndexRebuildResult, LOCAL_TABLE_NAME, removeLocalIndex } from '../../local/embedded-stack';
import { INDEX_POINTER_FILE, writeIndexPointer } from '../../local/local-index-files';
import { startTestApi, TEST_CATALOGUE, type TestApi } from '../support/api-server';

/**
 * Rebuilding the search index inside a running embedded stack with a state folder
 * (EmbeddedStack.rebuildIndex), over real HTTP: requests made meanwhile are answered in full, a
 * write made meanwhile is found afterwards, cursors issued before the switch go on after it, and
 * the state folder opens the rebuilt index after a restart, a crash at any step included.
 */

let dataDir: string;
let api: TestApi;
const messages: string[] = [];

/** The stack on the state folder; the test catalogue's vectors come from the test run's shared cache. */
const start = () => startTestApi({ dataDir, seed: TEST_CATALOGUE, embeddingCacheFile: process.env.GCF_EMBEDDING_CACHE, onProgress: (m) => messages.push(m) });
const swappable = () => api.stack.services.index as SwappableSearchIndex<SqliteSearchIndex>;
const indexFiles = () =>
  readdirSync(dataDir)
    .filter((name) => name.startsWith('index'))
    .sort();
const pointer = () => JSON.parse(readFileSync(join(dataDir, INDEX_POINTER_FILE), 'utf8')) as { file: string; caughtUp: boolean };

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gcf-rebuild-'));
  api = await start();
}, 300_000);
afterAll(async () => {
  await api?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Requests whose answers no write below changes (the grant rewritten is an awarded one: not in open searches). */
const PROBES = [
  '/grants-api?opportunity_type=all&limit=20',
  '/grants-api?search=community%20health&limit=10',
  '/grants-api?search=rural%20broadband%20internet%20access&search_mode=semantic&limit=10',
  '/grants-api?search=clean%20energy%20for%20schools&search_mode=hybrid&limit=10&facets=category',
  '/contracts-api?search=software%20services&opportunity_type=all',
  '/funders-api?search=foundation',
];

/** Walks, each begun before the rebuild and finished after it, by cursor. */
const WALKS = [
  '/grants-api?opportunity_type=all&limit=100',
  '/grants-api?search=community%20health&limit=10',
  '/grants-api?search=rural%20broadband%20internet%20access&search_mode=semantic&limit=5',
  '/grants-api?search=clean%20energy%20for%20schools&search_mode=hybrid&limit=5',
  '/contracts-api?search=software%20services&opportunity_type=all&limit=10',
];

type Page = { results: { id: string; title?: string; description?: string }[]; pagination: { total: number; next_cursor?: string }; facets?: unknown };

/** What a probe must answer the same before, during and after the rebuild: the total, the facets and the page's records in order. */
const answerOf = (body: Page) => ({ total: body.pagination.total, facets: body.facets, ids: body.results.map((r) => r.id) });

/** The rewrites below: texts a keyword search finds (its matches must also be near the query in meaning). */
const LIGHTHOUSE = { title: 'Zanzibar Lighthouse Restoration Grants', description: 'Restoration of historic lighthouses on the coast of Zanzibar.' };
const ORCHARD = { title: 'Quillfeather Heritage Orchard Grants', description: 'Preservation of heritage apple orchards in the Quillfeather valley.' };
/** The ids a keyword search for `text` finds among all grants. */
const foundBy = async (text: string) =>
  (await page(`/grants-api?search=${encodeURIComponent(text)}&search_mode=keyword&opportunity_type=all&limit=100`)).results.map((r) => r.id);
/** The records holding every word of the text (the others match one telling word of it). */
const holdingEvery = async (text: string) =>
  (await page(`/grants-api?search=${encodeURIComponent(text)}&search_mode=keyword&opportunity_type=all&limit=100`)).results.filter((r) =>
    text.split(' ').every((word) => `${r.title ?? ''} ${r.description ?? ''}`.toLowerCase().includes(word)),
  );

async function page(path: string, cursor?: string): Promise<Page> {
  const res = await api.get(cursor ? `${path}&cursor=${cursor}` : path);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body as Page;
}

/** The rest of a walk from `cursor` on. */
async function walkFrom(path: string, cursor: string | undefined, ids: string[]): Promise<string[]> {
  while (cursor) {
    const body = await page(path, cursor);
    ids.push(...body.results.map((r) => r.id));
    cursor = body.pagination.next_cursor;
  }
  return ids;
}

describe('rebuilding the index while the server runs', () => {
  it('answers every request in full meanwhile, finds a write made meanwhile, and continues cursors issued before', async () => {
    const expected = await Promise.all(PROBES.map(async (path) => answerOf(await page(path))));
    expect(expected.every((answer) => answer.total > 0)).toBe(true);
    const walks = await Promise.all(
      WALKS.map(async (path) => {
        const first = await page(path);
        expect(first.pagination.next_cursor, path).toBeDefined();
        return { path, ids: first.results.map((r) => r.id), cursor: first.pagination.next_cursor };
      }),
    );
    const awarded = (await page('/grants-api?opportunity_type=awarded&limit=1')).results[0] as unknown as Grant;
    expect(await foundBy('zanzibar lighthouse restoration')).not.toContain(awarded.id);

    let write: Promise<void> | undefined;
    const phases = new Set<string>();
    let done = false;
    const rebuilding = api.stack
      .rebuildIndex((_kind, _indexed, phase) => {
        phases.add(phase);
        // A write while the new index is being filled: it goes to the old index only.
        write ??= api.stack.services.store.put('grant', [{ ...awarded, ...LIGHTHOUSE }]);
      })
      .finally(() => {
        done = true;
      });
    await expect(api.stack.rebuildIndex()).rejects.toBeInstanceOf(IndexRebuildInProgress);

    let rounds = 0;
    while (!done || rounds < 2) {
      const answers = await Promise.all(PROBES.map(async (path) => answerOf(await page(path))));
      expect(answers).toEqual(expected);
      rounds++;
    }
    const result: IndexRebuildResult = await rebuilding;
    await write;
    expect(rounds).toBeGreaterThan(2);
    expect(phases.has('fill')).toBe(true);
    expect(result.indexed).toEqual({ grant: TEST_CATALOGUE.grants, contract: TEST_CATALOGUE.contracts, funder: TEST_CATALOGUE.funders });
    expect(result.file).toBe('index-1.sqlite');
    // The write landed while the fill ran (it starts at the fill's first page, which has thousands of records to go): the catch-up brought it over.
    expect(result.caughtUp).toBe(1);

    expect(await foundBy('zanzibar lighthouse restoration')).toContain(awarded.id);
    for (const walk of walks) {
      const whole = await walkFrom(
        walk.path,
        (await page(walk.path)).pagination.next_cursor,
        (await page(walk.path)).results.map((r) => r.id),
      );
      expect(await walkFrom(walk.path, walk.cursor, walk.ids), walk.path).toEqual(whole);
    }

    // The old file is gone; the pointer names the new one, caught up.
    expect(indexFiles().filter((name) => !name.endsWith('-wal') && !name.endsWith('-shm'))).toEqual(['index-1.sqlite', INDEX_POINTER_FILE]);
    expect(pointer()).toEqual({ file: 'index-1.sqlite', caughtUp: true });
  }, 120_000);

  it('opens the rebuilt index after a restart, without rebuilding it', async () => {
    await api.close();
    messages.length = 0;
    api = await start();
    expect(swappable().current.wasCreated).toBe(false);
    expect(messages.join('\n')).not.toMatch(/rebuilt|caught up/);
    expect(await holdingEvery('zanzibar lighthouse restoration')).toHaveLength(1);
    expect((await page('/grants-api?opportunity_type=all&limit=1')).pagination.total).toBe(TEST_CATALOGUE.grants);
  }, 120_000);

  it('removes at start the files of a rebuild that died while filling', async () => {
    await api.close();
    writeFileSync(join(dataDir, 'index-2.sqlite'), 'a half-built index');
    writeFileSync(join(dataDir, 'index-2.sqlite-wal'), 'its log');
    writeFileSync(join(dataDir, `${INDEX_POINTER_FILE}.tmp`), '{"file": "index-2.sq');
    api = await start();
    expect(indexFiles().filter((name) => !name.endsWith('-wal') && !name.endsWith('-shm'))).toEqual(['index-1.sqlite', INDEX_POINTER_FILE]);
    expect(existsSync(join(dataDir, 'index-2.sqlite-wal'))).toBe(false);
    expect(swappable().current.wasCreated).toBe(false);
    expect((await page('/grants-api?opportunity_type=all&limit=1')).pagination.total).toBe(TEST_CATALOGUE.grants);
  }, 120_000);

  it('a rebuild stopped by close leaves the index it served current', async () => {
    let closing: Promise<void> | undefined;
    const rebuilding = api.stack.rebuildIndex(() => {
      closing ??= api.stack.close();
    });
    await expect(rebuilding).rejects.toThrow(/closed while the search index was being rebuilt/);
    await closing;
    expect(indexFiles().filter((name) => !name.endsWith('-wal') && !name.endsWith('-shm'))).toEqual(['index-1.sqlite', INDEX_POINTER_FILE]);
    expect(pointer()).toEqual({ file: 'index-1.sqlite', caughtUp: true });
    await api.close().catch(() => undefined); // the HTTP server (the stack is closed)
    api = await start();
    expect(swappable().current.wasCreated).toBe(false);
  }, 120_000);

  it('catches up at start when the process died after switching files but before catching up', async () => {
    // A write the current file never saw (the dead process sent it to the old index): in the store only.
    const client = api.stack.dynamoClient();
    const [lighthouse] = await foundBy('zanzibar lighthouse restoration');
    const awarded = (await page('/grants-api?opportunity_type=awarded&limit=2')).results.find((r) => r.id !== lighthouse) as unknown as Grant;
    await new DynamoRecordStore(client, LOCAL_TABLE_NAME).put('grant', [{ ...awarded, ...ORCHARD }]);
    client.destroy();
    expect(await foundBy('quillfeather heritage orchards')).not.toContain(awarded.id);
    await api.close();
    writeIndexPointer(dataDir, { file: 'index-1.sqlite', caughtUp: false });
    messages.length = 0;
    api = await start();
    expect(messages.join('\n')).toContain('caught up the search index a rebuild left unfinished');
    expect(await foundBy('quillfeather heritage orchards')).toContain(awarded.id);
    expect(pointer()).toEqual({ file: 'index-1.sqlite', caughtUp: true });
  }, 120_000);

  it('removeLocalIndex (admin local reindex, server stopped) deletes every index file and the pointer', async () => {
    await api.close();
    removeLocalIndex(dataDir);
    expect(indexFiles()).toEqual([]);
    messages.length = 0;
    api = await start();
    expect(swappable().current.wasCreated).toBe(true);
    expect(messages.join('\n')).toContain('rebuilt the search index from the record store');
    expect(indexFiles().filter((name) => !name.endsWith('-wal') && !name.endsWith('-shm'))).toEqual(['index.sqlite']);
    expect(await holdingEvery('zanzibar lighthouse restoration')).toHaveLength(1);
  }, 120_000);
});
