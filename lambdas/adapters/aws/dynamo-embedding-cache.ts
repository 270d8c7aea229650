import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Clock, systemClock } from '../../ports/clock';
import type { EmbeddingCache } from '../../ports/embedder';
import { bytesOfVector, vectorOfBytes } from '../vector-bytes';
import { DOCUMENT_CLIENT_OPTIONS, putItems } from './records-table';

export const EMBEDDING_SK = 'vector';
export const EMBEDDING_ENTITY = 'embedding';
/** Long enough that re-indexing within a year never re-embeds; an expired vector is just recomputed. */
const DEFAULT_RETENTION_DAYS = 400;
const BATCH_GET_MAX = 100;
const MAX_UNPROCESSED_RETRIES = 8;

export const embeddingItemKeyOf = (key: string) => ({ pk: `embedding#${key}`, sk: EMBEDDING_SK });

export interface DynamoEmbeddingCacheOptions {
  retentionDays?: number;
  clock?: Clock;
}

/**
 * Embeddings in the records table, one item per text: pk = "embedding#<key>", the vector as binary
 * Float32 (little-endian, as on every Lambda architecture), and `expires_at` for DynamoDB's TTL,
 * pushed forward by every put. Items are derived data, so expiry only costs a recomputation.
 */
export class DynamoEmbeddingCache implements EmbeddingCache {
  private readonly doc: DynamoDBDocumentClient;
  private readonly retentionSeconds: number;
  private readonly clock: Clock;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
    options: DynamoEmbeddingCacheOptions = {},
  ) {
    this.doc = DynamoDBDocumentClient.from(client, DOCUMENT_CLIENT_OPTIONS);
    this.retentionSeconds = (options.retentionDays ?? DEFAULT_RETENTION_DAYS) * 86_400;
    this.clock = options.clock ?? systemClock;
  }

  async get(keys: readonly string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    // BatchGetItem rejects a request that names the same key twice.
    const unique = [...new Set(keys)];
    for (let i = 0; i < unique.length; i += BATCH_GET_MAX) {
      for (const item of await this.getBatch(unique.slice(i, i + BATCH_GET_MAX))) {
        found.set(String(item.pk).slice('embedding#'.length), vectorOfBytes(item.vector as Uint8Array));
      }
    }
    return found;
  }

  async put(entries: ReadonlyMap<string, Float32Array>): Promise<void> {
    const expiresAt = Math.floor(this.clock.now().getTime() / 1000) + this.retentionSeconds;
    await putItems(
      this.doc,
      this.tableName,
      [...entries].map(([key, vector]) => ({
        ...embeddingItemKeyOf(key),
        entity: EMBEDDING_ENTITY,
        vector: bytesOfVector(vector),
        expires_at: expiresAt,
      })),
    );
  }

  /** One BatchGetItem of up to 100 keys, retrying what DynamoDB leaves unprocessed with jittered backoff. */
  private async getBatch(keys: readonly string[]): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let pending: Record<string, unknown>[] = keys.map(embeddingItemKeyOf);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > MAX_UNPROCESSED_RETRIES) throw new Error(`DynamoDB left ${pending.length} embedding reads unprocessed`);
      if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2));
      const out = await this.doc.send(
        new BatchGetCommand({
          RequestItems: { [this.tableName]: { Keys: pending, ProjectionExpression: 'pk, #vector', ExpressionAttributeNames: { '#vector': 'vector' } } },
        }),
      );
      items.push(...(out.Responses?.[this.tableName] ?? []));
      pending = out.UnprocessedKeys?.[this.tableName]?.Keys ?? [];
    }
    return items;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
