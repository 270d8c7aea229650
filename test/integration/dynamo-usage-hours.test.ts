import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoRequestLog } from '../../lambdas/adapters/aws/dynamo-request-log';
import { DynamoUsageMeter } from '../../lambdas/adapters/aws/dynamo-usage-meter';
import { latencyBucketOf } from '../../lambdas/core/auth/latency-histogram';
import type { RequestLogEntry } from '../../lambdas/ports/request-log';
import { type DynaliteTable, startDynaliteTable } from '../support/dynalite-table';

/** The usage meter's hour items and the request log against dynalite, DynamoDB's API in process. */

const TABLE = 'usage-hours';
let table: DynaliteTable;
let doc: DynamoDBDocumentClient;

beforeAll(async () => {
  table = await startDynaliteTable(TABLE);
  doc = DynamoDBDocumentClient.from(table.client());
});
afterAll(() => table?.close());

describe('usage by hour', () => {
  it('counts requests and responses per hour exactly under concurrency', async () => {
    const meter = new DynamoUsageMeter(table.client(), TABLE);
    const at = (hour: string) => new Date(`2026-11-22T${hour}:15:00Z`);
    const statuses = [200, 200, 404, 429, 500];
    await Promise.all([
      ...Array.from({ length: 60 }, () => meter.consume('key_c', '2026-11-22', 100, at('09'))),
      ...Array.from({ length: 60 }, () => meter.consume('key_c', '2026-11-22', 100, at('10'))),
      ...Array.from({ length: 100 }, (_, i) => meter.record('key_c', '2026-11-22', { status: statuses[i % 5]!, latencyMs: 20, at: at('09') })),
      ...Array.from({ length: 20 }, () => meter.record('key_c', '2026-11-22', { status: 200, latencyMs: 300, at: at('10') })),
    ]);
    const hours = await meter.hourly('key_c', '2026-11-22', '2026-11-22');
    expect(hours.map((h) => h.hour)).toEqual(['2026-11-22T09', '2026-11-22T10']);
    // The quota of 100 admitted exactly 100 of the 120, split by the hour each came in.
    expect(hours[0]!.requests + hours[1]!.requests).toBe(100);
    expect(await meter.used('key_c', '2026-11-22')).toBe(100);
    expect(hours[0]).toMatchObject({ responses: 100, errors: 60, errors4xx: 40, errors5xx: 20, rateLimited: 20 });
    expect(hours[0]!.latencyCounts[latencyBucketOf(20)]).toBe(100);
    expect(hours[1]).toMatchObject({ responses: 20, errors: 0, errors4xx: 0, errors5xx: 0, rateLimited: 0 });
    expect(hours[1]!.p50Ms).toBeGreaterThan(250);
    const [day] = await meter.history('key_c', 1);
    expect(day).toMatchObject({ day: '2026-11-22', requests: 100, responses: 120, errors: 60, errors4xx: 40, errors5xx: 20, rateLimited: 20 });
    expect(day!.lastUsedAt).toMatch(/^2026-11-22T(09|10):15:00/);
  });

  it('keeps each hour within the days asked for, and days with refusals only', async () => {
    const meter = new DynamoUsageMeter(table.client(), TABLE);
    // A free key: refused before the quota counts, so only its responses are recorded.
    await meter.record('key_free', '2026-11-20', { status: 403, latencyMs: 2, at: new Date('2026-11-20T23:59:00Z') });
    await meter.record('key_free', '2026-11-21', { status: 403, latencyMs: 2, at: new Date('2026-11-21T00:00:00Z') });
    expect((await meter.hourly('key_free', '2026-11-21', '2026-11-21')).map((h) => [h.hour, h.requests, h.errors4xx])).toEqual([['2026-11-21T00', 0, 1]]);
    expect((await meter.history('key_free', 30)).map((d) => [d.day, d.requests, d.responses])).toEqual([
      ['2026-11-21', 0, 1],
      ['2026-11-20', 0, 1],
    ]);
    expect((await meter.history('key_free', 1)).map((d) => d.day)).toEqual(['2026-11-21']);
  });

  it('adds the response figures day items held before the hour items existed', async () => {
    const meter = new DynamoUsageMeter(table.client(), TABLE);
    const bucket = latencyBucketOf(40);
    await doc.send(
      new PutCommand({
        TableName: TABLE,
        Item: { pk: 'usage#key_old', sk: 'day#2026-11-22', requests: 5, responses: 5, errors: 2, [`lat_${bucket}`]: 5, entity: 'usage' },
      }),
    );
    await meter.consume('key_old', '2026-11-22', null, new Date('2026-11-22T12:00:00Z'));
    await meter.record('key_old', '2026-11-22', { status: 500, latencyMs: 40, at: new Date('2026-11-22T12:00:00Z') });
    const [day] = await meter.history('key_old', 1);
    expect(day).toMatchObject({ requests: 6, responses: 6, errors: 3, errors5xx: 1 });
    expect(day!.latencyCounts[bucket]).toBe(6);
  });

  it('writes batched figures to the same items when flushing', async () => {
    const meter = new DynamoUsageMeter(table.client(), TABLE, { flushIntervalMs: 60_000 });
    const at = new Date('2026-11-23T07:30:00Z');
    for (let i = 0; i < 6; i++) {
      await meter.consume('key_dev', '2026-11-23', null, at);
      await meter.record('key_dev', '2026-11-23', { status: i === 0 ? 503 : 200, latencyMs: 8, at });
    }
    expect(await meter.hourly('key_dev', '2026-11-23', '2026-11-23')).toMatchObject([{ hour: '2026-11-23T07', requests: 6, responses: 6, errors5xx: 1 }]);
    const stored = await doc.send(new GetCommand({ TableName: TABLE, Key: { pk: 'usage#key_dev', sk: 'hour#2026-11-23T07' } }));
    expect(stored.Item).toMatchObject({ responses: 6, errors: 1, errors_5xx: 1, entity: 'usage-hour' });
    expect(stored.Item!.expires_at).toBe(Date.parse('2026-11-23T00:00:00Z') / 1000 + 92 * 86_400);
    await meter.close();
  });
});

