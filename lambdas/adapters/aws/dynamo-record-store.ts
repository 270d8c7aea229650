import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { RecordByKind, ResourceKind } from '../../core/records';
import type { RecordStore } from '../../ports/record-store';

/**
 * The record store on DynamoDB (single table, pk/sk). Also the local adapter: pointed at dynalite
 * it runs the same code paths the Lambdas run in AWS.
 *
 * Item layout: pk = "<kind>#<id>", sk = "record", entity = kind, then the record's own fields.
 */
const RECORD_SK = 'record';
const BATCH_WRITE_MAX = 25;
const MAX_UNPROCESSED_RETRIES = 8;

const keyOf = (kind: ResourceKind, id: string) => ({ pk: `${kind}#${id}`, sk: RECORD_SK });

function toRecord<K extends ResourceKind>(item: Record<string, unknown>): RecordByKind[K] {
  const { pk: _pk, sk: _sk, entity: _entity, ...record } = item;
  return record as unknown as RecordByKind[K];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class DynamoRecordStore implements RecordStore {
  private readonly doc: DynamoDBDocumentClient;

  constructor(client: DynamoDBClient, private readonly tableName: string) {
    this.doc = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
    });
  }

  async get<K extends ResourceKind>(kind: K, id: string): Promise<RecordByKind[K] | null> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keyOf(kind, id) }));
    return Item ? toRecord<K>(Item) : null;
  }

  async put<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][]): Promise<void> {
    for (let i = 0; i < records.length; i += BATCH_WRITE_MAX) {
      let requests = records.slice(i, i + BATCH_WRITE_MAX).map((record) => ({
        PutRequest: { Item: { ...keyOf(kind, record.id), entity: kind, ...record } },
      }));
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt > MAX_UNPROCESSED_RETRIES) throw new Error(`DynamoDB left ${requests.length} writes unprocessed`);
        if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2));
        const out = await this.doc.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }));
        requests = (out.UnprocessedItems?.[this.tableName] ?? []) as typeof requests;
      }
    }
  }

  async *scan<K extends ResourceKind>(kind: K): AsyncIterable<RecordByKind[K][]> {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(new ScanCommand({
        TableName: this.tableName,
        FilterExpression: 'entity = :kind AND sk = :sk',
        ExpressionAttributeValues: { ':kind': kind, ':sk': RECORD_SK },
        ExclusiveStartKey: startKey,
      }));
      const items = (page.Items ?? []).map((item) => toRecord<K>(item));
      if (items.length > 0) yield items;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }
}
