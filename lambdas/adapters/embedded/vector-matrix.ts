import { dotProducts } from './onnx-dot-products';

/**
 * The embedded index's vectors: one contiguous Float32Array, a row per record, so exact k-NN is a
 * single matrix-vector product (the vectors are unit length, so the dot product is the cosine).
 * Rows are addressed by the SQLite rowid of their record.
 */
/** Rows and their cosines with a query, index by index. */
export interface Matches {
  rowids: Int32Array;
  cosines: Float32Array;
}

/** Room for the position of a match beside its 32-bit score in one exact float64 (2^32 * 2^21 = 2^53). */
const POSITION_RANGE = 2 ** 21;

/**
 * The matches best first, ties by id: what a relevance-ordered page needs, for every match (the
 * total and later pages come from the same order). Each match is packed into one float64, its
 * cosine's sortable bits above its position, so the whole set sorts with the engine's native
 * numeric sort instead of a comparator call per comparison; equal cosines are then put in id order.
 */
export function rankMatches(matches: Matches, idOf: (rowid: number) => string): Matches {
  const count = matches.rowids.length;
  const order = new Float64Array(count);
  const bits = new Uint32Array(matches.cosines.buffer, matches.cosines.byteOffset, count);
  if (count >= POSITION_RANGE) throw new Error(`cannot rank ${count} matches at once`);
  for (let i = 0; i < count; i++) {
    const raw = bits[i]!;
    // IEEE 754 bits as an unsigned integer in the float's own order, then flipped for descending.
    const ascending = raw & 0x80000000 ? ~raw >>> 0 : (raw | 0x80000000) >>> 0;
    order[i] = (0xffffffff - ascending) * POSITION_RANGE + i;
  }
  order.sort();
  const rowids = new Int32Array(count);
  const cosines = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const position = order[i]! % POSITION_RANGE;
    rowids[i] = matches.rowids[position]!;
    cosines[i] = matches.cosines[position]!;
  }
  for (let start = 0; start < count;) {
    let end = start + 1;
    while (end < count && cosines[end] === cosines[start]) end++;
    if (end - start > 1) {
      const tied = Array.from(rowids.subarray(start, end), (rowid) => ({ rowid, id: idOf(rowid) }));
      tied.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      rowids.set(tied.map((entry) => entry.rowid), start);
    }
    start = end;
  }
  return { rowids, cosines };
}

function grown(matches: Matches): Matches {
  const rowids = new Int32Array(matches.rowids.length * 2);
  const cosines = new Float32Array(matches.cosines.length * 2);
  rowids.set(matches.rowids);
  cosines.set(matches.cosines);
  return { rowids, cosines };
}

export class VectorMatrix {
  private data: Float32Array;
  private rowids: Int32Array;
  /** The slot of each rowid, -1 for none: a typed array, since keyword search looks up thousands a query. */
  private slotOfRowid = new Int32Array(0);
  private rowCount = 0;
  private readonly freeSlots: number[] = [];
  /** Slots in use or freed: the scan covers [0, used). */
  private used = 0;
  /** Bumped by every write, so a scan that a write overtook is run again. */
  private version = 0;

  constructor(readonly dimensions: number, initialCapacity = 1024) {
    this.data = new Float32Array(initialCapacity * dimensions);
    this.rowids = new Int32Array(initialCapacity).fill(-1);
  }

  get size(): number {
    return this.rowCount;
  }

  set(rowid: number, vector: Float32Array): void {
    this.version++;
    if (vector.length !== this.dimensions) throw new Error(`vector has ${vector.length} dimensions, the index ${this.dimensions}`);
    if (rowid >= this.slotOfRowid.length) {
      const slots = new Int32Array(Math.max(rowid + 1, this.slotOfRowid.length * 2, 1024)).fill(-1);
      slots.set(this.slotOfRowid);
      this.slotOfRowid = slots;
    }
    let slot = this.slotOfRowid[rowid]!;
    if (slot < 0) {
      slot = this.freeSlots.pop() ?? this.used++;
      if (slot >= this.rowids.length) this.grow();
      this.slotOfRowid[rowid] = slot;
      this.rowids[slot] = rowid;
      this.rowCount++;
    }
    this.data.set(vector, slot * this.dimensions);
  }

