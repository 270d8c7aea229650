import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { Matches } from '../../lambdas/adapters/embedded/vector-matrix';
import { VectorScans, type VectorSearch } from '../../lambdas/adapters/embedded/vector-scans';
import { WorkerVectorScans } from '../../lambdas/adapters/embedded/worker-vector-scans';
import type { ResourceKind } from '../../lambdas/core/records';

/**
 * The embedded index's exact vector scans (vector-scans.ts), in this thread and in a worker
 * (worker-vector-scans.ts): every record whose cosine reaches the floor is found, with the same
 * cosine whatever route scored it and whatever other queries shared its product, and writes count
 * in the order they were made.
 */

const DIMENSIONS = 24;

const unit = (xs: readonly number[]): Float32Array => {
  const norm = Math.hypot(...xs) || 1;
  return Float32Array.from(xs, (x) => x / norm);
};

const vectorArb = fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: DIMENSIONS, maxLength: DIMENSIONS }).map(unit);

function packed(vectors: readonly Float32Array[]): Float32Array {
  const values = new Float32Array(vectors.length * DIMENSIONS);
  vectors.forEach((vector, i) => values.set(vector, i * DIMENSIONS));
  return values;
}

/** Matches as a map from rowid to cosine, for comparing sets whatever their order. */
const byRowid = ({ rowids, cosines }: Matches) => new Map(Array.from(rowids, (rowid, i) => [rowid, cosines[i]!]));

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, d) => sum + x * b[d]!, 0);

const opened: VectorSearch[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((scans) => scans.close()));
});

function inThread(): VectorScans {
  const scans = new VectorScans(DIMENSIONS);
  opened.push(scans);
  return scans;
}

