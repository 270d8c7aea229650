import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LATENCY_BUCKETS, latencyBucketOf, percentileOf } from '../../core/auth/latency-histogram';
import type { DailyUsage, UsageMeter } from '../../ports/usage-meter';
import { DOCUMENT_CLIENT_OPTIONS } from './records-table';

/**
 * Usage counters in the records table: one item per key per UTC day (pk "usage#<key_id>",
 * sk "day#<YYYY-MM-DD>"). The quota is one conditional atomic ADD, exact under concurrency;
 * response figures are further ADDs on the same item. Items expire (TTL) after a quarter.
 */

const RETENTION_SECONDS = 92 * 86_400;
const usageKey = (keyId: string, day: string) => ({ pk: `usage#${keyId}`, sk: `day#${day}` });
const expiresAt = (day: string) => Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + RETENTION_SECONDS;

export class DynamoUsageMeter implements UsageMeter {
  private readonly doc: DynamoDBDocumentClient;

  constructor(client: DynamoDBClient, private readonly tableName: string) {
    this.doc = DynamoDBDocumentClient.from(client, DOCUMENT_CLIENT_OPTIONS);
  }

  async consume(keyId: string, day: string, limit: number | null, now: Date): Promise<{ allowed: boolean; used: number }> {
    try {
      const { Attributes } = await this.doc.send(new UpdateCommand({
        TableName: this.tableName,
        Key: usageKey(keyId, day),
        UpdateExpression: 'ADD requests :one SET last_used_at = :now, expires_at = :expires, entity = :entity',
        ...(limit === null ? {} : { ConditionExpression: 'attribute_not_exists(requests) OR requests < :limit' }),
        ExpressionAttributeValues: {
          ':one': 1, ':now': now.toISOString(), ':expires': expiresAt(day), ':entity': 'usage', ...(limit === null ? {} : { ':limit': limit }),
        },
        ReturnValues: 'UPDATED_NEW',
      }));
      return { allowed: true, used: Number(Attributes?.requests ?? 1) };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return { allowed: false, used: limit ?? 0 };
      throw error;
    }
  }

  async used(keyId: string, day: string): Promise<number> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: usageKey(keyId, day), ProjectionExpression: 'requests' }));
    return Number(Item?.requests ?? 0);
  }

  async record(keyId: string, day: string, response: { status: number; latencyMs: number }): Promise<void> {
    const bucket = latencyBucketOf(response.latencyMs);
    await this.doc.send(new UpdateCommand({
      TableName: this.tableName,
      Key: usageKey(keyId, day),
      UpdateExpression: `ADD responses :one, errors :error, #bucket :one SET expires_at = :expires, entity = :entity`,
      ExpressionAttributeNames: { '#bucket': `lat_${bucket}` },
      ExpressionAttributeValues: { ':one': 1, ':error': response.status >= 400 ? 1 : 0, ':expires': expiresAt(day), ':entity': 'usage' },
    }));
  }

  async history(keyId: string, days: number): Promise<DailyUsage[]> {
    const { Items } = await this.doc.send(new QueryCommand({
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :day)',
      ExpressionAttributeValues: { ':pk': `usage#${keyId}`, ':day': 'day#' },
      ScanIndexForward: false,
      Limit: days,
    }));
    return (Items ?? []).map((item) => {
      const counts = Array.from({ length: LATENCY_BUCKETS }, (_, bucket) => Number(item[`lat_${bucket}`] ?? 0));
      return {
        day: String(item.sk).slice('day#'.length),
        requests: Number(item.requests ?? 0),
        errors: Number(item.errors ?? 0),
        responses: Number(item.responses ?? 0),
        p50Ms: percentileOf(counts, 0.5),
        p95Ms: percentileOf(counts, 0.95),
        lastUsedAt: typeof item.last_used_at === 'string' ? item.last_used_at : null,
      };
    });
  }
}
