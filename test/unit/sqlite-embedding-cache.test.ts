import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteEmbeddingCache } from '../../lambdas/adapters/embedded/sqlite-embedding-cache';

const bytesOf = (vector: Float32Array) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
const vectorFor = (seed: number, dimensions = 100) =>
  Float32Array.from({ length: dimensions }, (_, i) => (i === 0 ? -0 : Math.cos(seed * 31 + i) * 10 ** ((i % 9) - 4)));

describe('SqliteEmbeddingCache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-embedding-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('returns what was put bit for bit, and nothing for keys it does not hold', async () => {
    const cache = new SqliteEmbeddingCache(':memory:');
    const entries = new Map(Array.from({ length: 300 }, (_, i) => [`wink-sg-100d#${i}`, vectorFor(i)] as const));
    await cache.put(entries);
    const found = await cache.get(['absent', ...entries.keys(), 'also-absent']);
    expect(found.size).toBe(300);
    for (const [key, vector] of entries) expect(bytesOf(found.get(key)!).equals(bytesOf(vector))).toBe(true);
    expect(await cache.get([])).toEqual(new Map());
    cache.close();
  });

  it('overwrites a vector put again under the same key', async () => {
    const cache = new SqliteEmbeddingCache(':memory:');
    await cache.put(new Map([['key', vectorFor(1)]]));
    await cache.put(new Map([['key', vectorFor(2, 4)]]));
    expect((await cache.get(['key'])).get('key')).toEqual(vectorFor(2, 4));
    cache.close();
  });

  it('stores a vector that is a view into a larger buffer as just that view', async () => {
    const cache = new SqliteEmbeddingCache(':memory:');
    const matrix = Float32Array.from({ length: 12 }, (_, i) => i);
    await cache.put(new Map([['row', matrix.subarray(4, 8)]]));
    expect((await cache.get(['row'])).get('row')).toEqual(Float32Array.of(4, 5, 6, 7));
    cache.close();
  });

  it('keeps vectors in a file across reopening', async () => {
    const file = join(dir, 'embeddings.sqlite');
    const first = new SqliteEmbeddingCache(file);
    await first.put(new Map([['kept', vectorFor(3)]]));
    first.close();
    const second = new SqliteEmbeddingCache(file);
    expect(bytesOf((await second.get(['kept'])).get('kept')!).equals(bytesOf(vectorFor(3)))).toBe(true);
    second.close();
  });
});
