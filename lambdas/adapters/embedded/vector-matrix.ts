/**
 * The embedded index's vectors: one contiguous Float32Array, a row per record, so exact k-NN is a
 * single pass of dot products over memory in order (the vectors are unit length, so the dot
 * product is the cosine). Rows are addressed by the SQLite rowid of their record.
 */
export interface ScoredRow {
  rowid: number;
  cosine: number;
}

export class VectorMatrix {
  private data: Float32Array;
  private rowids: Int32Array;
  private readonly slotOfRowid = new Map<number, number>();
  private readonly freeSlots: number[] = [];
  /** Slots in use or freed: the scan covers [0, used). */
  private used = 0;

  constructor(readonly dimensions: number, initialCapacity = 1024) {
    this.data = new Float32Array(initialCapacity * dimensions);
    this.rowids = new Int32Array(initialCapacity).fill(-1);
  }

  get size(): number {
    return this.slotOfRowid.size;
  }

  set(rowid: number, vector: Float32Array): void {
    if (vector.length !== this.dimensions) throw new Error(`vector has ${vector.length} dimensions, the index ${this.dimensions}`);
    let slot = this.slotOfRowid.get(rowid);
    if (slot === undefined) {
      slot = this.freeSlots.pop() ?? this.used++;
      if (slot >= this.rowids.length) this.grow();
      this.slotOfRowid.set(rowid, slot);
      this.rowids[slot] = rowid;
    }
    this.data.set(vector, slot * this.dimensions);
  }

  delete(rowid: number): void {
    const slot = this.slotOfRowid.get(rowid);
    if (slot === undefined) return;
    this.slotOfRowid.delete(rowid);
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
   * Every row whose cosine with the query is at least the floor, unordered. `allowed`, when given,
   * is a mask by rowid (1 = passes the query's filters): the filter is applied inside the scan, so
   * no match is lost to a top-k cut made before filtering.
   */
  matchesAbove(query: Float32Array, floor: number, allowed?: Uint8Array): ScoredRow[] {
    const { data, rowids, dimensions } = this;
    const out: ScoredRow[] = [];
    for (let slot = 0, offset = 0; slot < this.used; slot++, offset += dimensions) {
      const rowid = rowids[slot]!;
      if (rowid < 0) continue;
      let dot = 0;
      for (let d = 0; d < dimensions; d++) dot += data[offset + d]! * query[d]!;
      if (dot >= floor && (allowed === undefined || allowed[rowid] === 1)) out.push({ rowid, cosine: dot });
    }
    return out;
  }
}
