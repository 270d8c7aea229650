import { inner } from 'simsimd';
import type { IdRanks } from './id-order';
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

/** Room for a record's place in id order beside its 32-bit score in one exact float64 (2^32 * 2^21 = 2^53). */
const PLACE_RANGE = 2 ** 21;

/**
 * The matches best first, ties by id: what a relevance-ordered page needs, for every match (the
 * total and later pages come from the same order). Each match is packed into one float64, its
 * score's sortable bits above its record's place in id order, so the whole set, ties included,
 * sorts with the engine's native numeric sort and no comparator call.
 */
export function rankMatches(matches: Matches, ids: IdRanks): Matches {
  if (ids.rowidAt.length >= PLACE_RANGE) throw new Error(`cannot rank among ${ids.rowidAt.length} records at once`);
  const bits = new Uint32Array(matches.cosines.buffer, matches.cosines.byteOffset, matches.rowids.length);
  const packed = new Float64Array(matches.rowids.length);
  let count = 0;
  for (let i = 0; i < matches.rowids.length; i++) {
    const place = ids.rankOf[matches.rowids[i]!];
    // A record removed while its query ran has no place: it is no match any more.
    if (place === undefined || place < 0) continue;
    const raw = bits[i]!;
    // IEEE 754 bits as an unsigned integer in the float's own order, then flipped for descending.
    const ascending = raw & 0x80000000 ? ~raw >>> 0 : (raw | 0x80000000) >>> 0;
    packed[count++] = (0xffffffff - ascending) * PLACE_RANGE + place;
  }
  const keys = packed.subarray(0, count);
  keys.sort();
  const rowids = new Int32Array(count);
  const cosines = new Float32Array(count);
  const sortedBits = new Uint32Array(cosines.buffer);
  for (let i = 0; i < count; i++) {
    const key = keys[i]!;
    const place = key % PLACE_RANGE;
    const ascending = 0xffffffff - (key - place) / PLACE_RANGE;
    rowids[i] = ids.rowidAt[place]!;
    sortedBits[i] = ascending & 0x80000000 ? ascending & 0x7fffffff : ~ascending >>> 0;
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

  /**
   * Room for `rows` rows in all, allocated once: loading 100,000 vectors by doubling ended with
   * room for 131,072 (48 MB unused) and briefly held each smaller copy beside the next.
   */
  reserve(rows: number): void {
    if (rows > this.rowids.length) this.grow(rows);
  }

  /** Grows by a quarter (not double): at 100,000 rows of 384 floats, every spare row is 1.5 KB. */
  private grow(capacity = Math.max(this.rowids.length + 1024, Math.ceil(this.rowids.length * 1.25))): void {
    const data = new Float32Array(capacity * this.dimensions);
    data.set(this.data);
    const rowids = new Int32Array(capacity).fill(-1);
    rowids.set(this.rowids);
    this.data = data;
    this.rowids = rowids;
  }

  /**
   * The cosine of each given row with the query, in the rows' order; NaN for a row without a
   * vector. Row by row with SimSIMD's SIMD kernels on views of the matrix: copying thousands of
   * scattered rows out for ONNX Runtime's MatMul cost more than the products, and SimSIMD does a
   * row in half the time of a JavaScript loop (13,500 rows of 384: 3.7 ms against 6.9).
   */
  cosinesOf(rowids: Int32Array, query: Float32Array): Float32Array {
    const { data, dimensions, slotOfRowid } = this;
    const cosines = new Float32Array(rowids.length);
    for (let i = 0; i < rowids.length; i++) {
      const slot = slotOfRowid[rowids[i]!] ?? -1;
      cosines[i] = slot < 0 ? Number.NaN : inner(query, data.subarray(slot * dimensions, (slot + 1) * dimensions));
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
