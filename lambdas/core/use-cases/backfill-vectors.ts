import type { MetricsRecorder } from '../../ports/metrics';
import type { RecordStore } from '../../ports/record-store';
import type { SearchIndex } from '../../ports/search-index';
import type { VectorBacklog } from '../../ports/vector-backlog';
import { contentHashOf } from '../ingest/identity';
import { METRIC_NAMES } from '../metric-names';
import { RESOURCE_KINDS, type RecordByKind, type ResourceKind } from '../records';
import { type EmbeddingPorts, embedRecords } from './embed-records';

export interface BackfillPorts {
  store: Pick<RecordStore, 'get' | 'versions'>;
  index: Pick<SearchIndex, 'upsert'>;
  embeddings: EmbeddingPorts;
  backlog: VectorBacklog;
  metrics?: MetricsRecorder;
}

export interface BackfillResult {
  /** Records that got their vector. */
  backfilled: number;
  /** Records found waiting (up to the batch per kind). */
  waiting: number;
  /** Records found waiting that no longer exist (removed from the backlog). */
  gone: number;
}

/**
 * Gives the records the indexer wrote without a vector (the model was failing) their vector: each
 * kind's waiting records, up to `batch`, read again from the store (the latest version), embedded,
 * written to the index and taken off the backlog. A model still failing throws before anything
 * leaves the backlog, so the next run tries again. A record that changed while it was embedded is
 * left alone and left waiting: the indexer has written (or is writing) its newer version, and the
 * next run finds it again if that one also went in without a vector.
 */
export async function backfillVectors(ports: BackfillPorts, batch = 500): Promise<BackfillResult> {
  const result: BackfillResult = { backfilled: 0, waiting: 0, gone: 0 };
  const waiting = await Promise.all(RESOURCE_KINDS.map(async (kind) => ({ kind, ids: await ports.backlog.list(kind, batch) })));
  result.waiting = waiting.reduce((sum, { ids }) => sum + ids.length, 0);
  // Before embedding: a run the model still fails reports what waits too (the vectors-waiting alarm).
  ports.metrics?.record(METRIC_NAMES.vectorBacklog, 'Count', result.waiting);
  for (const { kind, ids } of waiting) {
    if (ids.length === 0) continue;
    const found = await Promise.all(ids.map((id) => ports.store.get(kind as ResourceKind, id)));
    const records = found.filter((record): record is RecordByKind[typeof kind] => record !== null);
    const gone = ids.filter((_, i) => found[i] === null);
    const vectors = records.length > 0 ? await embedRecords(kind, records, ports.embeddings) : [];
    const now = await ports.store.versions(
      kind,
      records.map((record) => record.id),
    );
    const unchanged = records.flatMap((record, i) => (now.get(record.id)?.contentHash === contentHashOf(record) ? [{ record, vector: vectors[i]! }] : []));
    if (unchanged.length > 0)
      await ports.index.upsert(
        kind,
        unchanged.map((u) => u.record),
        unchanged.map((u) => u.vector),
      );
    result.backfilled += unchanged.length;
    result.gone += gone.length;
    await ports.backlog.remove(kind, [...gone, ...unchanged.map((u) => u.record.id)]);
  }
  ports.metrics?.record(METRIC_NAMES.vectorsBackfilled, 'Count', result.backfilled);
  return result;
}
