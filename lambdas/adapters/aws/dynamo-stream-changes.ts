import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, AttributeValue as StreamAttributeValue } from 'aws-lambda';
import type { ChangeEvent, RecordChange } from '../../core/change-feed';
import { contentHashOf } from '../../core/ingest/identity';
import { type AnyRecord, RESOURCE_KINDS, type ResourceKind } from '../../core/records';
import { changeEventOfItem } from './dynamo-change-outbox';
import { recordOfItem } from './dynamo-record-store';
import { CHANGE_EVENT_SK, RECORD_SK } from './records-table';

/**
 * A DynamoDB stream record as a change of one of our records, or null for items that are not
 * records (change events, and later keys and webhooks share the table). Both images are needed
 * to tell created from updated, which is why the table streams NEW_AND_OLD_IMAGES.
 */

const image = (value: Record<string, StreamAttributeValue> | undefined) => (value ? unmarshall(value as Record<string, AttributeValue>) : undefined);

const isKind = (value: unknown): value is ResourceKind => RESOURCE_KINDS.includes(value as ResourceKind);

export function recordChangeOf(streamRecord: DynamoDBRecord): RecordChange | null {
  const keys = image(streamRecord.dynamodb?.Keys);
  const [kind, id] = String(keys?.pk ?? '').split('#', 2);
  if (keys?.sk !== RECORD_SK || !isKind(kind) || !id) return null;
  const before = image(streamRecord.dynamodb?.OldImage);
  const after = streamRecord.eventName === 'REMOVE' ? undefined : image(streamRecord.dynamodb?.NewImage);
  const afterRecord = after ? recordOfItem<typeof kind>(after) : null;
  return {
    kind,
    id,
    before: before ? { contentHash: String(before.content_hash ?? '') } : null,
    after: afterRecord
      ? { record: afterRecord, contentHash: typeof after?.content_hash === 'string' ? after.content_hash : contentHashOf(afterRecord as AnyRecord) }
      : null,
  };
}

/**
 * The change event a stream record of the outbox carries (its insert, or its overwrite by a
 * retried indexer batch), or null for anything else: the outbox emptying itself, or other items.
 */
export function changeEventOfStreamRecord(streamRecord: DynamoDBRecord): ChangeEvent | null {
  if (streamRecord.eventName === 'REMOVE') return null;
  const keys = image(streamRecord.dynamodb?.Keys);
  const item = image(streamRecord.dynamodb?.NewImage);
  if (keys?.sk !== CHANGE_EVENT_SK || !item) return null;
  return changeEventOfItem(item);
}