  delete(rowid: number): void {
    const slot = this.slotOfRowid[rowid] ?? -1;
    if (slot < 0) return;
    this.version++;
    this.slotOfRowid[rowid] = -1;
    this.rowCount--;
    this.rowids[slot] = -1;
    this.freeSlots.push(slot);
  }

  private grow(): void {
    const capacity = this.rowids.length * 2;
    const data = new Float32Array(capacity * this.dimensions);
    data.set(this.data);
    const rowids = new Int32Array(capacity).fill(-1);
    rowids.set(this.rowids);
    this.data = data;
    this.rowids = rowids;
  }

  /**
   * The cosine of each given row with the query, in the rows' order; NaN for a row without a
   * vector. A loop here, not ONNX Runtime: copying thousands of scattered rows out for its MatMul
   * cost more than the products (at 7,000 rows, 8.5 ms to copy against 7 ms to multiply in place).
   */
  cosinesOf(rowids: Int32Array, query: Float32Array): Float32Array {
    const { data, dimensions, slotOfRowid } = this;
    const cosines = new Float32Array(rowids.length);
    for (let i = 0; i < rowids.length; i++) {
      const slot = slotOfRowid[rowids[i]!] ?? -1;
      if (slot < 0) {
        cosines[i] = Number.NaN;
        continue;
      }
      // Four running sums, so the products do not wait on one another.
      let a = 0, b = 0, c = 0, e = 0;
      const offset = slot * dimensions;
      let d = 0;
      for (; d + 3 < dimensions; d += 4) {
        a += data[offset + d]! * query[d]!;
        b += data[offset + d + 1]! * query[d + 1]!;
        c += data[offset + d + 2]! * query[d + 2]!;
        e += data[offset + d + 3]! * query[d + 3]!;
      }
      for (; d < dimensions; d++) a += data[offset + d]! * query[d]!;
      cosines[i] = a + b + c + e;
    }
    return cosines;
  }

  /**
   * Every row's cosine with the query, indexed by rowid (NaN where a rowid has no vector): one
   * product over the whole matrix, kept as a snapshot that later writes do not change.
   */
  async cosinesByRowid(query: Float32Array): Promise<Float32Array> {
    for (;;) {
      const { data, rowids, used, version } = this;
      // ONNX Runtime runs the product in a later turn of the event loop: a write in between may move or reuse a slot.
      const scores = await dotProducts(data, used, query);
      if (version !== this.version) continue;
      const byRowid = new Float32Array(this.slotOfRowid.length).fill(Number.NaN);
      for (let slot = 0; slot < used; slot++) {
        const rowid = rowids[slot]!;
        if (rowid >= 0) byRowid[rowid] = scores[slot]!;
      }
      return byRowid;
    }
  }

  /** Every row whose cosine with the query is at least the floor (and passes `allowed`), unordered. */
  async matchesAbove(query: Float32Array, floor: number, allowed?: Uint8Array): Promise<Matches> {
    return matchesIn(await this.cosinesByRowid(query), floor, allowed);
  }
}

/**
 * The rows of a cosinesByRowid snapshot at or above the floor, unordered. `allowed`, when given,
 * is a mask by rowid (1 = passes the query's filters) applied in the same pass, so no match is
 * lost to a top-k cut made before filtering.
 */
export function matchesIn(cosinesByRowid: Float32Array, floor: number, allowed?: Uint8Array): Matches {
  let found: Matches = { rowids: new Int32Array(1024), cosines: new Float32Array(1024) };
  let count = 0;
  for (let rowid = 0; rowid < cosinesByRowid.length; rowid++) {
    const cosine = cosinesByRowid[rowid]!;
    // NaN (no vector) fails the comparison.
    if (!(cosine >= floor) || (allowed !== undefined && allowed[rowid] !== 1)) continue;
    if (count === found.rowids.length) found = grown(found);
    found.rowids[count] = rowid;
    found.cosines[count] = cosine;
    count++;
  }
  return { rowids: found.rowids.subarray(0, count), cosines: found.cosines.subarray(0, count) };
}