describe('VectorScans', () => {
  it('finds every record at or above the floor, forgets deleted ones, and refuses vectors of another width', async () => {
    const scans = inThread();
    const vectors = [unit([1, 0]), unit([1, 1]), unit([0, 1]), unit([-1, 0])].map((v) => Float32Array.from({ length: DIMENSIONS }, (_, d) => v[d] ?? 0));
    scans.set('grant', Int32Array.of(1, 2, 3, 5), packed(vectors));
    const query = vectors[0]!;
    const rowids = async (floor: number) => Array.from((await scans.matchesAbove('grant', query, floor)).rowids).sort();
    expect(await rowids(0.5)).toEqual([1, 2]);
    expect(await rowids(-1)).toEqual([1, 2, 3, 5]);
    scans.delete('grant', Int32Array.of(2));
    scans.set('grant', Int32Array.of(7), packed([unit([1, 0.1, ...new Array(DIMENSIONS - 2).fill(0)])])); // takes the freed slot
    expect(await rowids(0.5)).toEqual([1, 7]);
    expect(scans.size('grant')).toBe(4);
    expect(Array.from((await scans.matchesAbove('contract', query, -1)).rowids)).toEqual([]);
    expect(() => scans.set('grant', Int32Array.of(9), new Float32Array(DIMENSIONS - 1))).toThrow(/cannot be/);
  });

  it('gives each record the same cosine alone or among other queries, by either route, close to the exact dot product', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(vectorArb, { minLength: 1, maxLength: 120 }),
        fc.array(vectorArb, { minLength: 1, maxLength: 6 }),
        fc.double({ min: -0.5, max: 0.9, noNaN: true }),
        async (vectors, queries, floor) => {
          const scans = new VectorScans(DIMENSIONS);
          const rowids = Int32Array.from(vectors, (_, i) => i * 3 + 1);
          scans.set('grant', rowids, packed(vectors));
          // Asked in one turn: one product for all the queries.
          const together = await Promise.all(queries.map((query) => scans.matchesAbove('grant', query, floor)));
          for (const [q, query] of queries.entries()) {
            const alone = await scans.matchesAbove('grant', query, floor);
            expect(byRowid(together[q]!)).toEqual(byRowid(alone));
            const cosines = await scans.cosinesOf('grant', rowids, query);
            const found = byRowid(alone);
            rowids.forEach((rowid, i) => {
              const exact = dot(vectors[i]!, query);
              expect(cosines[i]).toBeCloseTo(exact, 5);
              // Above the floor exactly when its cosine is, and with that very cosine.
              expect(found.has(rowid)).toBe(cosines[i]! >= floor);
              if (found.has(rowid)) expect(found.get(rowid)).toBe(cosines[i]);
            });
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('gives thousands of rows, scored a few thousand at a time, the very cosines of a scan', async () => {
    const scans = inThread();
    const vectors = Array.from({ length: 5000 }, (_, i) => unit(Array.from({ length: DIMENSIONS }, (_, d) => Math.sin(i * 0.7 + d * 1.9))));
    scans.set(
      'grant',
      Int32Array.from(vectors, (_, i) => i + 1),
      packed(vectors),
    );
    const query = unit(Array.from({ length: DIMENSIONS }, (_, d) => Math.cos(d)));
    const scanned = byRowid(await scans.matchesAbove('grant', query, -2));
    const asked = Int32Array.from({ length: 5002 }, (_, i) => 5002 - i); // 5002 and 5001 have no vector
    const cosines = await scans.cosinesOf('grant', asked, query);
    expect(cosines[0]).toBeNaN();
    expect(cosines[1]).toBeNaN();
    asked.subarray(2).forEach((rowid, i) => expect(cosines[i + 2]).toBe(scanned.get(rowid)));
  });

  it("gives NaN, in the caller's order, for rows without a vector", async () => {
    const scans = inThread();
    const vectors = Array.from({ length: 50 }, (_, i) => unit(Array.from({ length: DIMENSIONS }, (_, d) => Math.sin(i * 7 + d * 3))));
    scans.set(
      'grant',
      Int32Array.from(vectors, (_, i) => i + 1),
      packed(vectors),
    );
    scans.delete('grant', Int32Array.of(17));
    const query = vectors[4]!;
    const asked = Int32Array.of(50, 17, 5000, 5, 1);
    const cosines = Array.from(await scans.cosinesOf('grant', asked, query));
    expect(cosines[1]).toBeNaN();
    expect(cosines[2]).toBeNaN();
    expect(cosines[0]).toBeCloseTo(dot(vectors[49]!, query), 5);
    expect(cosines[3]).toBeCloseTo(1, 5);
    expect(cosines[4]).toBeCloseTo(dot(vectors[0]!, query), 5);
  });

  it('applies a write made while a scan runs after that scan, and before any scan asked for later', async () => {
    const scans = inThread();
    const [a, b] = [unit([1, ...new Array(DIMENSIONS - 1).fill(0)]), unit([0, 1, ...new Array(DIMENSIONS - 2).fill(0)])];
    scans.set('grant', Int32Array.of(1), packed([a]));
    const first = scans.matchesAbove('grant', a, 0.9);
    await new Promise((resolve) => setImmediate(resolve)); // the product is under way
    scans.set('grant', Int32Array.of(1), packed([b]));
    scans.set('grant', Int32Array.of(2), packed([a]));
    const second = scans.matchesAbove('grant', a, 0.9);
    expect(Array.from((await first).rowids)).toEqual([1]);
    expect(Array.from((await second).rowids)).toEqual([2]);
    expect(Array.from(await scans.cosinesOf('grant', Int32Array.of(1, 2), a)).map((c) => Math.round(c))).toEqual([0, 1]);
  });
});

describe('WorkerVectorScans', () => {
  it('answers every scan and cosine exactly as the same scans in this thread, writes in between included', async () => {
    const here = inThread();
    let reloads = 0;
    const there = new WorkerVectorScans(DIMENSIONS, () => reloads++);
    opened.push(there);
    const vectors = Array.from({ length: 400 }, (_, i) => unit(Array.from({ length: DIMENSIONS }, (_, d) => Math.cos(i * 0.37 + d * 1.3))));
    const queries = vectors.slice(0, 12).map((v) => unit(Array.from(v, (x, d) => x + 0.3 * Math.sin(d))));
    const write = (kind: ResourceKind, from: number, to: number) => {
      for (const scans of [here, there])
        scans.set(
          kind,
          Int32Array.from({ length: to - from }, (_, i) => from + i + 1),
          packed(vectors.slice(from, to)),
        );
    };
    write('grant', 0, 300);
    write('contract', 300, 400);
    const ask = (scans: VectorSearch) => Promise.all(queries.map((query, q) => scans.matchesAbove(q % 3 === 0 ? 'contract' : 'grant', query, 0.2)));
    const before = await Promise.all([ask(here), ask(there)]);
    before[0].forEach((matches, q) => expect(byRowid(before[1][q]!)).toEqual(byRowid(matches)));
    for (const scans of [here, there])
      scans.delete(
        'grant',
        Int32Array.from({ length: 100 }, (_, i) => i * 2 + 1),
      );
    const after = await Promise.all([ask(here), ask(there)]);
    after[0].forEach((matches, q) => expect(byRowid(after[1][q]!)).toEqual(byRowid(matches)));
    expect(after[1].some((matches, q) => byRowid(matches).size !== byRowid(before[1][q]!).size)).toBe(true);
    const rowids = Int32Array.from({ length: 300 }, (_, i) => 300 - i);
    expect(Array.from(await there.cosinesOf('grant', rowids, queries[1]!))).toEqual(Array.from(await here.cosinesOf('grant', rowids, queries[1]!)));
    expect(reloads).toBe(0);
  });

  it('fails the scans a dead worker owed, then starts another and has the index send its vectors again', async () => {
    const vector = unit([1, ...new Array(DIMENSIONS - 1).fill(0)]);
    let scans: WorkerVectorScans;
    const reloaded = new Promise<void>((resolve) => {
      scans = new WorkerVectorScans(DIMENSIONS, (fresh) => {
        fresh.set('grant', Int32Array.of(9), packed([vector]));
        resolve();
      });
    });
    opened.push(scans!);
    scans!.set('grant', Int32Array.of(1), packed([vector]));
    expect(Array.from((await scans!.matchesAbove('grant', vector, 0.5)).rowids)).toEqual([1]);
    // A write the worker throws on (a vector of the wrong width) ends it, as any uncaught error
    // in it would; the scan sent after it is owed by a worker that is gone.
    scans!.set('grant', Int32Array.of(2), new Float32Array(DIMENSIONS - 1));
    const owed = scans!.matchesAbove('grant', vector, 0.5);
    await expect(owed).rejects.toThrow(/vector worker stopped \(exit code 1\); its scans are lost, and a new worker is loading the vectors/);
    await reloaded;
    expect(Array.from((await scans!.matchesAbove('grant', vector, 0.5)).rowids)).toEqual([9]);
  });

  it('answers the scans it owes before it stops', async () => {
    const scans = new WorkerVectorScans(DIMENSIONS, () => {});
    const vector = unit([1, ...new Array(DIMENSIONS - 1).fill(0)]);
    scans.set('grant', Int32Array.of(4), packed([vector]));
    const owed = scans.matchesAbove('grant', vector, 0.5);
    await scans.close();
    expect(Array.from((await owed).rowids)).toEqual([4]);
    await expect(scans.matchesAbove('grant', vector, 0.5)).rejects.toThrow(/closed/);
  });
});
