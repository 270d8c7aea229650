import { afterEach, describe, expect, it } from 'vitest';
import { IndexingRecordStore } from '../../lambdas/adapters/embedded/indexing-record-store';
import { SqliteSearchIndex } from '../../lambdas/adapters/embedded/sqlite-search-index';
import { SwappableSearchIndex } from '../../lambdas/adapters/embedded/swappable-search-index';
import { parseListQuery } from '../../lambdas/core/query/list-query';
import type { AnyRecord, Grant, RecordByKind, ResourceKind } from '../../lambdas/core/records';
import { reindexRecords } from '../../lambdas/core/use-cases/reindex-records';
import type { RecordStore, StoredVersion } from '../../lambdas/ports/record-store';
import { IndexRebuildInProgress, LocalIndexRebuilder, type RebuildPhase } from '../../local/index-rebuild';
import { type CatalogueSpec, generateContracts, generateFunders, generateGrants } from '../../local/synthetic-catalogue';
import { countingEmbedder, memoryEmbeddingCache } from '../support/embedding-doubles';

/**
 * The live rebuild's steps on an in-memory index over a store the test steers: the store's scan
 * waits for the test between pages, so writes and removals land in the middle of the fill, as a
 * request can while `npm start` rebuilds. (The data-folder side, files and restarts, is in
 * test/integration/live-index-rebuild.test.ts.)
 */

const TODAY = '2026-11-22';
const SPEC: CatalogueSpec = { seed: 7, today: TODAY, funders: 10, grants: 120, contracts: 40, awardedGrants: 10, awardedContracts: 5 };
const PAGE = 25;

/** A record store in memory whose scan calls `beforePage` before each page. */
class SteeredStore implements RecordStore {
  readonly records: Record<ResourceKind, Map<string, AnyRecord>> = { grant: new Map(), contract: new Map(), funder: new Map() };
  beforePage: (kind: ResourceKind, page: number) => Promise<void> = async () => {};

  async get<K extends ResourceKind>(kind: K, id: string): Promise<RecordByKind[K] | null> {
    return (this.records[kind].get(id) as RecordByKind[K] | undefined) ?? null;
  }
  async versions(): Promise<Map<string, StoredVersion>> {
    return new Map(); // every write is a creation to the indexer: fine for these tests
  }
  async put<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][]): Promise<void> {
    for (const record of records) this.records[kind].set(record.id, record);
  }
  delete(kind: ResourceKind, id: string): void {
    this.records[kind].delete(id);
  }
  async *scan<K extends ResourceKind>(kind: K): AsyncIterable<RecordByKind[K][]> {
    const all = [...this.records[kind].values()] as RecordByKind[K][];
    for (let i = 0, page = 0; i < all.length; i += PAGE, page++) {
      await this.beforePage(kind, page);
      yield all.slice(i, i + PAGE);
    }
  }
}

async function setUp(options: { catchUpByIdMax?: number } = {}) {
  const store = new SteeredStore();
  const funders = generateFunders(SPEC);
  await store.put('funder', funders);
  for (const batch of generateGrants(SPEC, funders)) await store.put('grant', batch);
  for (const batch of generateContracts(SPEC, funders)) await store.put('contract', batch);
  const embeddings = { embedder: countingEmbedder(16), cache: memoryEmbeddingCache() };
  const space = embeddings.embedder.space;
  const first = new SqliteSearchIndex({ filename: ':memory:', space });
  await reindexRecords(store, { index: first, embeddings });
  const index = new SwappableSearchIndex<SqliteSearchIndex>(first);
  // The local change feed over the steered store: writes reach whichever index is current.
  const feed = new IndexingRecordStore(store, { index, outbox: { append: async () => {} }, clock: { now: () => new Date(`${TODAY}T12:00:00Z`) }, embeddings });
  const rebuilder = new LocalIndexRebuilder({ space, index, store, embeddings, ...options }, ':memory:');
  opened.push(index);
  return { store, index, feed, embeddings, rebuilder, first };
}

const opened: SwappableSearchIndex<SqliteSearchIndex>[] = [];
afterEach(() => {
  for (const index of opened.splice(0)) index.current.close();
});

async function total(index: SwappableSearchIndex<SqliteSearchIndex>, params: Record<string, string[]>): Promise<number> {
  const query = parseListQuery('grant', { opportunity_type: ['all'], count_only: ['true'], ...params }, TODAY);
  return (await index.query('grant', query)).total;
}

/** `atPage` resolves the first time the scan reaches page 2 of grants, and holds the scan until `go` is called. */
function pauseTheFill(store: SteeredStore) {
  let reached!: () => void;
  let go!: () => void;
  const atPage = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const resumed = new Promise<void>((resolve) => {
    go = resolve;
  });
  store.beforePage = async (kind, page) => {
    if (kind === 'grant' && page === 2) {
      reached();
      await resumed;
    }
  };
  return { atPage, go };
}