describe('the recent-requests log', () => {
  const entry = (at: string, requestId: string, status = 200): RequestLogEntry => ({
    at,
    method: 'GET',
    path: '/grants-api',
    status,
    latencyMs: 12.5,
    requestId,
  });
  const now = new Date('2026-11-29T12:00:00Z');

  it("returns the newest entries first, in bounded pages, without expired ones or another key's", async () => {
    const log = new DynamoRequestLog(table.client(), TABLE);
    const times = ['2026-11-21T11:59:59.000Z', '2026-11-22T12:00:01.000Z', '2026-11-25T08:00:00.000Z', '2026-11-29T11:00:00.000Z', '2026-11-29T11:00:00.000Z'];
    await Promise.all(times.map((at, i) => log.append('key_log', entry(at, `req-${i}`, i === 3 ? 404 : 200))));
    await log.append('key_other', entry('2026-11-29T11:30:00.000Z', 'req-other'));

    const first = await log.recent('key_log', { limit: 2, cursor: null, now });
    expect(first.entries.map((e) => e.requestId)).toEqual(['req-4', 'req-3']);
    expect(first.entries[1]).toEqual({ at: '2026-11-29T11:00:00.000Z', method: 'GET', path: '/grants-api', status: 404, latencyMs: 12.5, requestId: 'req-3' });
    const second = await log.recent('key_log', { limit: 2, cursor: first.nextCursor, now });
    // req-0 is more than seven days old: dynalite keeps it, the read leaves it out.
    expect(second.entries.map((e) => e.requestId)).toEqual(['req-2', 'req-1']);
    expect(second.nextCursor).toBeNull();
    expect((await log.recent('key_log', { limit: 200, cursor: null, now })).entries).toHaveLength(4);

    const stored = await doc.send(new GetCommand({ TableName: TABLE, Key: { pk: 'reqlog#key_log', sk: '2026-11-21T11:59:59.000Z#req-0' } }));
    expect(stored.Item?.expires_at).toBe(Date.parse('2026-11-28T11:59:59Z') / 1000);
  });

  it('a cursor of one key reads nothing of another', async () => {
    const log = new DynamoRequestLog(table.client(), TABLE);
    const { nextCursor } = await log.recent('key_log', { limit: 1, cursor: null, now });
    const other = await log.recent('key_other', { limit: 50, cursor: nextCursor, now });
    // The position lies in key_log's partition; in key_other's it only bounds the read, older than its one entry.
    expect(other).toEqual({ entries: [], nextCursor: null });
  });
});
