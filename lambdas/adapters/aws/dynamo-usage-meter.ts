import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { LATENCY_BUCKETS, latencyBucketOf, percentileOf } from '../../core/auth/latency-histogram';
import type { RateWindow } from '../../core/auth/rate-window';
import type { Admission, DailyUsage, UsageMeter } from '../../ports/usage-meter';
import { DOCUMENT_CLIENT_OPTIONS } from './records-table';

/**
 * Usage counters in the records table: one item per key per UTC day (pk "usage#<key_id>",
 * sk "day#<YYYY-MM-DD>"). The quota is one conditional atomic ADD, exact under concurrency; the
 * tier's rate window (rate_window, rate_count) is counted by the same ADD, so a throttled
 * request costs no extra write but once per window. Response figures are further ADDs on the same item. Items expire (TTL) after a quarter.
 */

const RETENTION_SECONDS = 92 * 86_400;
const usageKey = (keyId: string, day: string) => ({ pk: `usage#${keyId}`, sk: `day#${day}` });
const expiresAt = (day: string) => Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + RETENTION_SECONDS;

export interface DynamoUsageMeterOptions {
  /**
   * Figures that need no exact count at once (response counts and times, and the requests of
   * unlimited keys) are summed in memory and written every this many milliseconds, one update
   * per key and day; 0 writes each at once. Quota counts of limited keys are always written at once.
   * @default 0
   */
  flushIntervalMs?: number;
}

interface PendingUsage {
  keyId: string;
  day: string;
  requests: number;
  responses: number;
  errors: number;
  buckets: Map<number, number>;
  lastUsedAt: string | null;
}

