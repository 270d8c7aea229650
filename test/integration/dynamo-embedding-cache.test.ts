import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoEmbeddingCache } from '../../lambdas/adapters/aws/dynamo-embedding-cache';
import { type DynaliteTable, startDynaliteTable } from '../support/dynalite-table';

const TABLE = 'gcf-records';
const DAY_SECONDS = 86_400;

/** Vectors whose floats cover what a lossy encoding would damage: tiny, huge, negative zero, many digits. */
function awkwardVector(seed: number, dimensions = 1024): Float32Array {
  const vector = Float32Array.from({ length: dimensions }, (_, i) => Math.sin(seed * 7919 + i * 104_729) / (1 + (i % 7)));
  vector[0] = -0;
  vector[1] = 1.401298464324817e-45; // the smallest subnormal float
  vector[2] = 3.4028234663852886e38; // the largest float
  vector[3] = seed;
  return vector;
}

const bytesOf = (vector: Float32Array) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

/**
 * Makes the next `times` BatchGetItem answers leave half their keys unprocessed, as a throttled
 * table does; dynalite itself always answers in full. At the build step the document client has
 * already turned the answer's items into plain values, so the keys handed back are plain too.
 */
function leaveHalfOfBatchGetsUnprocessed(client: DynamoDBClient, times: number) {
  const calls = { batchGets: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName !== 'BatchGetItemCommand') return result;
      calls.batchGets++;
      const output = result.output as { Responses?: Record<string, Record<string, unknown>[]>; UnprocessedKeys?: Record<string, { Keys: unknown[] }> };
      const responses = output.Responses?.[TABLE] ?? [];
      if (times-- <= 0 || responses.length < 2) return result;
      const withheld = responses.splice(0, Math.ceil(responses.length / 2));
      output.UnprocessedKeys = { [TABLE]: { Keys: withheld.map((item) => ({ pk: item.pk, sk: 'vector' })) } };
      return result;
    },
    { step: 'build', name: 'leaveHalfOfBatchGetsUnprocessed' },
  );
  return calls;
}

describe('DynamoEmbeddingCache on dynalite', () => {
  let table: DynaliteTable;
  const clientFor = () => table.client();
  let client: DynamoDBClient;

  beforeAll(async () => {
    table = await startDynaliteTable(TABLE);
    client = clientFor();
  });

  afterAll(async () => {
    client.destroy();
    await table.close();
  });

  it('returns 250 vectors bit for bit, in batches larger than one request holds', async () => {
    const cache = new DynamoEmbeddingCache(client, TABLE);
    const entries = new Map(Array.from({ length: 250 }, (_, i) => [`bedrock:amazon.titan-embed-text-v2:0#text-${i}`, awkwardVector(i)] as const));
    await cache.put(entries);
    const found = await cache.get([...entries.keys()]);
    expect(found.size).toBe(250);
    for (const [key, vector] of entries) expect(bytesOf(found.get(key)!).equals(bytesOf(vector))).toBe(true);
  });

  it('leaves keys it does not hold out of the answer, and takes a key asked for twice', async () => {
    const cache = new DynamoEmbeddingCache(client, TABLE);
    await cache.put(new Map([['present', awkwardVector(1, 8)]]));
    const found = await cache.get(['absent-1', 'present', 'absent-2', 'present']);
    expect([...found.keys()]).toEqual(['present']);
    expect(await cache.get([])).toEqual(new Map());
  });

  it('overwrites a vector and pushes its expiry forward', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const cache = new DynamoEmbeddingCache(client, TABLE, { clock: { now: () => new Date(now) } });
    const expiryOf = async () =>
      Number((await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'embedding#rewritten' }, sk: { S: 'vector' } } }))).Item?.expires_at?.N);

    await cache.put(new Map([['rewritten', awkwardVector(1, 16)]]));
    expect(await expiryOf()).toBe(now / 1000 + 400 * DAY_SECONDS);
    now += 30 * DAY_SECONDS * 1000;
    await cache.put(new Map([['rewritten', awkwardVector(2, 16)]]));
    expect(await expiryOf()).toBe(now / 1000 + 400 * DAY_SECONDS);
    expect(bytesOf((await cache.get(['rewritten'])).get('rewritten')!).equals(bytesOf(awkwardVector(2, 16)))).toBe(true);
  });

  it('stores an embedding item of the single-table layout, its vector as little-endian Float32 bytes', async () => {
    const cache = new DynamoEmbeddingCache(client, TABLE);
    const vector = Float32Array.of(1, -2.5, 0.1);
    await cache.put(new Map([['layout', vector]]));
    const { Item } = await client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'embedding#layout' }, sk: { S: 'vector' } } }));
    expect(Item?.entity).toEqual({ S: 'embedding' });
    const expected = Buffer.alloc(12);
    vector.forEach((value, i) => expected.writeFloatLE(value, i * 4));
    expect(Buffer.from(Item!.vector!.B!).equals(expected)).toBe(true);
  });

  it('asks again for keys DynamoDB left unprocessed', async () => {
    const throttled = clientFor();
    const calls = leaveHalfOfBatchGetsUnprocessed(throttled, 2);
    const cache = new DynamoEmbeddingCache(throttled, TABLE);
    const entries = new Map(Array.from({ length: 40 }, (_, i) => [`unprocessed-${i}`, awkwardVector(i, 4)] as const));
    await cache.put(entries);
    const found = await cache.get([...entries.keys()]);
    expect(found.size).toBe(40);
    expect(calls.batchGets).toBe(3);
    throttled.destroy();
  });
});
