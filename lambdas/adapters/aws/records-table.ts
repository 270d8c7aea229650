import { BatchWriteCommand, type DynamoDBDocumentClient, ScanCommand, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import type { ResourceKind } from '../../core/records';

/**
 * The single table's item layout, shared by every adapter that writes to it (records, the change
 * outbox, and later keys and webhooks): pk = "<entity>#<id>", sk names the item's role, `entity`
 * tells a scan or a stream consumer what an item is.
 */

export const RECORD_SK = 'record';
export const CHANGE_EVENT_SK = 'event';
export const CHANGE_EVENT_ENTITY = 'change_event';
/**
 * A sparse global secondary index holding funder items only (only they carry its key), so the
 * funder directory an import starts from is read without scanning every record and event.
 */
export const FUNDER_INDEX = { name: 'funders', partitionKey: 'funder_key' } as const;

/** Attributes on a record item that are not public fields. */
export const RECORD_INTERNAL_ATTRIBUTES = ['pk', 'sk', 'entity', 'content_hash', FUNDER_INDEX.partitionKey] as const;

/** An item's own attributes: the table's key and entity marker left out. */
export function withoutItemKeys(item: Record<string, unknown>): Record<string, unknown> {
  const { pk: _pk, sk: _sk, entity: _entity, ...attributes } = item;
  return attributes;
}

export const recordKeyOf = (kind: ResourceKind, id: string) => ({ pk: `${kind}#${id}`, sk: RECORD_SK });

const BATCH_WRITE_MAX = 25;
const MAX_UNPROCESSED_RETRIES = 8;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Record<string, unknown> } };

/** Writes 25 at a time, retrying what DynamoDB leaves unprocessed with jittered backoff. */
async function batchWrite(doc: DynamoDBDocumentClient, tableName: string, all: readonly WriteRequest[]): Promise<void> {
  for (let i = 0; i < all.length; i += BATCH_WRITE_MAX) {
    let requests = all.slice(i, i + BATCH_WRITE_MAX);
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt > MAX_UNPROCESSED_RETRIES) throw new Error(`DynamoDB left ${requests.length} writes unprocessed`);
      if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2));
      const out = await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
      requests = (out.UnprocessedItems?.[tableName] ?? []) as typeof requests;
    }
  }
}

export function putItems(doc: DynamoDBDocumentClient, tableName: string, items: readonly Record<string, unknown>[]): Promise<void> {
  return batchWrite(
    doc,
    tableName,
    items.map((Item) => ({ PutRequest: { Item } })),
  );
}

export function deleteItems(doc: DynamoDBDocumentClient, tableName: string, keys: readonly Record<string, unknown>[]): Promise<void> {
  return batchWrite(
    doc,
    tableName,
    keys.map((Key) => ({ DeleteRequest: { Key } })),
  );
}

/** A document client that drops undefined attributes and keeps empty strings (descriptions may be ""). */
export const DOCUMENT_CLIENT_OPTIONS = {
  marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
} as const;

/** Every page of a scan of the table (or one of its indexes), non-empty pages only. */
export async function* scanPages(doc: DynamoDBDocumentClient, input: Omit<ScanCommandInput, 'ExclusiveStartKey'>): AsyncIterable<Record<string, unknown>[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ ...input, ExclusiveStartKey: startKey }));
    if (page.Items && page.Items.length > 0) yield page.Items;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** The scan input that keeps the items of one entity. */
export const entityFilter = (tableName: string, entity: string) => ({
  TableName: tableName,
  FilterExpression: 'entity = :entity',
  ExpressionAttributeValues: { ':entity': entity },
});