describe('LocalIndexRebuilder', () => {
  it('serves every query from the old index during the fill, and ends with writes and removals made during it', async () => {
    const { store, index, feed, rebuilder, first } = await setUp();
    const all = await total(index, {});
    const grants = [...store.records.grant.values()] as Grant[];
    const early = grants[0]!; // copied into the new index before the writes below
    const late = grants[grants.length - 1]!; // copied after them
    const fill = pauseTheFill(store);
    const progress: [ResourceKind, number, RebuildPhase][] = [];
    const rebuilding = rebuilder.rebuild((kind, n, phase) => progress.push([kind, n, phase]));
    await fill.atPage;

    await feed.put('grant', [
      { ...early, title: 'Zanzibar Lighthouse Keepers Fund' },
      { ...late, title: 'Quillfeather Archive Grants' },
    ]);
    store.delete('grant', grants[1]!.id);
    await index.remove('grant', [grants[1]!.id]); // as the stream's REMOVE would
    expect(index.current).toBe(first); // still serving from the old index, in full
    expect(await total(index, { search: ['zanzibar'] })).toBe(1);
    expect(await total(index, {})).toBe(all - 1);
    fill.go();

    const result = await rebuilding;
    expect(index.current).not.toBe(first);
    expect(result).toMatchObject({ caughtUp: 3, file: ':memory:' });
    expect(result.indexed.grant).toBe(SPEC.grants);
    expect(await total(index, {})).toBe(all - 1);
    expect(await total(index, { search: ['zanzibar'] })).toBe(1);
    expect(await total(index, { search: ['quillfeather'] })).toBe(1);
    expect(progress.filter(([, , phase]) => phase === 'fill').at(-1)).toEqual(['funder', SPEC.funders, 'fill']);
    expect(progress.filter(([, , phase]) => phase === 'catch-up')).toEqual([['grant', 3, 'catch-up']]);
    // The old index was closed once idle.
    await expect(first.query('grant', parseListQuery('grant', { opportunity_type: ['all'] }, TODAY))).rejects.toThrow(/not open/);
  });

  it('catches up with one pass over the store when many records were written, removals included', async () => {
    const { store, index, feed, rebuilder } = await setUp({ catchUpByIdMax: 1 });
    const all = await total(index, {});
    const grants = [...store.records.grant.values()] as Grant[];
    const fill = pauseTheFill(store);
    const rebuilding = rebuilder.rebuild();
    await fill.atPage;
    await feed.put(
      'grant',
      grants.slice(0, 3).map((grant, i) => ({ ...grant, title: `Marblewing Heritage Grant ${i}` })),
    );
    store.delete('grant', grants[3]!.id);
    await index.remove('grant', [grants[3]!.id]);
    fill.go();
    expect((await rebuilding).caughtUp).toBe(4);
    expect(await total(index, {})).toBe(all - 1);
    expect(await total(index, { search: ['marblewing'] })).toBe(3);
  });

  it('a write made while the catch-up holds writes waits, then lands in the new index', async () => {
    const { store, index, feed, rebuilder } = await setUp();
    const grants = [...store.records.grant.values()] as Grant[];
    const fill = pauseTheFill(store);
    const rebuilding = rebuilder.rebuild();
    await fill.atPage;
    await feed.put('grant', [{ ...grants[0]!, title: 'Amberline Prairie Grant' }]);
    // The next write starts as the fill ends: whether it lands before or after the switch, it ends in the new index.
    fill.go();
    const racing = feed.put('grant', [{ ...grants[0]!, title: 'Cobaltreef Coral Grant' }]);
    await Promise.all([rebuilding, racing]);
    expect(await total(index, { search: ['amberline'] })).toBe(0);
    expect(await total(index, { search: ['cobaltreef'] })).toBe(1);
  });

  it('refuses a second rebuild while one runs, in one line', async () => {
    const { store, rebuilder } = await setUp();
    const fill = pauseTheFill(store);
    const rebuilding = rebuilder.rebuild();
    await fill.atPage;
    const second = rebuilder.rebuild();
    await expect(second).rejects.toBeInstanceOf(IndexRebuildInProgress);
    await expect(second).rejects.toThrow(/^the search index is already being rebuilt \(since \d{4}-\d\d-\d\dT[\d:.]+Z\): wait for that rebuild to finish/);
    fill.go();
    await rebuilding;
    await expect(rebuilder.rebuild()).resolves.toMatchObject({ caughtUp: 0 }); // and one after it runs
  });

  it('a fill that fails leaves the old index serving, with the writes it got meanwhile', async () => {
    const { store, index, feed, rebuilder, first } = await setUp();
    const grants = [...store.records.grant.values()] as Grant[];
    store.beforePage = async (kind, page) => {
      if (kind === 'contract' && page === 1) throw new Error('the store went away');
    };
    const rebuilding = rebuilder.rebuild();
    await feed.put('grant', [{ ...grants[5]!, title: 'Saffronmere Valley Grant' }]);
    await expect(rebuilding).rejects.toThrow('the store went away');
    expect(index.current).toBe(first);
    expect(await total(index, { search: ['saffronmere'] })).toBe(1);
    // Writes are no longer noted for a rebuild that is over.
    store.beforePage = async () => {};
    await expect(rebuilder.rebuild()).resolves.toMatchObject({ caughtUp: 0 });
  });

  it('close stops a rebuild still filling; the old index stays current', async () => {
    const { store, index, rebuilder, first } = await setUp();
    const fill = pauseTheFill(store);
    const rebuilding = rebuilder.rebuild();
    await fill.atPage;
    const closing = rebuilder.close();
    fill.go();
    await expect(rebuilding).rejects.toThrow(/closed while the search index was being rebuilt/);
    await closing;
    expect(index.current).toBe(first);
    await expect(rebuilder.rebuild()).rejects.toThrow(/closing/);
  });

  it('embeds nothing: the fill and the catch-up take their vectors from the cache', async () => {
    const { store, rebuilder, embeddings, feed } = await setUp();
    const grants = [...store.records.grant.values()] as Grant[];
    const fill = pauseTheFill(store);
    const rebuilding = rebuilder.rebuild();
    await fill.atPage;
    await feed.put('grant', [{ ...grants[0]!, title: 'Violetmoor Study Grant' }]); // embedded here, by the write
    const embeddedBefore = embeddings.embedder.embedded.length;
    fill.go();
    expect((await rebuilding).caughtUp).toBe(1);
    expect(embeddings.embedder.embedded.length).toBe(embeddedBefore);
  });
});
