import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowsInOrder } from '../../lambdas/adapters/embedded/field-orders';
import { idRanksOf } from '../../lambdas/adapters/embedded/id-order';
import { narrowedRanking, type Ranking, rankingWithin, rankMatches, sortedThrough, unsortedRanking } from '../../lambdas/adapters/embedded/ranked-set';
import { setBit, wordsFor } from '../../lambdas/adapters/embedded/row-bitmap';

/**
 * The embedded index orders a ranked set only as far as pages ask (sortedThrough) and narrows a
 * whole-catalogue set to a query's filters (rankingWithin). Each is checked here against a plain
 * statement of what it must give (fusion itself: search-core.test.ts).
 */

const ROWS = 200;

/** Distinct rowids below ROWS, in a random order, with a score each. */
const scoredRows = fc
  .uniqueArray(fc.integer({ min: 0, max: ROWS - 1 }), { maxLength: 80 })
  .chain((rowids) =>
    fc.tuple(fc.constant(rowids), fc.array(fc.float({ min: 0, max: 1, noNaN: true }), { minLength: rowids.length, maxLength: rowids.length })),
  );

/** Ids in an order unrelated to rowids (ties must be broken by id, not rowid), from a shuffle of places. */
const idsOf = (places: readonly number[]) => new Map(Array.from({ length: ROWS }, (_, rowid) => [rowid, `id-${String(places[rowid]).padStart(3, '0')}`]));
const placesArb = fc.shuffledSubarray(
  Array.from({ length: ROWS }, (_, i) => i),
  { minLength: ROWS, maxLength: ROWS },
);

/** The order a ranked set must end in: score (descending; +0 above -0, as their bits order), then id. */
function plainOrder(rowids: number[], scores: number[], ids: Map<number, string>): number[] {
  const signOfZero = (score: number) => (Object.is(score, -0) ? 0 : 1);
  return rowids
    .map((rowid, i) => ({ rowid, score: Math.fround(scores[i]!) }))
    .sort((a, b) => b.score - a.score || signOfZero(b.score) - signOfZero(a.score) || (ids.get(a.rowid)! < ids.get(b.rowid)! ? -1 : 1))
    .map(({ rowid }) => rowid);
}

/** Scores with many ties (a catalogue repeats texts), negatives and zeros of both signs. */
const tiedScores = (length: number) => fc.array(fc.constantFrom(0.5, -0.25, 0, -0, 0.9, 0.5, 3.25, -1), { minLength: length, maxLength: length });

describe('sortedThrough', () => {
  it('puts exactly the entries asked for in their final order, step after step, keeping the set', () => {
    fc.assert(
      fc.property(
        fc
          .uniqueArray(fc.integer({ min: 0, max: ROWS - 1 }), { maxLength: 150 })
          .chain((rowids) =>
            fc.tuple(
              fc.constant(rowids),
              fc.oneof(tiedScores(rowids.length), fc.array(fc.float({ noNaN: true }), { minLength: rowids.length, maxLength: rowids.length })),
            ),
          ),
        placesArb,
        fc.array(fc.nat(300), { minLength: 1, maxLength: 4 }),
        ([rowids, scores], places, ends) => {
          const ids = idsOf(places);
          const ranking = unsortedRanking({ rowids: Int32Array.from(rowids), scores: Float32Array.from(scores) }, idRanksOf(ids));
          const expected = plainOrder(rowids, scores, ids);
          for (const end of ends) {
            sortedThrough(ranking, end);
            expect(ranking.sortedTo).toBeGreaterThanOrEqual(Math.min(end, rowids.length));
            expect(Array.from(ranking.rowids.subarray(0, ranking.sortedTo))).toEqual(expected.slice(0, ranking.sortedTo));
            // Every entry keeps its own score.
            expect(new Map(Array.from(ranking.rowids, (rowid, i) => [rowid, ranking.scores[i]]))).toEqual(
              new Map(rowids.map((rowid, i) => [rowid, Math.fround(scores[i]!)])),
            );
          }
        },
      ),
    );
  });

  it('orders a set of tens of thousands past one step, as a whole sort does', () => {
    const count = 30_000;
    const rowids = Int32Array.from({ length: count }, (_, i) => (i * 7919) % count);
    const scores = Float32Array.from({ length: count }, (_, i) => Math.round(Math.sin(i) * 50) / 50);
    const ids = idRanksOf(new Map(Array.from({ length: count }, (_, rowid) => [rowid, String((rowid * 104729) % count).padStart(6, '0')])));
    const whole = rankMatches({ rowids, cosines: scores }, ids);
    const ranking = unsortedRanking({ rowids, scores }, ids);
    sortedThrough(ranking, 20);
    expect(ranking.sortedTo).toBe(256);
    sortedThrough(ranking, 10_020);
    expect(Array.from(ranking.rowids.subarray(0, 10_020))).toEqual(Array.from(whole.rowids.subarray(0, 10_020)));
    sortedThrough(ranking, count);
    expect(Array.from(ranking.rowids)).toEqual(Array.from(whole.rowids));
  });
});

