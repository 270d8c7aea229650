import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idRanksOf } from '../../lambdas/adapters/embedded/id-order';
import { rowsInOrder } from '../../lambdas/adapters/embedded/field-orders';
import { fuseByRowid } from '../../lambdas/adapters/embedded/rowid-fusion';
import { setBit, wordsFor } from '../../lambdas/adapters/embedded/row-bitmap';
import { rankingWithin, type Ranking } from '../../lambdas/adapters/embedded/search-rankers';
import { fusedRelevance } from '../../lambdas/core/search/fusion';
import type { SimilarityScale } from '../../lambdas/core/search/relevance';

/**
 * The embedded index narrows a whole-catalogue ranking to a query's filters (rankingWithin) and
 * fuses the narrowed keyword and semantic lists by rowid (fuseByRowid). Both are checked here
 * against plain statements of what they must give.
 */

const SCALE: SimilarityScale = { floor: 0.3, upper: 0.8, gatesKeywords: true };
const ROWS = 200;

/** Distinct rowids below ROWS, in a random order, with a score each. */
const scoredRows = fc.uniqueArray(fc.integer({ min: 0, max: ROWS - 1 }), { maxLength: 80 }).chain((rowids) =>
  fc.tuple(fc.constant(rowids), fc.array(fc.float({ min: 0, max: 1, noNaN: true }), { minLength: rowids.length, maxLength: rowids.length })));

describe('rankingWithin', () => {
  it('keeps the ranking\'s order, scores, relevance and tier split for exactly the rows whose bit is set', () => {
    fc.assert(fc.property(scoredRows, fc.array(fc.boolean(), { minLength: ROWS, maxLength: ROWS }), fc.nat(), ([rowids, scores], passes, tierSeed) => {
      const tierEnd = rowids.length === 0 ? 0 : tierSeed % (rowids.length + 1);
      const ranking: Ranking = { rowids: Int32Array.from(rowids), scores: Float32Array.from(scores), relevance: Float32Array.from(scores, (s) => s / 2), tierEnd };
      const bits = new Uint32Array(wordsFor(ROWS));
      passes.forEach((pass, rowid) => pass && setBit(bits, rowid));
      const kept = rowids.map((rowid, i) => ({ rowid, i })).filter(({ rowid }) => passes[rowid]);
      const narrowed = rankingWithin(ranking, bits);
      expect(Array.from(narrowed.rowids)).toEqual(kept.map(({ rowid }) => rowid));
      expect(Array.from(narrowed.scores)).toEqual(kept.map(({ i }) => ranking.scores[i]));
      expect(Array.from(narrowed.relevance!)).toEqual(kept.map(({ i }) => ranking.relevance![i]));
      expect(narrowed.tierEnd).toBe(kept.filter(({ i }) => i < tierEnd).length);
    }));
  });

  it('leaves relevance out when the ranking has none (keyword mode)', () => {
    const bits = new Uint32Array(1).fill(0xffffffff);
    const narrowed = rankingWithin({ rowids: Int32Array.of(3, 1), scores: Float32Array.of(2, 1), tierEnd: 1 }, bits);
    expect(narrowed.relevance).toBeUndefined();
    expect(Array.from(narrowed.rowids)).toEqual([3, 1]);
    expect(narrowed.tierEnd).toBe(1);
  });
});

describe('fuseByRowid', () => {
  it('gives the union of both lists with the fused relevance of lambdas/core/search/fusion.ts, best first, ties by id', () => {
    fc.assert(fc.property(scoredRows, scoredRows, fc.shuffledSubarray(Array.from({ length: ROWS }, (_, i) => i), { minLength: ROWS, maxLength: ROWS }), ([keywordRows, bm25], [semanticRows, cosines], idPlaces) => {
      // Ids in an order unrelated to rowids, so ties must be broken by id, not rowid.
      const ids = new Map(Array.from({ length: ROWS }, (_, rowid) => [rowid, `id-${String(idPlaces[rowid]).padStart(3, '0')}`]));
      const fused = fuseByRowid(
        { rowids: Int32Array.from(keywordRows), scores: Float32Array.from(bm25) },
        { rowids: Int32Array.from(semanticRows), cosines: Float32Array.from(cosines) },
        SCALE,
        idRanksOf(ids),
      );
      const scoreOf = new Map(keywordRows.map((rowid, i) => [rowid, Math.fround(bm25[i]!)]));
      const cosineOf = new Map(semanticRows.map((rowid, i) => [rowid, Math.fround(cosines[i]!)]));
      const best = Math.max(0, ...scoreOf.values());
      const expected = [...new Set([...semanticRows, ...keywordRows])]
        .map((rowid) => ({ rowid, relevance: Math.fround(fusedRelevance(cosineOf.get(rowid) ?? Number.NaN, scoreOf.get(rowid) ?? Number.NaN, best, SCALE)) }))
        .sort((a, b) => b.relevance - a.relevance || (ids.get(a.rowid)! < ids.get(b.rowid)! ? -1 : 1));
      expect(Array.from(fused.rowids)).toEqual(expected.map(({ rowid }) => rowid));
      expect(Array.from(fused.cosines)).toEqual(expected.map(({ relevance }) => relevance));
    }));
  });
});

describe('rowsInOrder', () => {
  it('walks the order from a start, passing over `skip` set rows and returning up to `take`', () => {
    fc.assert(fc.property(
      fc.shuffledSubarray(Array.from({ length: ROWS }, (_, i) => i), { minLength: 0, maxLength: ROWS }),
      fc.array(fc.boolean(), { minLength: ROWS, maxLength: ROWS }),
      fc.nat(ROWS + 5), fc.nat(ROWS), fc.nat(30),
      (order, passes, start, skip, take) => {
        const bits = new Uint32Array(wordsFor(ROWS));
        passes.forEach((pass, rowid) => pass && setBit(bits, rowid));
        const expected = order.slice(start).filter((rowid) => passes[rowid]).slice(skip, skip + take);
        expect(rowsInOrder(Int32Array.from(order), bits, start, skip, take)).toEqual(expected);
      },
    ));
  });
});
