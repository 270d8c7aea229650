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

/**
 * The indexer: the one place a write becomes visible to search and becomes a change event. In AWS
 * the DynamoDB stream calls it; locally the record store calls it after each write. The index is
 * updated before the event is queued, so a consumer told of a change can already find the record.
 */
export async function indexRecordChanges(allChanges: readonly RecordChange[], ports: IndexerPorts): Promise<number> {
  // A write that changed nothing is no change (DynamoDB Streams do not even report one).
  const changes = allChanges.filter((change) => !change.after || change.before?.contentHash !== change.after.contentHash);
  for (const kind of RESOURCE_KINDS) {
    const ofKind = changes.filter((change) => change.kind === kind);
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
