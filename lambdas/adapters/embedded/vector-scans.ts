import type { ResourceKind } from '../../core/records';
import { type Matches, VectorMatrix } from './vector-matrix';

/**
 * The embedded index's vectors and the exact scans over them, behind one interface with two
 * homes: in the calling thread (VectorScans, for tests and tools) or in a worker thread
 * (worker-vector-scans.ts, for a serving index), where a scan of the whole catalogue's vectors
 * never holds up the event loop. Writes are applied in the order they are made, before
 * any scan asked for after them.
 */
export interface VectorSearch {
  /** Room for this many vectors of the kind, allocated once (a load's size). */
  reserve(kind: ResourceKind, rows: number): void;
  /** Each rowid's vector: row i of `vectors` (rowids.length rows of the index's dimensions). */
  set(kind: ResourceKind, rowids: Int32Array, vectors: Float32Array): void;
  delete(kind: ResourceKind, rowids: Int32Array): void;
  /** Every record whose cosine with the query reaches the floor, in no particular order. */
  matchesAbove(kind: ResourceKind, query: Float32Array, floor: number): Promise<Matches>;
  /** The cosine of each given record with the query (NaN without a vector), by the same product as matchesAbove. */
  cosinesOf(kind: ResourceKind, rowids: Int32Array, query: Float32Array): Promise<Float32Array>;
  close(): Promise<void>;
}

/** Queries scored in one product at most: past this, a product costs about as much per query as apart. */
const MAX_QUERIES_PER_PRODUCT = 16;

interface PendingScan {
  kind: ResourceKind;
  query: Float32Array;
  floor: number;
  resolve: (matches: Matches) => void;
  reject: (error: Error) => void;
}

/**
 * The scans in this thread. A scan asked for is not run at once: every scan asked for before the
 * thread's next turn joins it, and each kind's are scored by one product, since a product reads
 * the whole matrix whatever the number of queries (onnx-dot-products.ts).
 */
export class VectorScans implements VectorSearch {
  private readonly matrices: Record<ResourceKind, VectorMatrix>;
  private pending: PendingScan[] = [];
  private scheduled = false;
  /** True while a product reads the matrices: writes wait for it, or a row could change (or move) under it. */
  private scanning = false;
  private readonly heldWrites: (() => void)[] = [];

  constructor(readonly dimensions: number) {
    this.matrices = { grant: new VectorMatrix(dimensions), contract: new VectorMatrix(dimensions), funder: new VectorMatrix(dimensions) };
  }

  size(kind: ResourceKind): number {
    return this.matrices[kind].size;
  }

  reserve(kind: ResourceKind, rows: number): void {
    this.matrices[kind].reserve(rows);
  }

  set(kind: ResourceKind, rowids: Int32Array, vectors: Float32Array): void {
    const { dimensions } = this;
    if (vectors.length !== rowids.length * dimensions)
      throw new Error(`${rowids.length} rows of ${dimensions}-dimension vectors cannot be ${vectors.length} values`);
    this.write(() => rowids.forEach((rowid, i) => this.matrices[kind].set(rowid, vectors.subarray(i * dimensions, (i + 1) * dimensions))));
  }

  delete(kind: ResourceKind, rowids: Int32Array): void {
    this.write(() => rowids.forEach((rowid) => this.matrices[kind].delete(rowid)));
  }

  private write(apply: () => void): void {
    if (this.scanning) this.heldWrites.push(apply);
    else apply();
  }

  matchesAbove(kind: ResourceKind, query: Float32Array, floor: number): Promise<Matches> {
    return new Promise((resolve, reject) => {
      this.pending.push({ kind, query, floor, resolve, reject });
      this.schedule();
    });
  }

  /** The pending scans run on the thread's next turn, or once the product under way ends. */
  private schedule(): void {
    if (this.scheduled || this.scanning || this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(() => void this.runPending());
  }

  async cosinesOf(kind: ResourceKind, rowids: Int32Array, query: Float32Array): Promise<Float32Array> {
    // After the product under way and the writes it held, as the order they were asked in says.
    if (this.scanning) await new Promise<void>((resolve) => this.heldWrites.push(resolve));
    return this.matrices[kind].cosinesOf(rowids, query);
  }

  async close(): Promise<void> {}

  private async runPending(): Promise<void> {
    this.scheduled = false;
    const scans = this.pending;
    this.pending = [];
    this.scanning = true;
    try {
      await this.score(scans);
    } finally {
      this.scanning = false;
      for (const apply of this.heldWrites.splice(0)) apply();
      this.schedule();
    }
  }

  private async score(scans: PendingScan[]): Promise<void> {
    for (const kind of ['grant', 'contract', 'funder'] as const) {
      const ofKind = scans.filter((scan) => scan.kind === kind);
      for (let start = 0; start < ofKind.length; start += MAX_QUERIES_PER_PRODUCT) {
        const together = ofKind.slice(start, start + MAX_QUERIES_PER_PRODUCT);
        try {
          const found = await this.matrices[kind].matchesAbove(together.map(({ query, floor }) => ({ vector: query, floor })));
          together.forEach((scan, i) => scan.resolve(found[i]!));
        } catch (error) {
          for (const scan of together) scan.reject(error instanceof Error ? error : new Error(String(error)));
        }
      }
    }
  }
}
