import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type RangeBound, RangeIndex } from '../../lambdas/adapters/embedded/range-index';
import { setBit, wordsFor } from '../../lambdas/adapters/embedded/row-bitmap';

/**
 * The range index (range-index.ts) against a plain filter of the column: the same rows for any
 * bounds, inclusive or not, inside, across or outside the values, before and after writes.
 */

const ROWS = 300;
const setRows = (bits: Uint32Array) =>
  Array.from({ length: bits.length * 32 }, (_, rowid) => rowid).filter((rowid) => ((bits[rowid >>> 5]! >>> (rowid & 31)) & 1) === 1);

const admits = (value: number, bounds: { min?: RangeBound; max?: RangeBound }) =>
  !Number.isNaN(value) &&
  (!bounds.min || (bounds.min.inclusive ? value >= bounds.min.value : value > bounds.min.value)) &&
  (!bounds.max || (bounds.max.inclusive ? value <= bounds.max.value : value < bounds.max.value));

// Few distinct values, so bounds often fall on runs of equal values and on bucket cuts.
const value = fc.oneof(
  fc.constant(Number.NaN),
  fc.integer({ min: 0, max: 40 }).map((v) => v * 1000),
  fc.double({ min: -5, max: 50_000, noNaN: true }),
);
const bound = fc.option(
  fc.record({
    value: fc.oneof(
      fc.integer({ min: -1, max: 41 }).map((v) => v * 1000),
      fc.double({ min: -10, max: 60_000, noNaN: true }),
    ),
    inclusive: fc.boolean(),
  }),
  { nil: undefined },
);
const query = fc.record({ min: bound, max: bound }).map(({ min, max }) => ({ ...(min ? { min } : {}), ...(max ? { max } : {}) }));
const write = fc.record({ rowid: fc.nat(ROWS - 1), value, remove: fc.boolean() });

describe('RangeIndex', () => {
  it('finds exactly the present rows with a value within the bounds, as writes change the column', () => {
    fc.assert(
      fc.property(
        fc.array(value, { minLength: ROWS, maxLength: ROWS }),
        fc.array(fc.boolean(), { minLength: ROWS, maxLength: ROWS }),
        fc.array(fc.record({ writes: fc.array(write, { maxLength: 20 }), queries: fc.array(query, { minLength: 1, maxLength: 4 }) }), {
          minLength: 1,
          maxLength: 4,
        }),
        (initial, presence, rounds) => {
          const column = Float64Array.from(initial);
          const present = new Uint32Array(wordsFor(ROWS));
          presence.forEach((isPresent, rowid) => isPresent && setBit(present, rowid));
          let clock = 0;
          const index = new RangeIndex(
            (v) => !Number.isNaN(v),
            () => clock,
          );
          for (const { writes, queries } of rounds) {
            for (const { rowid, value: v, remove } of writes) {
              column[rowid] = v;
              if (remove) present[rowid >>> 5]! &= ~(1 << (rowid & 31));
              else setBit(present, rowid);
              index.stale();
            }
            // Long enough since the last build: the index must answer, not defer to the caller's pass.
            clock += 2000;
            for (const bounds of queries) {
              const rows = index.rowsWithin(column, present, bounds);
              expect(rows).toBeDefined();
              expect(setRows(rows!)).toEqual(setRows(present).filter((rowid) => admits(column[rowid]!, bounds)));
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("leaves the answer to the caller's pass while writes keep coming within a second of a build", () => {
    let clock = 5000;
    const index = new RangeIndex(
      (v) => !Number.isNaN(v),
      () => clock,
    );
    const column = Float64Array.of(1, 2, 3);
    const present = Uint32Array.of(0b111);
    expect(setRows(index.rowsWithin(column, present, { min: { value: 2, inclusive: true } })!)).toEqual([1, 2]);
    column[0] = 9;
    index.stale();
    clock += 500;
    expect(index.rowsWithin(column, present, { min: { value: 2, inclusive: true } })).toBeUndefined();
    clock += 600;
    expect(setRows(index.rowsWithin(column, present, { min: { value: 2, inclusive: true } })!)).toEqual([0, 1, 2]);
  });
});
