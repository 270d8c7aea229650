/**
 * Dense bitmaps over rowids (bit i of word i >>> 5 is rowid i), for the embedded index's filters:
 * at 100,000 rows a bitmap is 3,125 words, so combining two filters is a few microseconds where a
 * pass over a byte per row took a few hundred (and a branch per row mispredicted on real data).
 */

export type RowBitmap = Uint32Array<ArrayBuffer>;

export const wordsFor = (rows: number) => (rows + 31) >>> 5;

export function setBit(bits: RowBitmap, rowid: number): void {
  bits[rowid >>> 5]! |= 1 << (rowid & 31);
}

export function clearBit(bits: RowBitmap, rowid: number): void {
  bits[rowid >>> 5]! &= ~(1 << (rowid & 31));
}

/** A bitmap with the given rows set. */
export function bitmapOfRows(rowids: ArrayLike<number>): RowBitmap {
  let size = 0;
  for (let i = 0; i < rowids.length; i++) size = Math.max(size, rowids[i]! + 1);
  const bits = new Uint32Array(wordsFor(size));
  for (let i = 0; i < rowids.length; i++) setBit(bits, rowids[i]!);
  return bits;
}

/** The rows set, in order. */
export function rowsOfBitmap(bits: RowBitmap): Int32Array {
  const rows = new Int32Array(countBits(bits));
  let count = 0;
  forEachSet(bits, (rowid) => {
    rows[count++] = rowid;
  });
  return rows;
}

/** `bits` grown to `words` words, its bits kept. */
export function grownBitmap(bits: RowBitmap, words: number): RowBitmap {
  const grown = new Uint32Array(words);
  grown.set(bits.subarray(0, Math.min(bits.length, words)));
  return grown;
}

/** into &= other (or &= ~other when `inverted`). */
export function andInto(into: RowBitmap, other: RowBitmap | undefined, inverted = false): void {
  if (!other) {
    if (!inverted) into.fill(0);
    return;
  }
  if (inverted) for (let w = 0; w < into.length; w++) into[w]! &= ~(other[w] ?? 0);
  else for (let w = 0; w < into.length; w++) into[w]! &= other[w] ?? 0;
}

/** into |= other. */
export function orInto(into: RowBitmap, other: RowBitmap | undefined): void {
  if (other) for (let w = 0; w < into.length; w++) into[w]! |= other[w] ?? 0;
}

/** A byte per rowid (1 kept, 0 not): FilterColumns.mask, the form its property test compares with SQL. */
export function bytesOf(bits: RowBitmap, rows: number): Uint8Array {
  const bytes = new Uint8Array(rows);
  for (let w = 0; w < bits.length; w++) {
    const word = bits[w]!;
    if (word === 0) continue;
    const base = w << 5;
    const end = Math.min(32, rows - base);
    for (let j = 0; j < end; j++) bytes[base + j] = (word >>> j) & 1;
  }
  return bytes;
}

/** Calls `visit` with each set rowid, in order. */
export function forEachSet(bits: RowBitmap, visit: (rowid: number) => void): void {
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w]!;
    while (word !== 0) {
      const low = word & -word;
      visit((w << 5) + (31 - Math.clz32(low)));
      word ^= low;
    }
  }
}

/** How many rows are set: a population count per word. */
export function countBits(bits: RowBitmap): number {
  let count = 0;
  for (let w = 0; w < bits.length; w++) {
    let v = bits[w]!;
    v -= (v >>> 1) & 0x55555555;
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    count += Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
  }
  return count;
}

/**
 * Keeps the rows whose value passes the test: in each word with rows left, a bit per row. The
 * range filters' fallback while their range index (range-index.ts) waits to be rebuilt, and the
 * day's live rows, computed once a day.
 */
export function keepWhere(mask: RowBitmap, values: ArrayLike<number>, passes: (value: number) => boolean): void {
  for (let w = 0; w < mask.length; w++) {
    if (mask[w] === 0) continue;
    const base = w << 5;
    let kept = 0;
    for (let j = 0; j < 32; j++) if (passes(values[base + j]!)) kept |= 1 << j;
    mask[w]! &= kept;
  }
}
