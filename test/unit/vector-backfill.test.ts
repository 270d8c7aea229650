import { describe, expect, it } from 'vitest';
import { contentHashOf } from '../../lambdas/core/ingest/identity';
import type { Funder, RecordByKind, ResourceKind } from '../../lambdas/core/records';
import { backfillVectors } from '../../lambdas/core/use-cases/backfill-vectors';
import { type IndexerPorts, indexRecordChanges } from '../../lambdas/core/use-cases/index-record-changes';
import type { Embedder } from '../../lambdas/ports/embedder';
import type { StoredVersion } from '../../lambdas/ports/record-store';
import type { VectorBacklog } from '../../lambdas/ports/vector-backlog';
import { countingEmbedder, memoryEmbeddingCache } from '../support/embedding-doubles';
import { recordingMetrics } from '../support/recording-metrics';

/**
 * An embedding model that fails does not stop the index: records go in without their vector, wait
 * in the backlog, and the backfill gives them their vector once the model answers again.
 */

const funder = (id: string, name: string): Funder => ({
  id,
  name,
  website: null,
  summary: `${name} funds research.`,
  created_at: '2024-01-01T00:00:00Z',
  source: 'test',
  source_id: id,
});

function memoryBacklog(): VectorBacklog & { ids: Map<ResourceKind, Set<string>> } {
  const ids = new Map<ResourceKind, Set<string>>();
  const of = (kind: ResourceKind) => ids.get(kind) ?? ids.set(kind, new Set()).get(kind)!;
  return {
    ids,
    async add(kind, list) {
      for (const id of list) of(kind).add(id);
    },
    async list(kind, limit) {
      return [...of(kind)].slice(0, limit);
    },
    async remove(kind, list) {
      for (const id of list) of(kind).delete(id);
    },
  };
}

/** An embedder that fails while `down` is set. */
function switchableEmbedder(): Embedder & { down: boolean; embedded: string[] } {
  const inner = countingEmbedder();
  const embedder = {
    down: true,
    embedded: inner.embedded,
    space: inner.space,
    async embed(texts: readonly string[]) {
      if (embedder.down) throw new Error('ThrottlingException (HTTP 429)');
      return inner.embed(texts);
    },
  };
  return embedder;
}

function world() {
  const indexed = new Map<string, { record: unknown; vector: Float32Array | null }>();
  const stored = new Map<string, Funder>();
  const embedder = switchableEmbedder();
  const backlog = memoryBacklog();
  const metrics = recordingMetrics();
  const embeddings = { embedder, cache: memoryEmbeddingCache() };
  const index = {
    async upsert<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][], vectors?: readonly (Float32Array | null)[]) {
      records.forEach((record, i) => indexed.set(`${kind}#${record.id}`, { record, vector: vectors?.[i] ?? null }));
    },
  };
  const store = {
    async get<K extends ResourceKind>(_kind: K, id: string) {
      return (stored.get(id) ?? null) as RecordByKind[K] | null;
    },
    async versions(_kind: ResourceKind, ids: readonly string[]) {
      return new Map(
        ids.flatMap((id): [string, StoredVersion][] => (stored.has(id) ? [[id, { contentHash: contentHashOf(stored.get(id)!), createdAt: '' }]] : [])),
      );
    },
  };
  const indexer: IndexerPorts = {
    index: {
      ...index,
      async query() {
        throw new Error('not used');
      },
      async remove() {},
    },
    outbox: { append: async () => {} },
    clock: { now: () => new Date('2026-11-26T00:00:00Z') },
    embeddings,
    vectorBacklog: backlog,
    metrics,
  };
  const write = async (record: Funder) => {
    stored.set(record.id, record);
    await indexRecordChanges([{ kind: 'funder', id: record.id, before: null, after: { record, contentHash: contentHashOf(record) } }], indexer);
  };
  return { indexed, stored, embedder, backlog, metrics, embeddings, index, store, indexer, write };
}

describe('indexing through an embedding outage', () => {
  it('writes records without their vector while the model fails, counts them, and keeps them in the backlog', async () => {
    const w = world();
    await w.write(funder('f-1', 'National Science Foundation'));
    expect(w.indexed.get('funder#f-1')).toEqual({ record: w.stored.get('f-1'), vector: null });
    expect([...w.backlog.ids.get('funder')!]).toEqual(['f-1']);
    expect(w.metrics.recorded.map((m) => [m.name, m.value])).toEqual([['RecordsIndexedWithoutVector', 1]]);
  });

  it('still throws without a backlog: a record is never indexed without its vector and forgotten', async () => {
    const w = world();
    const { vectorBacklog: _backlog, ...withoutBacklog } = w.indexer;
    await expect(
      indexRecordChanges([{ kind: 'funder', id: 'f-1', before: null, after: { record: funder('f-1', 'A'), contentHash: 'h' } }], withoutBacklog),
    ).rejects.toThrow('ThrottlingException');
    expect(w.indexed.size).toBe(0);
  });

  it('backfills once the model answers: each waiting record embedded from its stored version, written, and taken off the backlog', async () => {
    const w = world();
    await w.write(funder('f-1', 'National Science Foundation'));
    await w.write(funder('f-2', 'Office of Science'));
    // Still failing: nothing leaves the backlog.
    await expect(backfillVectors({ store: w.store, index: w.index, embeddings: w.embeddings, backlog: w.backlog })).rejects.toThrow('ThrottlingException');
    expect(w.backlog.ids.get('funder')!.size).toBe(2);

    w.embedder.down = false;
    // f-2 was deleted meanwhile: it leaves the backlog without an index write.
    w.stored.delete('f-2');
    const result = await backfillVectors({ store: w.store, index: w.index, embeddings: w.embeddings, backlog: w.backlog, metrics: w.metrics });
    expect(result).toEqual({ backfilled: 1, waiting: 2, gone: 1 });
    expect(w.indexed.get('funder#f-1')!.vector).toBeInstanceOf(Float32Array);
    expect(w.backlog.ids.get('funder')!.size).toBe(0);
    expect(w.metrics.recorded.slice(-2).map((m) => [m.name, m.value])).toEqual([
      ['VectorBacklog', 2],
      ['VectorsBackfilled', 1],
    ]);
    await expect(backfillVectors({ store: w.store, index: w.index, embeddings: w.embeddings, backlog: w.backlog })).resolves.toEqual({
      backfilled: 0,
      waiting: 0,
      gone: 0,
    });
  });

  it('leaves a record that changed while it was embedded to the indexer, and waiting', async () => {
    const w = world();
    await w.write(funder('f-1', 'National Science Foundation'));
    w.embedder.down = false;
    const renamed = funder('f-1', 'U.S. National Science Foundation');
    const store = {
      ...w.store,
      // The record changes between the backfill's read and its write.
      async versions(kind: ResourceKind, ids: readonly string[]) {
        w.stored.set('f-1', renamed);
        return w.store.versions(kind, ids);
      },
    };
    const result = await backfillVectors({ store, index: w.index, embeddings: w.embeddings, backlog: w.backlog });
    expect(result).toEqual({ backfilled: 0, waiting: 1, gone: 0 });
    expect(w.indexed.get('funder#f-1')!.vector).toBeNull();
    expect([...w.backlog.ids.get('funder')!]).toEqual(['f-1']);
  });
});