export class DynamoUsageMeter implements UsageMeter {
  private readonly doc: DynamoDBDocumentClient;
  private readonly flushIntervalMs: number;
  private pending = new Map<string, PendingUsage>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
    options: DynamoUsageMeterOptions = {},
  ) {
    this.doc = DynamoDBDocumentClient.from(client, DOCUMENT_CLIENT_OPTIONS);
    this.flushIntervalMs = options.flushIntervalMs ?? 0;
  }

  private pendingFor(keyId: string, day: string): PendingUsage {
    const id = `${keyId}\u0000${day}`;
    let entry = this.pending.get(id);
    if (!entry) {
      entry = { keyId, day, requests: 0, responses: 0, errors: 0, buckets: new Map(), lastUsedAt: null };
      this.pending.set(id, entry);
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.flushIntervalMs).unref();
    return entry;
  }

  private flushing: Promise<void> = Promise.resolve();

  /**
   * Writes what is pending: one update per key and day. A failed write is kept for the next flush.
   * Flushes run one after another, so one that returns (history's, say) comes after every write
   * a timer's flush had already taken off the pending map.
   */
  async flush(): Promise<void> {
    const run = this.flushing.then(() => this.writePending());
    this.flushing = run.catch(() => undefined);
    return run;
  }

  private async writePending(): Promise<void> {
    const batch = [...this.pending.values()];
    this.pending = new Map();
    for (const entry of batch) {
      const adds: Record<string, number> = { requests: entry.requests, responses: entry.responses, errors: entry.errors };
      for (const [bucket, count] of entry.buckets) adds[`lat_${bucket}`] = count;
      const names = Object.keys(adds).filter((name) => adds[name]! > 0);
      try {
        await this.doc.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: usageKey(entry.keyId, entry.day),
            UpdateExpression: [
              names.length > 0 ? `ADD ${names.map((_, i) => `#a${i} :a${i}`).join(', ')}` : '',
              `SET expires_at = :expires, entity = :entity${entry.lastUsedAt ? ', last_used_at = :last' : ''}`,
            ].join(' '),
            ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#a${i}`, name])),
            ExpressionAttributeValues: {
              ...Object.fromEntries(names.map((name, i) => [`:a${i}`, adds[name]])),
              ':expires': expiresAt(entry.day),
              ':entity': 'usage',
              ...(entry.lastUsedAt ? { ':last': entry.lastUsedAt } : {}),
            },
          }),
        );
      } catch {
        const kept = this.pendingFor(entry.keyId, entry.day);
        kept.requests += entry.requests;
        kept.responses += entry.responses;
        kept.errors += entry.errors;
        for (const [bucket, count] of entry.buckets) kept.buckets.set(bucket, (kept.buckets.get(bucket) ?? 0) + count);
        kept.lastUsedAt ??= entry.lastUsedAt;
      }
    }
  }

  /** Stops the timer and writes what is pending. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  async consume(keyId: string, day: string, limit: number | null, now: Date, window: RateWindow | null = null): Promise<Admission> {
    if (limit === null && window === null && this.flushIntervalMs > 0) {
      // Unlimited: nothing to refuse, so the count can wait for the next flush.
      const entry = this.pendingFor(keyId, day);
      entry.requests++;
      entry.lastUsedAt = now.toISOString();
      return { allowed: true, used: entry.requests };
    }
    if (window === null) {
      const used = await this.count(keyId, day, now, { limit });
      return used === null ? { allowed: false, used: limit ?? 0, refusedBy: 'quota' } : { allowed: true, used };
    }
    // Within the current window (one write), or opening it (a second write, once per window);
    // when both conditions fail, the item says which limit was met.
    let usedToday = 0;
    for (let attempt = 0; attempt < 3; attempt++) {
      const used =
        (await this.count(keyId, day, now, { limit, window, opening: false })) ?? (await this.count(keyId, day, now, { limit, window, opening: true }));
      if (used !== null) return { allowed: true, used };
      const { Item } = await this.doc.send(
        new GetCommand({
          TableName: this.tableName,
          Key: usageKey(keyId, day),
          ProjectionExpression: 'requests, rate_window, rate_count',
          ConsistentRead: true,
        }),
      );
      usedToday = Number(Item?.requests ?? 0);
      if (limit !== null && usedToday >= limit) return { allowed: false, used: limit, refusedBy: 'quota' };
      if (Number(Item?.rate_window) >= window.id && Number(Item?.rate_count ?? 0) >= window.limit)
        return { allowed: false, used: usedToday, refusedBy: 'rate' };
      // Another request opened the window between the two writes: count in it.
    }
    return { allowed: false, used: usedToday, refusedBy: 'rate' };
  }

  /**
   * One conditional ADD of a request: under the day's limit and, with a window, either inside it
   * below its limit or (`opening`) starting it. The day's count after it, or null when a condition failed.
   */
  private async count(
    keyId: string,
    day: string,
    now: Date,
    options: { limit: number | null; window?: RateWindow; opening?: boolean },
  ): Promise<number | null> {
    const { limit, window, opening } = options;
    const conditions = limit === null ? [] : ['(attribute_not_exists(requests) OR requests < :limit)'];
    let rateUpdate = '';
    if (window && opening) {
      conditions.push('(attribute_not_exists(rate_window) OR rate_window < :window)');
      rateUpdate = ', rate_window = :window, rate_count = :one';
    } else if (window) {
      // A window opened by a caller whose clock runs ahead is this one too.
      conditions.push('rate_window >= :window AND rate_count < :rateLimit');
    }
    try {
      const { Attributes } = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: usageKey(keyId, day),
          UpdateExpression: `ADD requests :one${window && !opening ? ', rate_count :one' : ''} SET last_used_at = :now, expires_at = :expires, entity = :entity${rateUpdate}`,
          ...(conditions.length > 0 ? { ConditionExpression: conditions.join(' AND ') } : {}),
          ExpressionAttributeValues: {
            ':one': 1,
            ':now': now.toISOString(),
            ':expires': expiresAt(day),
            ':entity': 'usage',
            ...(limit === null ? {} : { ':limit': limit }),
            ...(window ? { ':window': window.id } : {}),
            ...(window && !opening ? { ':rateLimit': window.limit } : {}),
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.requests ?? 1);
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return null;
      throw error;
    }
  }

  async used(keyId: string, day: string): Promise<number> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: usageKey(keyId, day), ProjectionExpression: 'requests' }));
    return Number(Item?.requests ?? 0);
  }

  async record(keyId: string, day: string, response: { status: number; latencyMs: number }): Promise<void> {
    const bucket = latencyBucketOf(response.latencyMs);
    if (this.flushIntervalMs > 0) {
      const entry = this.pendingFor(keyId, day);
      entry.responses++;
      if (response.status >= 400) entry.errors++;
      entry.buckets.set(bucket, (entry.buckets.get(bucket) ?? 0) + 1);
      return;
    }
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: usageKey(keyId, day),
        UpdateExpression: `ADD responses :one, errors :error, #bucket :one SET expires_at = :expires, entity = :entity`,
        ExpressionAttributeNames: { '#bucket': `lat_${bucket}` },
        ExpressionAttributeValues: { ':one': 1, ':error': response.status >= 400 ? 1 : 0, ':expires': expiresAt(day), ':entity': 'usage' },
      }),
    );
  }

  async history(keyId: string, days: number): Promise<DailyUsage[]> {
    await this.flush();
    const { Items } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :day)',
        ExpressionAttributeValues: { ':pk': `usage#${keyId}`, ':day': 'day#' },
        ScanIndexForward: false,
        Limit: days,
      }),
    );
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
