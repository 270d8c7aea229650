import { type Clock, utcDate } from '../../ports/clock';
import type { RecordStore, StoredVersion } from '../../ports/record-store';
import { sourceFormatOf, unrecognisedReason } from '../ingest/formats';
import { FunderDirectory } from '../ingest/funder-directory';
import { contentHashOf, recordIdOf } from '../ingest/identity';
import type { FunderReference, MappedRecord, SourceFormat, SourceRecord } from '../ingest/mapped-record';
import { RecordRejected } from '../ingest/rejection';
import { type AnyRecord, type Funder, RECORD_SCHEMAS, RESOURCE_KINDS, type RecordByKind, type ResourceKind } from '../records';

/**
 * Ingest: source records in, our records out, through the store (whose writes feed the indexer and
 * the change events). Each record is mapped, linked to its funder, validated against the public
 * schema and compared by content hash, so a write is created, updated or unchanged, and unchanged
 * records are not rewritten. A record that fails any step is rejected with a reason and the run
 * goes on; since a record is one item, nothing is ever half-written.
 */

/** One record read from a file, or why it could not be read (a malformed line or element). */
export interface SourceItem {
  /** Where it came from, e.g. `grants.jsonl:17`, for the rejection list. */
  location: string;
  record?: SourceRecord;
  error?: string;
}

export interface IngestRejection {
  location: string;
  format: string | null;
  reason: string;
}

export type WriteOutcome = 'created' | 'updated' | 'unchanged';
export type OutcomeCounts = Record<WriteOutcome, number>;

export interface IngestSummary {
  read: number;
  rejected: number;
  byKind: Record<ResourceKind, OutcomeCounts>;
  /** Per importer: records imported (any outcome) and rejected. */
  byFormat: Record<string, { imported: number; rejected: number }>;
  /** Funders created because a record named an agency no funder described. */
  fundersFromAgencyNames: number;
}

export interface IngestOptions {
  /** Use this importer for every record instead of recognising each. */
  format?: SourceFormat;
  /** Records per read-compare-write round trip. */
  batchSize?: number;
  onRejected?: (rejection: IngestRejection) => void;
  /** Called after each batch with the number of records processed so far. */
  onProgress?: (processed: number) => void;
}

export interface IngestPorts {
  store: RecordStore;
  clock: Clock;
}

const DEFAULT_BATCH_SIZE = 200;
/**
 * DynamoDB refuses items over 400 KB, and a record travels whole in its item and again in its
 * change event, so anything near the limit is rejected up front rather than failing its batch.
 */
export const MAX_RECORD_BYTES = 350_000;
const zeroCounts = (): OutcomeCounts => ({ created: 0, updated: 0, unchanged: 0 });