describe('rankingWithin', () => {
  it("keeps the set's order, sorted part and scores for exactly the rows whose bit is set", () => {
    fc.assert(
      fc.property(
        scoredRows,
        fc.array(fc.boolean(), { minLength: ROWS, maxLength: ROWS }),
        fc.nat(100),
        placesArb,
        ([rowids, scores], passes, sorted, places) => {
          const ids = idsOf(places);
          const ranking: Ranking = unsortedRanking({ rowids: Int32Array.from(rowids), scores: Float32Array.from(scores) }, idRanksOf(ids), (s) => s / 2);
          sortedThrough(ranking, sorted);
          const bits = new Uint32Array(wordsFor(ROWS));
          passes.forEach((pass, rowid) => pass && setBit(bits, rowid));
          const kept = Array.from(ranking.rowids, (rowid, i) => ({ rowid, i })).filter(({ rowid }) => passes[rowid]);
          const narrowed = rankingWithin(ranking, bits);
          expect(Array.from(narrowed.rowids)).toEqual(kept.map(({ rowid }) => rowid));
          expect(Array.from(narrowed.scores)).toEqual(kept.map(({ i }) => ranking.scores[i]));
          expect(narrowed.relevanceOf).toBe(ranking.relevanceOf);
          expect(narrowed.sortedTo).toBe(kept.filter(({ i }) => i < ranking.sortedTo).length);
          // Ordered on from there, it is the narrowed set in its plain order.
          sortedThrough(narrowed, narrowed.rowids.length);
          const inOrder = plainOrder(rowids, scores, ids).filter((rowid) => passes[rowid]);
          expect(Array.from(narrowed.rowids)).toEqual(inOrder);
        },
      ),
    );
  });
});

describe('narrowedRanking', () => {
  it('orders the whole set once it is narrowed a second time, so later narrowings are born in order', () => {
    const count = 2000;
    const rowids = Int32Array.from({ length: count }, (_, i) => (i * 7) % count);
    const scores = Float32Array.from({ length: count }, (_, i) => Math.round(Math.cos(i) * 20) / 20);
    const ids = idRanksOf(new Map(Array.from({ length: count }, (_, rowid) => [rowid, String((rowid * 31) % count).padStart(5, '0')])));
    const whole = unsortedRanking({ rowids, scores }, ids);
    const evens = new Uint32Array(wordsFor(count));
    const odds = new Uint32Array(wordsFor(count));
    for (let rowid = 0; rowid < count; rowid++) setBit(rowid % 2 === 0 ? evens : odds, rowid);
    const first = narrowedRanking(whole, evens);
    expect([whole.sortedTo, first.sortedTo]).toEqual([0, 0]);
    const second = narrowedRanking(whole, odds);
    expect(whole.sortedTo).toBe(count);
    expect(second.sortedTo).toBe(count / 2);
    const inOrder = Array.from(rankMatches({ rowids, cosines: scores }, ids).rowids);
    expect(Array.from(second.rowids)).toEqual(inOrder.filter((rowid) => rowid % 2 === 1));
    sortedThrough(first, first.rowids.length);
    expect(Array.from(first.rowids)).toEqual(inOrder.filter((rowid) => rowid % 2 === 0));
  });
});

describe('rowsInOrder', () => {
  it('walks the order from a start, passing over `skip` set rows and returning up to `take`', () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(
          Array.from({ length: ROWS }, (_, i) => i),
          { minLength: 0, maxLength: ROWS },
        ),
        fc.array(fc.boolean(), { minLength: ROWS, maxLength: ROWS }),
        fc.nat(ROWS + 5),
        fc.nat(ROWS),
        fc.nat(30),
        (order, passes, start, skip, take) => {
          const bits = new Uint32Array(wordsFor(ROWS));
          passes.forEach((pass, rowid) => pass && setBit(bits, rowid));
          const expected = order
            .slice(start)
            .filter((rowid) => passes[rowid])
            .slice(skip, skip + take);
          expect(rowsInOrder(Int32Array.from(order), bits, start, skip, take)).toEqual(expected);
        },
      ),
    );
  });
});
