import { marshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBRecord, DynamoDBStreamEvent, AttributeValue as StreamAttributeValue } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../lambdas/core/change-feed';
import { contentHashOf } from '../../lambdas/core/ingest/identity';
import type { Funder, RecordByKind, ResourceKind } from '../../lambdas/core/records';
import { streamIndexerHandler } from '../../lambdas/http/stream-indexer';
import type { SearchIndex } from '../../lambdas/ports/search-index';
import { countingEmbedder, memoryEmbeddingCache } from '../support/embedding-doubles';

/**
 * The AWS indexer's handler on DynamoDB stream events as Lambda delivers them (both images,
 * marshalled), with in-memory ports: which records reach the index, which events the outbox gets,
 * and which stream records are reported back as failed.
 */

const funder = (id: string, name: string): Funder => ({
  id,
  name,
  website: null,
  summary: null,
  created_at: '2024-01-01T00:00:00Z',
  source: 'sam.gov',
  source_id: id,
});
const item = (record: Funder, extra: Record<string, unknown> = {}) => ({
  pk: `funder#${record.id}`,
  sk: 'record',
  entity: 'funder',
  funder_key: record.id,
  content_hash: contentHashOf(record),
  ...record,
  ...extra,
});
const image = (value: Record<string, unknown>) => marshall(value, { removeUndefinedValues: true }) as Record<string, StreamAttributeValue>;

let sequence = 100;
function streamRecord(
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  keys: { pk: string; sk: string },
  oldItem?: Record<string, unknown>,
  newItem?: Record<string, unknown>,
): DynamoDBRecord {
  return {
    eventName,
    dynamodb: {
      Keys: image(keys),
      ...(oldItem ? { OldImage: image(oldItem) } : {}),
      ...(newItem ? { NewImage: image(newItem) } : {}),
      SequenceNumber: String(sequence++),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

function memoryPorts(failOn: string) {
  const indexed = new Map<string, unknown>();
  const vectors = new Map<string, Float32Array | null>();
  const removed: string[] = [];
  const events: ChangeEvent[] = [];
  /** The ids of each upsert call, one list per call (one `_bulk` each in OpenSearch). */
  const upsertCalls: string[][] = [];
  const index: SearchIndex = {
    async query() {
      throw new Error('not used');
    },
    async upsert<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][], recordVectors?: readonly (Float32Array | null)[]) {
      upsertCalls.push(records.map((record) => record.id));
      records.forEach((record, i) => {
        if (record.id === failOn) throw new Error('index refused');
        indexed.set(`${kind}#${record.id}`, record);
        vectors.set(`${kind}#${record.id}`, recordVectors?.[i] ?? null);
      });
    },
    async remove(kind, ids) {
      removed.push(...ids.map((id) => `${kind}#${id}`));
    },
  };
  const ports = {
    index,
    outbox: {
      append: async (batch: readonly ChangeEvent[]) => {
        events.push(...batch);
      },
      scan: async function* () {},
    },
    clock: { now: () => new Date('2026-11-22T10:00:00Z') },
    embeddings: { embedder: countingEmbedder(), cache: memoryEmbeddingCache() },
  };
  return { ports, indexed, vectors, removed, events, upsertCalls };
}

describe('the stream indexer handler', () => {
  const nsf = funder('f-1', 'National Science Foundation');
  const renamed = { ...nsf, name: 'U.S. National Science Foundation' };
  const bad = funder('f-bad', 'Refused');
  const records = [
    streamRecord('INSERT', { pk: 'funder#f-1', sk: 'record' }, undefined, item(nsf)),
    streamRecord('MODIFY', { pk: 'funder#f-1', sk: 'record' }, item(nsf), item(renamed)),
    streamRecord('MODIFY', { pk: 'funder#f-1', sk: 'record' }, item(renamed), item(renamed)), // same hash: no event
    streamRecord('INSERT', { pk: 'funder#f-bad', sk: 'record' }, undefined, item(bad)),
    streamRecord('REMOVE', { pk: 'funder#f-9', sk: 'record' }, item(funder('f-9', 'Gone')), undefined),
    streamRecord('INSERT', { pk: 'event#e-1', sk: 'event' }, undefined, { pk: 'event#e-1', sk: 'event', entity: 'change_event' }),
  ];

  it('indexes records in stream order, emits created then updated, ignores non-records, and reports only the failed record', async () => {
    const { ports, indexed, vectors, removed, events } = memoryPorts('f-bad');
    const handler = streamIndexerHandler(() => ports);
    const response = await handler({ Records: records } satisfies DynamoDBStreamEvent, {} as Context, () => {});
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: records[3]!.dynamodb!.SequenceNumber }] });
    expect(indexed.get('funder#f-1')).toEqual(renamed); // the later write wins, and no bookkeeping attributes leak
    expect(vectors.get('funder#f-1')).toBeInstanceOf(Float32Array); // embedded at index time
    expect(vectors.get('funder#f-1')!.length).toBe(8);
    expect(removed).toEqual(['funder#f-9']);
    expect(events.map((e) => [e.event, e.record_id, (e.data as Funder).name])).toEqual([
      ['funder.created', 'f-1', 'National Science Foundation'],
      ['funder.updated', 'f-1', 'U.S. National Science Foundation'],
    ]);
    expect(events[1]!.content_hash).toBe(contentHashOf(renamed));
  });

  it("indexes a batch as one: each record's last write only, its texts embedded in one call, one upsert per kind; an event for every change", async () => {
    const { ports, indexed, removed, events, upsertCalls } = memoryPorts('none');
    const science = funder('f-2', 'Office of Science');
    const batch = [records[0]!, records[1]!, streamRecord('INSERT', { pk: 'funder#f-2', sk: 'record' }, undefined, item(science)), records[4]!];
    const response = await streamIndexerHandler(() => ports)({ Records: batch }, {} as Context, () => {});
    expect(response).toEqual({ batchItemFailures: [] });
    expect(upsertCalls).toEqual([['f-1', 'f-2']]);
    expect(indexed.get('funder#f-1')).toEqual(renamed);
    // One embedding call, for the two final texts (the first name of f-1 is never embedded).
    expect((ports.embeddings.embedder as ReturnType<typeof countingEmbedder>).embedded).toHaveLength(2);
    expect(removed).toEqual(['funder#f-9']);
    expect(events.map((e) => [e.event, e.record_id])).toEqual([
      ['funder.created', 'f-1'],
      ['funder.updated', 'f-1'],
      ['funder.created', 'f-2'],
    ]);
  });

  it('gives a replayed batch the same event ids, so receivers can drop duplicates', async () => {
    const first = memoryPorts('none');
    const second = memoryPorts('none');
    await streamIndexerHandler(() => first.ports)({ Records: records.slice(0, 2) }, {} as Context, () => {});
    await streamIndexerHandler(() => second.ports)({ Records: records.slice(0, 2) }, {} as Context, () => {});
    expect(second.events.map((e) => e.event_id)).toEqual(first.events.map((e) => e.event_id));
    expect(new Set(first.events.map((e) => e.event_id)).size).toBe(2);
  });
});
