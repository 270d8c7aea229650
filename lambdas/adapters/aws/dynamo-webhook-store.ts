import { createHash } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SecretSealer } from '../../ports/secret-sealer';
import { WebhookConflict, type WebhookStore, type WebhookSubscription } from '../../ports/webhook-store';
import { DOCUMENT_CLIENT_OPTIONS, withoutItemKeys } from './records-table';

/**
 * Webhook subscriptions in the records table. Every subscription lives in one partition
 * (pk "webhooks", sk "subscription#<id>"), so the fan-out of each change batch reads them all
 * with one query instead of scanning the records. A guard item per key and URL
 * (pk "webhookurl#<key_id>#<sha256(url)>") whose conditional put makes a duplicate subscription
 * impossible even when two operators add it at once. The signing secrets (`secret`,
 * `previous_secret`) are stored sealed by a SecretSealer; one stored before sealing is read as it
 * is and sealed on the subscription's next write.
 */

export const SUBSCRIPTIONS_PARTITION = 'webhooks';
const GUARD_SK = 'url';
export const WEBHOOK_ENTITY = 'webhook_subscription';
const subscriptionKey = (id: string) => ({ pk: SUBSCRIPTIONS_PARTITION, sk: `subscription#${id}` });
const guardKey = (keyId: string, url: string) => ({ pk: `webhookurl#${keyId}#${createHash('sha256').update(url).digest('hex')}`, sk: GUARD_SK });

const subscriptionOf = (item: Record<string, unknown>) => withoutItemKeys(item) as unknown as WebhookSubscription;
const SECRET_FIELDS = ['secret', 'previous_secret'] as const;

export class DynamoWebhookStore implements WebhookStore {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
    private readonly secrets: SecretSealer,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, DOCUMENT_CLIENT_OPTIONS);
  }

  /** The changes (or a whole subscription) with each secret present sealed. */
  private async sealed<T extends Partial<WebhookSubscription>>(subscriptionId: string, fields: T): Promise<T> {
    const out: T = { ...fields };
    for (const field of SECRET_FIELDS) {
      const value: unknown = fields[field];
      if (typeof value === 'string') (out as Record<string, unknown>)[field] = await this.secrets.seal(value, { subscriptionId });
    }
    return out;
  }

  private async opened(item: Record<string, unknown>): Promise<WebhookSubscription> {
    const subscription = subscriptionOf(item);
    const context = { subscriptionId: subscription.subscription_id };
    for (const field of SECRET_FIELDS) {
      const value = subscription[field];
      if (typeof value === 'string') subscription[field] = await this.secrets.unseal(value, context);
    }
    return subscription;
  }

  /** Seals secrets still stored in plaintext (from before sealing), unless another write changed them meanwhile. */
  private async resealPlaintext(item: Record<string, unknown>): Promise<void> {
    const plain = SECRET_FIELDS.filter((field) => typeof item[field] === 'string' && !this.secrets.isSealed(item[field] as string));
    if (plain.length === 0) return;
    const subscriptionId = String(item.subscription_id);
    const sealed = await this.sealed(subscriptionId, Object.fromEntries(plain.map((field) => [field, item[field]])) as Partial<WebhookSubscription>);
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: subscriptionKey(subscriptionId),
          UpdateExpression: `SET ${plain.map((_, i) => `#f${i} = :sealed${i}`).join(', ')}`,
          ConditionExpression: plain.map((_, i) => `#f${i} = :plain${i}`).join(' AND '),
          ExpressionAttributeNames: Object.fromEntries(plain.map((field, i) => [`#f${i}`, field])),
          ExpressionAttributeValues: Object.fromEntries(
            plain.flatMap((field, i) => [
              [`:sealed${i}`, sealed[field]],
              [`:plain${i}`, item[field]],
            ]),
          ),
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async create(subscription: WebhookSubscription): Promise<void> {
    // Sealed first: a sealer that may not seal refuses before anything is written.
    const sealedSubscription = await this.sealed(subscription.subscription_id, subscription);
    const guard = guardKey(subscription.key_id, subscription.url);
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...guard, subscription_id: subscription.subscription_id },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: guard, ConsistentRead: true }));
        throw new WebhookConflict(
          `key ${subscription.key_id} already has a subscription for ${subscription.url}${Item ? ` (${String(Item.subscription_id)})` : ''}`,
        );
      }
      throw error;
    }
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...subscriptionKey(subscription.subscription_id), entity: WEBHOOK_ENTITY, ...sealedSubscription },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: guard }));
      throw error;
    }
  }

  async get(subscriptionId: string): Promise<WebhookSubscription | null> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: subscriptionKey(subscriptionId), ConsistentRead: true }));
    return Item ? this.opened(Item) : null;
  }

  async list(keyId?: string): Promise<WebhookSubscription[]> {
    const found: WebhookSubscription[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': SUBSCRIPTIONS_PARTITION, ':prefix': 'subscription#' },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const subscription = await this.opened(item);
        if (keyId === undefined || subscription.key_id === keyId) found.push(subscription);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return found.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.subscription_id.localeCompare(b.subscription_id));
  }

  async update(subscriptionId: string, changes: Parameters<WebhookStore['update']>[1]): Promise<WebhookSubscription> {
    const entries = Object.entries(await this.sealed(subscriptionId, changes)).filter(([, value]) => value !== undefined);
    if (entries.length === 0) {
      const current = await this.get(subscriptionId);
      if (!current) throw new WebhookConflict(`no webhook subscription ${subscriptionId}`);
      return current;
    }
    try {
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: subscriptionKey(subscriptionId),
          UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: Object.fromEntries(entries.map(([name], i) => [`#f${i}`, name])),
          ExpressionAttributeValues: Object.fromEntries(entries.map(([, value], i) => [`:v${i}`, value])),
          ReturnValues: 'ALL_NEW',
        }),
      );
      await this.resealPlaintext(Attributes!);
      return this.opened(Attributes!);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) throw new WebhookConflict(`no webhook subscription ${subscriptionId}`);
      throw error;
    }
  }
}
