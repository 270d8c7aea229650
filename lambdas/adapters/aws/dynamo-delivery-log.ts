import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Delivery, DeliveryLog } from '../../ports/delivery-log';
import { DOCUMENT_CLIENT_OPTIONS, entityFilter, scanPages, withoutItemKeys } from './records-table';

/**
 * The delivery log in the records table (pk "delivery#<id>"). Deliveries expire with DynamoDB's
 * TTL after DELIVERY_RETENTION_DAYS; dynalite ignores it. Listing a subscription's deliveries
 * scans, which suits the admin CLI's occasional `deliveries` command.
 */

const DELIVERY_SK = 'delivery';
export const DELIVERY_ENTITY = 'webhook_delivery';
const DELIVERY_RETENTION_DAYS = 30;
const deliveryKey = (id: string) => ({ pk: `delivery#${id}`, sk: DELIVERY_SK });
const deliveryOf = (item: Record<string, unknown>) => {
  const { expires_at: _expires, ...delivery } = withoutItemKeys(item);
  return delivery as unknown as Delivery;
};

export class DynamoDeliveryLog implements DeliveryLog {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, DOCUMENT_CLIENT_OPTIONS);
  }

  private item(delivery: Delivery): Record<string, unknown> {
    const expiresAt = Math.floor(Date.parse(delivery.updated_at) / 1000) + DELIVERY_RETENTION_DAYS * 86_400;
    return { ...deliveryKey(delivery.delivery_id), entity: DELIVERY_ENTITY, expires_at: expiresAt, ...delivery };
  }

  async create(delivery: Delivery): Promise<boolean> {
    try {
      await this.doc.send(new PutCommand({ TableName: this.tableName, Item: this.item(delivery), ConditionExpression: 'attribute_not_exists(pk)' }));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async get(deliveryId: string): Promise<Delivery | null> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: deliveryKey(deliveryId), ConsistentRead: true }));
    return Item ? deliveryOf(Item) : null;
  }

  async save(delivery: Delivery): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.tableName, Item: this.item(delivery) }));
  }

  async list(subscriptionId: string, limit: number): Promise<Delivery[]> {
    const found: Delivery[] = [];
    for await (const items of scanPages(this.doc, entityFilter(this.tableName, DELIVERY_ENTITY))) {
      for (const item of items) if (item.subscription_id === subscriptionId) found.push(deliveryOf(item));
    }
    return found.sort((a, b) => b.created_at.localeCompare(a.created_at) || a.delivery_id.localeCompare(b.delivery_id)).slice(0, limit);
  }

  /** Deliveries still waiting for an attempt (pending or retrying), for a local restart to pick up. */
  async *unfinished(): AsyncIterable<Delivery> {
    for await (const items of scanPages(this.doc, entityFilter(this.tableName, DELIVERY_ENTITY))) {
      for (const item of items) if (item.status === 'pending' || item.status === 'retrying') yield deliveryOf(item);
    }
  }
}
