import type { RecordChange } from '../../core/change-feed';
import { contentHashOf } from '../../core/ingest/identity';
import type { RecordByKind, ResourceKind } from '../../core/records';
import { type IndexerPorts, indexRecordChanges } from '../../core/use-cases/index-record-changes';
import type { RecordStore, StoredVersion } from '../../ports/record-store';
import type { WriteJournal } from './write-journal';

/**
 * Records per journaled write: a journal entry holds an id and a hash per record, and stays far
 * below DynamoDB's 400 KB item limit at this size.
 */
const JOURNALED_WRITE_MAX = 1_000;

/**
 * The local change feed. In AWS a DynamoDB stream hands each write (old and new image) to the
 * indexer; dynalite has no streams, so locally this store reads the stored versions first, writes,
 * and hands the same before/after pairs to the same indexer code. With a journal, each write is
 * journaled before it starts and closed once indexed, so a process that dies in between leaves an
 * entry that `replayJournal` finishes at the next start (the stream's durability).
 */
export class IndexingRecordStore implements RecordStore {
  constructor(
    private readonly store: RecordStore,
    private readonly indexer: IndexerPorts,
    private readonly journal?: WriteJournal,
  ) {}

  get<K extends ResourceKind>(kind: K, id: string): Promise<RecordByKind[K] | null> {
    return this.store.get(kind, id);
  }

  versions(kind: ResourceKind, ids: readonly string[]): Promise<Map<string, StoredVersion>> {
    return this.store.versions(kind, ids);
  }

  async put<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][]): Promise<void> {
    for (let i = 0; i < records.length; i += JOURNALED_WRITE_MAX) await this.putPart(kind, records.slice(i, i + JOURNALED_WRITE_MAX));
  }

  private async putPart<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][]): Promise<void> {
    const before = await this.store.versions(
      kind,
      records.map((record) => record.id),
    );
    const entryId = await this.journal?.open(kind, new Map(records.map((record) => [record.id, before.get(record.id)?.contentHash ?? null])));
    await this.store.put(kind, records);
    await indexRecordChanges(
      records.map((record) => {
        const stored = before.get(record.id);
        return {
          kind,
          id: record.id,
          before: stored ? { contentHash: stored.contentHash } : null,
          after: { record, contentHash: contentHashOf(record) },
        };
      }),
      this.indexer,
    );
    if (entryId !== undefined) await this.journal!.close(entryId);
  }

  /**
   * Finishes the writes a stopped process left open: each journaled record is read back from the
   * store and handed to the indexer against the hash it had before the write, so a write that
   * landed (wholly or in part) is indexed and announced, and one that did not changes nothing.
   * Indexing and events are idempotent (the same event ids), so replaying a write that had in fact
   * finished is harmless. Returns the number of entries replayed.
   */
  async replayJournal(): Promise<number> {
    if (!this.journal) return 0;
    let replayed = 0;
    for await (const entry of this.journal.pending()) {
      const changes: RecordChange[] = [];
      for (const [id, beforeHash] of Object.entries(entry.before)) {
        const record = await this.store.get(entry.kind, id);
        if (!record) continue; // never written (put only creates or replaces)
        changes.push({
          kind: entry.kind,
          id,
          before: beforeHash === null ? null : { contentHash: beforeHash },
          after: { record, contentHash: contentHashOf(record) },
        });
      }
      await indexRecordChanges(changes, this.indexer);
      await this.journal.close(entry.entry_id);
      replayed++;
    }
    return replayed;
  }

  scan<K extends ResourceKind>(kind: K): AsyncIterable<RecordByKind[K][]> {
    return this.store.scan(kind);
  }
}
