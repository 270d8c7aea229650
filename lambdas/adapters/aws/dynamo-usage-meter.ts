import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, type QueryCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateWindow } from '../../core/auth/rate-window';
import { hourOfDay, utcHourOf } from '../../core/usage/hour-buckets';
import type { Admission, DailyUsage, HourlyUsage, UsageMeter } from '../../ports/usage-meter';
import { dailyRows, dayItemKey, hourItemKey, hourlyRequestsAttribute, hourlyRows, responseAdds, usagePartition } from './dynamo-usage-rows';
import { DOCUMENT_CLIENT_OPTIONS } from './records-table';

/**
 * Usage counters in the records table (item shapes in dynamo-usage-rows.ts): one day item per key
 * per UTC day and one hour item per key per UTC hour with responses. The quota is one conditional
 * atomic ADD on the day item, exact under concurrency, which counts the request's hour too; the
 * tier's rate window (rate_window, rate_count) is counted by the same ADD, so a throttled request
 * costs no extra write but once per window. A response is one ADD on its hour item. Items expire
 * (TTL) after a quarter.
 */

const RETENTION_SECONDS = 92 * 86_400;
const expiresAt = (day: string) => Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + RETENTION_SECONDS;

export interface DynamoUsageMeterOptions {
  /**
   * Figures that need no exact count at once (response counts and times, and the requests of
   * unlimited keys) are summed in memory and written every this many milliseconds, one update
   * per key and item; 0 writes each at once. Quota counts of limited keys are always written at once.
   * @default 0
   */
  flushIntervalMs?: number;
}

/** What waits for a flush, for one key and hour: requests for the day item, response ADDs for the hour item. */
interface PendingUsage {
  keyId: string;
  day: string;
  hour: string;
  requests: number;
  responseAdds: Map<string, number>;
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

  private pendingFor(keyId: string, day: string, hour: string): PendingUsage {
    const id = `${keyId}\u0000${day}\u0000${hour}`;
    let entry = this.pending.get(id);
    if (!entry) {
      entry = { keyId, day, hour, requests: 0, responseAdds: new Map(), lastUsedAt: null };
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
   * Writes what is pending: one update per item (day or hour) it changes. A failed write is kept for the next flush.
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
      const { keyId, day, hour } = entry;
      try {
        if (entry.requests > 0 || entry.lastUsedAt) {
          const requests: Record<string, number> =
            entry.requests > 0 ? { requests: entry.requests, [hourlyRequestsAttribute(hourOfDay(hour))]: entry.requests } : {};
          await this.add(dayItemKey(keyId, day), requests, day, 'usage', entry.lastUsedAt);
          entry.requests = 0;
          entry.lastUsedAt = null;
        }
        if (entry.responseAdds.size > 0) await this.add(hourItemKey(keyId, hour), Object.fromEntries(entry.responseAdds), day, 'usage-hour', null);
      } catch {
        // Kept for the next flush: what was written above was cleared from the entry first.
        const kept = this.pendingFor(keyId, day, hour);
        kept.requests += entry.requests;
        kept.lastUsedAt ??= entry.lastUsedAt;
        for (const [name, n] of entry.responseAdds) kept.responseAdds.set(name, (kept.responseAdds.get(name) ?? 0) + n);
      }
    }
  }

  /** One unconditional update: ADD each of `adds`, and set the TTL and entity (and last_used_at when given). */
  private async add(key: Record<string, string>, adds: Record<string, number>, day: string, entity: string, lastUsedAt: string | null): Promise<void> {
    const names = Object.keys(adds);
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: key,
        UpdateExpression: [
          names.length > 0 ? `ADD ${names.map((_, i) => `#a${i} :a${i}`).join(', ')}` : '',
          `SET expires_at = :expires, entity = :entity${lastUsedAt ? ', last_used_at = :last' : ''}`,
        ].join(' '),
        ...(names.length > 0 ? { ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#a${i}`, name])) } : {}),
        ExpressionAttributeValues: {
          ...Object.fromEntries(names.map((name, i) => [`:a${i}`, adds[name]])),
          ':expires': expiresAt(day),
          ':entity': entity,
          ...(lastUsedAt ? { ':last': lastUsedAt } : {}),
        },
      }),
    );
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
      const entry = this.pendingFor(keyId, day, utcHourOf(now));
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
          Key: dayItemKey(keyId, day),
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
          Key: dayItemKey(keyId, day),
          UpdateExpression: `ADD requests :one, #hourRequests :one${window && !opening ? ', rate_count :one' : ''} SET last_used_at = :now, expires_at = :expires, entity = :entity${rateUpdate}`,
          ...(conditions.length > 0 ? { ConditionExpression: conditions.join(' AND ') } : {}),
          ExpressionAttributeNames: { '#hourRequests': hourlyRequestsAttribute(now.getUTCHours()) },
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
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: dayItemKey(keyId, day), ProjectionExpression: 'requests' }));
    return Number(Item?.requests ?? 0);
  }

  async record(keyId: string, day: string, response: { status: number; latencyMs: number; at: Date }): Promise<void> {
    const adds = responseAdds(response.status, response.latencyMs);
    const hour = utcHourOf(response.at);
    if (this.flushIntervalMs > 0) {
      const entry = this.pendingFor(keyId, day, hour);
      for (const [name, n] of Object.entries(adds)) entry.responseAdds.set(name, (entry.responseAdds.get(name) ?? 0) + n);
      return;
    }
    await this.add(hourItemKey(keyId, hour), adds, day, 'usage-hour', null);
  }

  async history(keyId: string, days: number): Promise<DailyUsage[]> {
    await this.flush();
    const dayItems = await this.query({ prefix: 'day#', newestFirst: true, limit: days }, keyId);
    // Enough hours for `days` days however they fall (a day has at most 24).
    const hourItems = await this.query({ prefix: 'hour#', newestFirst: true, limit: days * 24 }, keyId);
    return dailyRows(dayItems, hourItems, days);
  }

  async hourly(keyId: string, fromDay: string, toDay: string): Promise<HourlyUsage[]> {
    await this.flush();
    const [dayItems, hourItems] = await Promise.all([
      this.query({ from: `day#${fromDay}`, to: `day#${toDay}` }, keyId),
      this.query({ from: `hour#${fromDay}T00`, to: `hour#${toDay}T23` }, keyId),
    ]);
    return hourlyRows(dayItems, hourItems);
  }

  /** Items of the key's partition by sort key prefix (with a limit) or range, every page. */
  private async query(
    range: { prefix: string; newestFirst: boolean; limit: number } | { from: string; to: string },
    keyId: string,
  ): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    const input: QueryCommandInput =
      'prefix' in range
        ? {
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            ExpressionAttributeValues: { ':pk': usagePartition(keyId), ':prefix': range.prefix },
            ScanIndexForward: !range.newestFirst,
          }
        : {
            TableName: this.tableName,
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            ExpressionAttributeValues: { ':pk': usagePartition(keyId), ':from': range.from, ':to': range.to },
          };
    const limit = 'limit' in range ? range.limit : Number.POSITIVE_INFINITY;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({ ...input, ExclusiveStartKey: startKey, ...(Number.isFinite(limit) ? { Limit: limit - items.length } : {}) }),
      );
      items.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey && items.length < limit);
    return items;
  }
}
