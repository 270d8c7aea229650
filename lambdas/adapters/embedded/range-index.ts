import { firstIndexWhere } from '../../core/query/first-index';
import { andInto, orInto, type RowBitmap, setBit, wordsFor } from './row-bitmap';

/**
 * A range-encoded bitmap index over one numeric column (a deadline, an amount), so a range filter
 * costs a few bitmap operations instead of a pass over every row, and a listing bounded by two
 * deadlines and an amount would make three passes.
 *
 * The rows with a value, sorted by it, are cut into BUCKETS runs of equal length, and the index
 * keeps, for each cut, the bitmap of the rows before it. The rows in a range of sorted positions
 * are then the difference of two of those bitmaps, plus the rows of at most two partial runs set
 * one by one. The index is built on first use after a write; while
 * writes keep coming, it is rebuilt at most once per REBUILD_INTERVAL_MS and the caller's pass
 * answers in between (rowsWithin returns undefined).
 */

const BUCKETS = 64;
const REBUILD_INTERVAL_MS = 1000;
/** Room for a rowid under a rank in one exact float64 (ranks and rowids below 2^26), as rankMatches packs its keys (vector-matrix.ts). */
const ROWID_RANGE = 2 ** 26;

/** A bound of a range: the values it admits are above (or at, when inclusive) `value`, or below it. */
export interface RangeBound {
  value: number;
  inclusive: boolean;
}

interface Built {
  /** The column's values in ascending order, rows without a value left out. */
  values: Float64Array;
  /** The row at each sorted position. */
  rowids: Int32Array;
  /** before[k]: the rows at sorted positions below k × bucketSize (the last is every row with a value). */
  before: RowBitmap[];
  bucketSize: number;
}

export class RangeIndex {
  private built: Built | null = null;
  private builtAt = Number.NEGATIVE_INFINITY;

  /** `hasValue` tells a row with a value from one without (a missing amount is NaN, a missing day 0). */
  constructor(
    private readonly hasValue: (value: number) => boolean,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A write changed the column: the next query rebuilds (or leaves it to the caller's pass). */
  stale(): void {
    this.built = null;
  }

  /**
   * The rows of `rows` (present rows: the `present` bitmap) whose value lies within the bounds,
   * as a bitmap; undefined when the index is stale and was rebuilt less than a second ago.
   */
  rowsWithin(column: ArrayLike<number>, present: RowBitmap, bounds: { min?: RangeBound; max?: RangeBound }): RowBitmap | undefined {
    if (!this.built) {
      if (this.now() - this.builtAt < REBUILD_INTERVAL_MS) return undefined;
      this.built = this.build(column, present);
      this.builtAt = this.now();
    }
    const { values, rowids, before, bucketSize } = this.built;
    const from = bounds.min ? firstPosition(values, (v) => (bounds.min!.inclusive ? v >= bounds.min!.value : v > bounds.min!.value)) : 0;
    const to = bounds.max ? firstPosition(values, (v) => (bounds.max!.inclusive ? v > bounds.max!.value : v >= bounds.max!.value)) : values.length;
    const rows = new Uint32Array(present.length);
    if (to <= from) return rows;
    const firstWhole = Math.ceil(from / bucketSize);
    const lastWhole = Math.floor(to / bucketSize);
    if (firstWhole >= lastWhole) {
      for (let i = from; i < to; i++) setBit(rows, rowids[i]!);
      return rows;
    }
    orInto(rows, before[lastWhole]);
    andInto(rows, before[firstWhole], true);
    for (let i = from; i < firstWhole * bucketSize; i++) setBit(rows, rowids[i]!);
    for (let i = lastWhole * bucketSize; i < to; i++) setBit(rows, rowids[i]!);
    return rows;
  }

  private build(column: ArrayLike<number>, present: RowBitmap): Built {
    const withValue: number[] = [];
    for (let w = 0; w < present.length; w++) {
      let word = present[w]!;
      while (word !== 0) {
        const low = word & -word;
        const rowid = (w << 5) + (31 - Math.clz32(low));
        if (this.hasValue(column[rowid]!)) withValue.push(rowid);
        word ^= low;
      }
    }
    // Ranks of the distinct values, then one native sort of rank and rowid packed in a float64:
    // no comparator call per pair, and amounts need not be integers.
    const distinct = Float64Array.from(withValue, (rowid) => column[rowid]!).sort();
    const keys = new Float64Array(withValue.length);
    withValue.forEach((rowid, i) => {
      keys[i] = firstPosition(distinct, (v) => v >= column[rowid]!) * ROWID_RANGE + rowid;
    });
    keys.sort();
    const rowids = Int32Array.from(keys, (key) => key % ROWID_RANGE);
    const values = Float64Array.from(rowids, (rowid) => column[rowid]!);
    const bucketSize = Math.max(1, Math.ceil(rowids.length / BUCKETS));
    const before: RowBitmap[] = [new Uint32Array(wordsFor(present.length * 32))];
    for (let start = 0; start < rowids.length; start += bucketSize) {
      const next = before[before.length - 1]!.slice();
      for (let i = start; i < Math.min(start + bucketSize, rowids.length); i++) setBit(next, rowids[i]!);
      before.push(next);
    }
    return { values, rowids, before, bucketSize };
  }
}

/** The first position of an ascending array where `passes` holds (it holds from there on), or its length. */
function firstPosition(sorted: Float64Array, passes: (value: number) => boolean): number {
  return firstIndexWhere(sorted.length, (i) => passes(sorted[i]!));
}
