import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atLeast, firstAtLeast, keywordMatchSets, keywordScores, someHoldsEveryTerm, termPostingsOf } from '../../lambdas/adapters/embedded/keyword-match-sets';
import { rowsOfBitmap } from '../../lambdas/adapters/embedded/row-bitmap';
import type { KeywordQuery } from '../../lambdas/core/search/keyword-query';

/**
 * The embedded index finds keyword matches as bitmaps (a bit-sliced count of the terms each record
 * holds) and scores only the records a search keeps. Both are checked here against the plain
 * statement they replaced: a dense pass over every posting that counts and sums per record.
 */

const ROWS = 300;

/** A term's postings: distinct ascending rowids, a score each. */
const postingsArb = fc.uniqueArray(fc.integer({ min: 0, max: ROWS - 1 }), { maxLength: 120 }).chain((rowids) => {
  const sorted = [...rowids].sort((a, b) => a - b);
  return fc.tuple(
    fc.constant(sorted),
    fc.array(fc.float({ min: Math.fround(0.01), max: 20, noNaN: true }), { minLength: sorted.length, maxLength: sorted.length }),
  );
});

/** A query over 1-9 terms (term j is `t<j>`), with its minimum, telling and partial terms drawn at random. */
const queryArb = fc.integer({ min: 1, max: 9 }).chain((count) => {
  const counted = Array.from({ length: count }, (_, j) => `t${j}`);
  return fc
    .record({
      lists: fc.array(postingsArb, { minLength: count, maxLength: count }),
      required: fc.integer({ min: 1, max: count }),
      telling: fc.subarray(counted),
      partial: fc.subarray(counted),
      withPartial: fc.boolean(),
      near: fc.uniqueArray(fc.integer({ min: 0, max: ROWS - 1 }), { maxLength: 60 }).map((rows) => [...rows].sort((a, b) => a - b)),
    })
    .map((drawn) => ({
      ...drawn,
      query: { terms: counted, counted, required: drawn.required, telling: drawn.telling, partial: drawn.partial } satisfies KeywordQuery,
    }));
});

/** A record's phrase score, as the matcher gives it (lucene-postings.ts): here any value, one per record near. */
const phraseScoreOf = (near: readonly number[]) => (rowid: number) => (near.includes(rowid) ? 1.5 + rowid / 1000 : 0);

/** The dense pass: per record, the terms held, the float64 sum of their scores and its phrase score. */
function plainMatches(query: KeywordQuery, lists: [number[], number[]][], withPartial: boolean, near: number[]) {
  const full: number[] = [];
  const partial: number[] = [];
  const scores = new Map<number, number>();
  for (let rowid = 0; rowid < ROWS; rowid++) {
    let hits = 0;
    let sum = 0;
    let telling = false;
    let partialTerm = false;
    lists.forEach(([rowids, termScores], j) => {
      const at = rowids.indexOf(rowid);
      if (at < 0) return;
      hits++;
      sum += termScores[at]!;
      telling ||= query.telling.includes(query.counted[j]!);
      partialTerm ||= query.partial.includes(query.counted[j]!);
    });
    if (hits === 0) continue;
    sum += phraseScoreOf(near)(rowid);
    scores.set(rowid, Math.fround(sum));
    if (hits >= query.required && (query.telling.length === 0 || telling)) full.push(rowid);
    else if (withPartial && query.partial.length > 0 && partialTerm) partial.push(rowid);
  }
  return { full, partial, scores };
}

describe('keywordMatchSets and keywordScores', () => {
  it('find the tiers and the scores a dense pass over every posting finds', () => {
    const forms = { dense: 0, sparse: 0 };
    fc.assert(
      fc.property(queryArb, ({ lists, query, withPartial, near: drawn }) => {
        // As FTS5's NEAR gives them, for two terms or more: records holding every term (some of them).
        const near =
          query.terms.length < 2
            ? []
            : Array.from({ length: ROWS }, (_, rowid) => rowid).filter(
                (rowid) => (drawn.includes(rowid) || rowid % 2 === 0) && lists.every(([rowids]) => rowids.includes(rowid)),
              );
        const postings = lists.map(([rowids, scores]) => termPostingsOf(Int32Array.from(rowids), Float32Array.from(scores)));
        for (const { bits } of postings) forms[bits ? 'dense' : 'sparse']++;
        const sets = keywordMatchSets(query, postings, withPartial);
        const expected = plainMatches(query, lists, withPartial, near);
        const full = rowsOfBitmap(sets.full);
        const partial = rowsOfBitmap(sets.partial);
        expect([...full]).toEqual(expected.full);
        expect([...partial]).toEqual(expected.partial);
        // Scores are asked for any ascending subset of the matches: what a search keeps.
        const kept = full.filter((_, i) => i % 3 !== 1);
        for (const rows of [kept, partial]) {
          expect([...keywordScores(postings, rows, phraseScoreOf(near))]).toEqual([...rows].map((rowid) => expected.scores.get(rowid)));
        }
        // The phrase query is skipped when no record to score holds every term: then no boost is lost.
        for (const rows of [full, partial, kept]) {
          const holdsEvery = [...rows].some((rowid) => lists.every(([rowids]) => rowids.includes(rowid)));
          expect(someHoldsEveryTerm(postings, rows)).toBe(holdsEvery);
          if (!holdsEvery) expect([...keywordScores(postings, rows, null)]).toEqual([...keywordScores(postings, rows, phraseScoreOf(near))]);
        }
      }),
      { numRuns: 400 },
    );
    // Both forms of a term's postings (a bitmap, or a rare term's rowids alone) were exercised.
    expect(forms.dense).toBeGreaterThan(100);
    expect(forms.sparse).toBeGreaterThan(100);
  });

  it("counts records that hold every one of many terms, past the counter's lowest planes, dense and sparse alike", () => {
    const postingsOf = (rows: number[]) => termPostingsOf(Int32Array.from(rows), new Float32Array(rows.length));
    const everyRow = postingsOf(Array.from({ length: 70 }, (_, i) => i));
    const someRows = postingsOf([3, 64]);
    expect(everyRow.bits).not.toBeNull();
    expect(someRows.bits).toBeNull();
    const sets = [...Array.from({ length: 17 }, () => everyRow), someRows];
    expect([...rowsOfBitmap(atLeast(sets, 18, 3))]).toEqual([3, 64]);
    expect([...rowsOfBitmap(atLeast(sets, 17, 3))]).toEqual(Array.from({ length: 70 }, (_, i) => i));
    expect([...rowsOfBitmap(atLeast(sets, 19, 3))]).toEqual([]);
  });
});

describe('firstAtLeast', () => {
  it('gives the first index from `from` whose value reaches the target, as a linear search does', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: -50, max: 500 }), { maxLength: 200 }),
        fc.integer({ min: -60, max: 520 }),
        fc.nat(),
        (values, target, start) => {
          const sorted = Int32Array.from(values.sort((a, b) => a - b));
          const from = sorted.length === 0 ? 0 : start % (sorted.length + 1);
          let expected = from;
          while (expected < sorted.length && sorted[expected]! < target) expected++;
          expect(firstAtLeast(sorted, target, from)).toBe(expected);
        },
      ),
    );
  });
});
