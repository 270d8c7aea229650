import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { contentHashOf } from '../../core/ingest/identity';
import { RESOURCE_KINDS, type RecordByKind, type ResourceKind, withLaterFields } from '../../core/records';
import type { RecordStore, StoredVersion } from '../../ports/record-store';
import { DOCUMENT_CLIENT_OPTIONS, FUNDER_INDEX, putItems, RECORD_INTERNAL_ATTRIBUTES, RECORD_SK, recordKeyOf, scanPages } from './records-table';

/**
 * The record store on DynamoDB (single table, pk/sk). Also the local adapter: pointed at dynalite
 * it runs the same code paths the Lambdas run in AWS.
 *
 * Item layout: pk = "<kind>#<id>", sk = "record", entity = kind, content_hash, then the record's
 * own fields. The hash lets a writer and the stream tell a real change from a rewrite.
 */
const BATCH_GET_MAX = 100;
const MAX_UNPROCESSED_RETRIES = 8;

/** The public record of an item: everything but the key and bookkeeping attributes, with fields added since it was stored (withLaterFields). */
export function recordOfItem<K extends ResourceKind>(item: Record<string, unknown>): RecordByKind[K] {
  const record = { ...item };
  for (const attribute of RECORD_INTERNAL_ATTRIBUTES) delete record[attribute];
  const kind = String(item.entity) as K;
  return (RESOURCE_KINDS.includes(kind) ? withLaterFields(kind, record as unknown as RecordByKind[K]) : record) as RecordByKind[K];
}

export interface DynamoRecordStoreOptions {
  /**
   * Whether the table has the sparse funder index (FUNDER_INDEX). Local tables made before it
   * existed do not; funders are then found by scanning the table.
   * @default true
   */
  funderIndex?: boolean;
}

export class DynamoRecordStore implements RecordStore {
  private readonly doc: DynamoDBDocumentClient;
  private readonly funderIndex: boolean;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
    options: DynamoRecordStoreOptions = {},
  ) {
    this.doc = DynamoDBDocumentClient.from(client, DOCUMENT_CLIENT_OPTIONS);
    this.funderIndex = options.funderIndex ?? true;
  }

  async get<K extends ResourceKind>(kind: K, id: string): Promise<RecordByKind[K] | null> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: recordKeyOf(kind, id) }));
    return Item ? recordOfItem<K>(Item) : null;
  }

  async versions(kind: ResourceKind, ids: readonly string[]): Promise<Map<string, StoredVersion>> {
    const found = new Map<string, StoredVersion>();
    const unique = [...new Set(ids)];
    for (let i = 0; i < unique.length; i += BATCH_GET_MAX) {
      let keys: Record<string, unknown>[] = unique.slice(i, i + BATCH_GET_MAX).map((id) => recordKeyOf(kind, id));
      for (let attempt = 0; keys.length > 0; attempt++) {
        if (attempt > MAX_UNPROCESSED_RETRIES) throw new Error(`DynamoDB left ${keys.length} reads unprocessed`);
        const out = await this.doc.send(
          new BatchGetCommand({
            RequestItems: {
              [this.tableName]: {
                Keys: keys,
                ProjectionExpression: '#id, content_hash, created_at',
                ExpressionAttributeNames: { '#id': 'id' },
              },
            },
          }),
        );
        for (const item of out.Responses?.[this.tableName] ?? []) {
          found.set(String(item.id), { contentHash: String(item.content_hash ?? ''), createdAt: String(item.created_at) });
        }
        keys = out.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
      }
    }
    return found;
  }

  async put<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][]): Promise<void> {
    await putItems(
      this.doc,
      this.tableName,
      records.map(
        (record): Record<string, unknown> => ({
          ...recordKeyOf(kind, record.id),
          entity: kind,
          content_hash: contentHashOf(record),
          ...(kind === 'funder' ? { [FUNDER_INDEX.partitionKey]: record.id } : {}),
          ...record,
        }),
      ),
    );
  }

  async *scan<K extends ResourceKind>(kind: K): AsyncIterable<RecordByKind[K][]> {
    const input =
      kind === 'funder' && this.funderIndex
        ? { TableName: this.tableName, IndexName: FUNDER_INDEX.name }
        : { TableName: this.tableName, FilterExpression: 'entity = :kind AND sk = :sk', ExpressionAttributeValues: { ':kind': kind, ':sk': RECORD_SK } };
    for await (const items of scanPages(this.doc, input)) yield items.map((item) => recordOfItem<K>(item));
  }
}
