import { changeEventOf, type RecordChange } from '../change-feed';
import type { RecordByKind, ResourceKind } from '../records';
import { RESOURCE_KINDS } from '../records';
import type { ChangeOutbox } from '../../ports/change-outbox';
import type { Clock } from '../../ports/clock';
import type { SearchIndex } from '../../ports/search-index';
import { embedRecords, type EmbeddingPorts } from './embed-records';

export interface IndexerPorts {
  index: SearchIndex;
  outbox: Pick<ChangeOutbox, 'append'>;
  clock: Clock;
  /** Record vectors are made here, at index time, so a query never waits for a record's embedding. */
  embeddings: EmbeddingPorts;
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
    if (upserts.length > 0) await ports.index.upsert(kind as ResourceKind, upserts, await embedRecords(kind, upserts, ports.embeddings));
    if (removals.length > 0) await ports.index.remove(kind, removals);
  }
  const now = ports.clock.now();
  const events = changes.map((change) => changeEventOf(change, now)).filter((event) => event !== null);
  if (events.length > 0) await ports.outbox.append(events);
  return events.length;
}
