import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ChangeEvent } from '../../core/change-feed';
import type { ChangeOutbox } from '../../ports/change-outbox';
import { CHANGE_EVENT_ENTITY, CHANGE_EVENT_SK, DOCUMENT_CLIENT_OPTIONS, deleteItems, entityFilter, putItems, scanPages } from './records-table';

/** How long an undelivered event is kept before DynamoDB's TTL removes it. */
const OUTBOX_RETENTION_DAYS = 30;

/**
 * The change outbox in the records table: pk = "event#<event_id>", so an event written twice (a
 * retried stream batch) is one item. `expires_at` lets DynamoDB's TTL clear old events in AWS;
 * dynalite ignores it.
 */
export class DynamoChangeOutbox implements ChangeOutbox {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, DOCUMENT_CLIENT_OPTIONS);
  }

  async append(events: readonly ChangeEvent[]): Promise<void> {
    await putItems(
      this.doc,
      this.tableName,
      events.map((event) => ({
        pk: `event#${event.event_id}`,
        sk: CHANGE_EVENT_SK,
        entity: CHANGE_EVENT_ENTITY,
        expires_at: Math.floor(Date.parse(event.occurred_at) / 1000) + OUTBOX_RETENTION_DAYS * 86_400,
        ...event,
      })),
    );
  }

  async remove(eventIds: readonly string[]): Promise<void> {
    await deleteItems(
      this.doc,
      this.tableName,
      eventIds.map((id) => ({ pk: `event#${id}`, sk: CHANGE_EVENT_SK })),
    );
  }

  async *scan(): AsyncIterable<ChangeEvent[]> {
    for await (const items of scanPages(this.doc, entityFilter(this.tableName, CHANGE_EVENT_ENTITY))) {
      yield items.map(changeEventOfItem);
    }
  }
}

/** The event an outbox item holds. */
export function changeEventOfItem(item: Record<string, unknown>): ChangeEvent {
  const { pk: _pk, sk: _sk, entity: _entity, expires_at: _expires, ...event } = item;
  return event as unknown as ChangeEvent;
}
