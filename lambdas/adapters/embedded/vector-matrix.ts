import { dotProducts } from './onnx-dot-products';

/** Rows and their cosines with a query, index by index. */
export interface Matches {
  rowids: Int32Array;
  cosines: Float32Array;
}

/**
 * One kind's vectors in the embedded index: one contiguous Float32Array, a row per record, so
 * exact k-NN is a single matrix product (the vectors are unit length, so the dot product is the
 * cosine). Rows are addressed by the SQLite rowid of their record. It lives in the thread that
 * scores (vector-scans.ts), which is a worker thread when the index serves requests.
 */
export class VectorMatrix {
  private data: Float32Array;
  private rowids: Int32Array;
  /** The slot of each rowid, -1 for none. */
  private slotOfRowid = new Int32Array(0);
  private rowCount = 0;
  private readonly freeSlots: number[] = [];
  /** Slots in use or freed: the scan covers [0, used). */
  private used = 0;
  /** cosinesOf's copy of the rows it scores, and the call before it. */
  private copyRows = new Float32Array(0);
  private copying: Promise<void> = Promise.resolve();

  constructor(
    readonly dimensions: number,
    initialCapacity = 1024,
  ) {
    this.data = new Float32Array(initialCapacity * dimensions);
    this.rowids = new Int32Array(initialCapacity).fill(-1);
  }

  get size(): number {
    return this.rowCount;
  }

  set(rowid: number, vector: Float32Array): void {
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
    this.slotOfRowid[rowid] = -1;
    this.rowCount--;
    this.rowids[slot] = -1;
    this.freeSlots.push(slot);
  }

  /**
   * Room for `rows` rows in all, allocated once: growing by doubling left up to half the room
   * unused and briefly held each smaller copy beside the next.
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
   * For each query, every row whose cosine with it reaches the floor (NaN, no vector, never
   * does), in slot order: one product of the queries with the whole matrix.
   */
  async matchesAbove(queries: readonly { vector: Float32Array; floor: number }[]): Promise<Matches[]> {
    const { scores, columns } = await dotProducts(
      this.data,
      this.used,
      queries.map(({ vector }) => vector),
      this.dimensions,
    );
    const { rowids, used } = this;
    return queries.map(({ floor }, q) => {
      // Counted first, so each query's matches are two arrays of their exact size.
      let count = 0;
      for (let slot = 0, at = q; slot < used; slot++, at += columns) if (scores[at]! >= floor && rowids[slot]! >= 0) count++;
      const found: Matches = { rowids: new Int32Array(count), cosines: new Float32Array(count) };
      let i = 0;
      for (let slot = 0, at = q; slot < used; slot++, at += columns) {
        const cosine = scores[at]!;
        const rowid = rowids[slot]!;
        // NaN (no vector) fails the comparison.
        if (!(cosine >= floor) || rowid < 0) continue;
        found.rowids[i] = rowid;
        found.cosines[i++] = cosine;
      }
      return found;
    });
  }

  /**
   * The cosine of each given row with the query, in the rows' order; NaN for a row without a
   * vector. The rows are copied out and scored by the same product as matchesAbove, so a row's
   * cosine is the same number either way (a record's place must not depend on the route); a few
   * thousand at a time, so a call for tens of thousands of rows never holds a copy of them all.
   */
  cosinesOf(rowids: Int32Array, query: Float32Array): Promise<Float32Array> {
    // One at a time: they share the copy's rows (a buffer kept, not made for every call).
    const scored = this.copying.then(() => this.copyAndScore(rowids, query));
    this.copying = scored.then(
      () => undefined,
      () => undefined,
    );
    return scored;
  }

  private async copyAndScore(rowids: Int32Array, query: Float32Array): Promise<Float32Array> {
    const { dimensions } = this;
    const cosines = new Float32Array(rowids.length).fill(Number.NaN);
    const rows = this.copyRows.length >= ROWS_PER_COPY * dimensions ? this.copyRows : (this.copyRows = new Float32Array(ROWS_PER_COPY * dimensions));
    /** Where in `rowids` each copied row stands. */
    const places = new Int32Array(ROWS_PER_COPY);
    let copied = 0;
    const scoreCopied = async () => {
      const { scores, columns } = await dotProducts(rows, copied, [query], dimensions);
      for (let row = 0; row < copied; row++) cosines[places[row]!] = scores[row * columns]!;
      copied = 0;
    };
    for (let i = 0; i < rowids.length; i++) {
      // Read from the matrix as it is now: a write may come between two products (a row removed
      // meanwhile is left out, and a grown matrix has a new array).
      const slot = this.slotOfRowid[rowids[i]!] ?? -1;
      if (slot < 0) continue;
      rows.set(this.data.subarray(slot * dimensions, (slot + 1) * dimensions), copied * dimensions);
      places[copied++] = i;
      if (copied === ROWS_PER_COPY) await scoreCopied();
    }
    if (copied > 0) await scoreCopied();
    return cosines;
  }
}

/** Rows copied out for one product of cosinesOf: 3 MB at 384 dimensions. */
const ROWS_PER_COPY = 2048;
