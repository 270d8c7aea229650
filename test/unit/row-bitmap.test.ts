import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bytesOf, countBits, forEachSet, setBit, wordsFor } from '../../lambdas/adapters/embedded/row-bitmap';

describe('row bitmaps', () => {
  it('count, list and expand exactly the rowids set, across word bounds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }).chain((rows) => fc.tuple(fc.constant(rows), fc.uniqueArray(fc.nat(rows - 1)))),
        ([rows, rowids]) => {
          const bits = new Uint32Array(wordsFor(rows));
          for (const rowid of rowids) setBit(bits, rowid);
          const sorted = [...rowids].sort((a, b) => a - b);
          expect(countBits(bits)).toBe(rowids.length);
          const listed: number[] = [];
          forEachSet(bits, (rowid) => listed.push(rowid));
          expect(listed).toEqual(sorted);
          const bytes = bytesOf(bits, rows);
          expect(bytes.length).toBe(rows);
          expect([...bytes.keys()].filter((rowid) => bytes[rowid] === 1)).toEqual(sorted);
        },
      ),
      { numRuns: 300 },
    );
  });
});