async function* batchesOf<T>(items: AsyncIterable<T>, size: number): AsyncIterable<T[]> {
  let batch: T[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

function schemaProblems(kind: ResourceKind, record: AnyRecord): string | null {
  const result = RECORD_SCHEMAS[kind].safeParse(record);
  if (result.success) return null;
  return result.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || kind}: ${issue.message}`)
    .join('; ');
}

interface Staged {
  location: string;
  format: string;
  kind: ResourceKind;
  record: AnyRecord;
  /** Set while the record's created_at still needs the stored value or the import time. */
  createdAtUnknown: boolean;
  funder?: FunderReference;
}

export async function ingestRecords(items: AsyncIterable<SourceItem>, ports: IngestPorts, options: IngestOptions = {}): Promise<IngestSummary> {
  const { store, clock } = ports;
  const today = utcDate(clock);
  const importedAt = clock
    .now()
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
  const summary: IngestSummary = {
    read: 0,
    rejected: 0,
    byKind: { grant: zeroCounts(), contract: zeroCounts(), funder: zeroCounts() },
    byFormat: {},
    fundersFromAgencyNames: 0,
  };
  const formatCounts = (format: string) => (summary.byFormat[format] ??= { imported: 0, rejected: 0 });
  const rejectItem = (location: string, format: string | null, reason: string) => {
    summary.rejected++;
    if (format) formatCounts(format).rejected++;
    options.onRejected?.({ location, format, reason });
  };

  const knownFunders: Funder[] = [];
  for await (const page of store.scan('funder')) knownFunders.push(...page);
  const directory = new FunderDirectory(knownFunders);
  // Hashes written earlier in this run, so a record seen twice compares against its own last write.
  const writtenThisRun = new Map<string, StoredVersion>();

  for await (const batch of batchesOf(items, options.batchSize ?? DEFAULT_BATCH_SIZE)) {
    summary.read += batch.length;
    const staged: Staged[] = [];
    for (const item of batch) {
      if (!item.record) {
        rejectItem(item.location, null, item.error ?? 'unreadable record');
        continue;
      }
      const format = options.format ?? sourceFormatOf(item.record);
      if (!format) {
        rejectItem(item.location, null, unrecognisedReason(item.record));
        continue;
      }
      let mapped: MappedRecord;
      try {
        mapped = format.map(item.record, { today });
      } catch (error) {
        const reason = error instanceof RecordRejected ? error.reason : `importer failed: ${(error as Error).message}`;
        rejectItem(item.location, format.id, reason);
        continue;
      }
      const { created_at: createdAt, ...fields } = mapped.record;
      const id = recordIdOf(mapped.kind, fields.source, fields.source_id);
      staged.push({
        location: item.location,
        format: format.id,
        kind: mapped.kind,
        record: { ...fields, id, created_at: createdAt ?? importedAt, ...(mapped.kind === 'funder' ? {} : { funder_id: '', funder_name: '' }) } as AnyRecord,
        createdAtUnknown: createdAt === null,
        funder: mapped.kind === 'funder' ? undefined : mapped.funder,
      });
    }

    const stored = new Map<string, StoredVersion>();
    for (const kind of RESOURCE_KINDS) {
      const ids = staged.filter((s) => s.kind === kind && !writtenThisRun.has(`${kind}#${s.record.id}`)).map((s) => s.record.id);
      if (ids.length === 0) continue;
      for (const [id, version] of await store.versions(kind, ids)) stored.set(`${kind}#${id}`, version);
    }
    const versionOf = (kind: ResourceKind, id: string) => writtenThisRun.get(`${kind}#${id}`) ?? stored.get(`${kind}#${id}`);

    // Funders first, so records later in the batch link to funders the batch brings.
    const accepted: { kind: ResourceKind; record: AnyRecord; format: string | null }[] = [];
    for (const entry of [...staged.filter((s) => s.kind === 'funder'), ...staged.filter((s) => s.kind !== 'funder')]) {
      const { kind } = entry;
      let record = entry.record;
      if (entry.createdAtUnknown) record = { ...record, created_at: versionOf(kind, record.id)?.createdAt ?? importedAt };
      let newFunder: Funder | null = null;
      if (entry.funder) {
        const resolved = directory.resolve(entry.funder, { source: record.source, createdAt: importedAt });
        if (!resolved) {
          rejectItem(entry.location, entry.format, 'no funder: the record names no agency');
          continue;
        }
        record = { ...record, funder_id: resolved.funder.id, funder_name: resolved.funder.name } as AnyRecord;
        if (resolved.created) newFunder = resolved.funder;
      }
      const problems = schemaProblems(kind, record) ?? (newFunder && schemaProblems('funder', newFunder));
      if (problems) {
        rejectItem(entry.location, entry.format, `invalid record: ${problems}`);
        continue;
      }
      const bytes = Buffer.byteLength(JSON.stringify(record));
      if (bytes > MAX_RECORD_BYTES) {
        rejectItem(entry.location, entry.format, `record too large: ${bytes} bytes as JSON (at most ${MAX_RECORD_BYTES})`);
        continue;
      }
      if (newFunder) {
        directory.add(newFunder);
        summary.fundersFromAgencyNames++;
        accepted.push({ kind: 'funder', record: newFunder, format: null });
      }
      if (kind === 'funder') directory.add(record as Funder);
      formatCounts(entry.format).imported++;
      accepted.push({ kind, record, format: entry.format });
    }

    const toWrite: Record<ResourceKind, Map<string, AnyRecord>> = { grant: new Map(), contract: new Map(), funder: new Map() };
    for (const { kind, record } of accepted) {
      const contentHash = contentHashOf(record);
      const before = versionOf(kind, record.id);
      const outcome: WriteOutcome = !before ? 'created' : before.contentHash === contentHash ? 'unchanged' : 'updated';
      summary.byKind[kind][outcome]++;
      writtenThisRun.set(`${kind}#${record.id}`, { contentHash, createdAt: record.created_at });
      if (outcome !== 'unchanged') toWrite[kind].set(record.id, record);
    }
    for (const kind of ['funder', 'grant', 'contract'] as const) {
      const records = [...toWrite[kind].values()] as RecordByKind[typeof kind][];
      if (records.length > 0) await store.put(kind, records);
    }
    options.onProgress?.(summary.read);
  }
  return summary;
}
