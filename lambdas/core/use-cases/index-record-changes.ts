import type { ChangeOutbox } from '../../ports/change-outbox';
import type { Clock } from '../../ports/clock';
import type { MetricsRecorder } from '../../ports/metrics';
import type { SearchIndex } from '../../ports/search-index';
import type { VectorBacklog } from '../../ports/vector-backlog';
import { changeEventOf, type RecordChange } from '../change-feed';
import { METRIC_NAMES } from '../metric-names';
import type { RecordByKind, ResourceKind } from '../records';
import { RESOURCE_KINDS } from '../records';
import { type EmbeddingPorts, embedRecords } from './embed-records';

export interface IndexerPorts {
  index: SearchIndex;
  outbox: Pick<ChangeOutbox, 'append'>;
  clock: Clock;
  /** Record vectors are made here, at index time, so a query never waits for a record's embedding. */
  embeddings: EmbeddingPorts;
  /**
   * Where records indexed without their vector wait for it. With it, an embedding model that fails
   * does not stop the index: the records are written without vectors (listed and found by keyword
   * search at once) and backfilled later (backfill-vectors.ts). Without it, the failure is thrown.
   */
  vectorBacklog?: VectorBacklog;
  metrics?: MetricsRecorder;
}

/** The records' vectors, or, when the model fails and a backlog is there, none (the records wait in it). */
async function vectorsOrBacklog<K extends ResourceKind>(
  kind: K,
  records: readonly RecordByKind[K][],
  ports: IndexerPorts,
): Promise<{ vectors: (Float32Array | null)[]; waiting: boolean }> {
  try {
    return { vectors: await embedRecords(kind, records, ports.embeddings), waiting: false };
  } catch (error) {
    if (!ports.vectorBacklog) throw error;
    ports.metrics?.record(METRIC_NAMES.recordsIndexedWithoutVector, 'Count', records.length);
    return { vectors: records.map(() => null), waiting: true };
  }
}

/** Each record's last change among `changes` (in stream order): what the index must end up holding. */
function lastChangePerRecord(changes: readonly RecordChange[]): RecordChange[] {
  const last = new Map<string, RecordChange>();
  for (const change of changes) {
    const key = `${change.kind}#${change.id}`;
    last.delete(key);
    last.set(key, change);
  }
  return [...last.values()];
}

/**
 * The indexer: the one place a write becomes visible to search and becomes a change event. In AWS
 * the DynamoDB stream calls it with a batch; locally the record store calls it after each write.
 * The index gets each record's last state only, embedded once, in one write per kind; the outbox
 * gets an event for every change. The index is updated before the events are queued, so a
 * consumer told of a change can already find the record.
 */
export async function indexRecordChanges(allChanges: readonly RecordChange[], ports: IndexerPorts): Promise<number> {
  // A write that changed nothing is no change (DynamoDB Streams do not even report one).
  const changes = allChanges.filter((change) => !change.after || change.before?.contentHash !== change.after.contentHash);
  const finalStates = lastChangePerRecord(changes);
  for (const kind of RESOURCE_KINDS) {
    const ofKind = finalStates.filter((change) => change.kind === kind);
    const upserts = ofKind.flatMap((change) => (change.after ? [change.after.record as RecordByKind[typeof kind]] : []));
    const removals = ofKind.filter((change) => !change.after).map((change) => change.id);
    if (upserts.length > 0) {
      const { vectors, waiting } = await vectorsOrBacklog(kind, upserts, ports);
      // Into the backlog first: a record indexed without its vector is never forgotten.
      if (waiting)
        await ports.vectorBacklog!.add(
          kind,
          upserts.map((record) => record.id),
        );
      await ports.index.upsert(kind as ResourceKind, upserts, vectors);
    }
    if (removals.length > 0) await ports.index.remove(kind, removals);
  }
  const now = ports.clock.now();
  const events = changes.map((change) => changeEventOf(change, now)).filter((event) => event !== null);
  if (events.length > 0) await ports.outbox.append(events);
  return events.length;
}
