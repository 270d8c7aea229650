import type Database from 'better-sqlite3';
import type { ResourceKind } from '../../core/records';
import { FACET_COLUMNS, type FacetRow } from './facet-columns';
import { FieldLengths } from './field-lengths';
import { FILTER_COLUMNS, FilterColumns, type FilterRow } from './filter-columns';
import { IdOrder } from './id-order';
import { IndexFacets } from './index-facets';
import type { VectorSearch } from './vector-scans';

/** Vectors per message when the index's vectors are sent to their scanner at start (1.5 MB at 384 dimensions). */
const VECTORS_PER_LOAD = 1024;

/**
 * What the embedded index keeps of every row in memory, beside its SQLite tables: the record's id,
 * its filter columns (filter-columns.ts), what the facets read (index-facets.ts) and its vector
 * (vector-matrix.ts). Loaded from the tables at start and kept in step with every write.
 */
export class IndexMemory {
  /** The rows' filter columns, for the filters of searches and listings. */
  readonly filterColumns = { grant: new FilterColumns(), contract: new FilterColumns() };
  /** What the facets read of each row, and the listings' facet counts. */
  readonly facets = new IndexFacets();
  /** Every record's vector, in this thread or a worker's (vector-scans.ts). */
  readonly vectors: VectorSearch;
  /** Every record's keyword field lengths, for BM25 (field-lengths.ts). */
  readonly fieldLengths = new FieldLengths();
  /**
   * Record id by rowid: rankings break ties by id (through idOrders, each record's place in id
   * order), and a catalogue with repeated texts has long runs of equal scores.
   */
  readonly recordIds: Record<ResourceKind, Map<number, string>> = { grant: new Map(), contract: new Map(), funder: new Map() };
  readonly idOrders: Record<ResourceKind, IdOrder> = {
    grant: new IdOrder(this.recordIds.grant),
    contract: new IdOrder(this.recordIds.contract),
    funder: new IdOrder(this.recordIds.funder),
  };

  constructor(
    private readonly dimensions: number,
    vectors: (memory: IndexMemory) => VectorSearch,
  ) {
    this.vectors = vectors(this);
  }

  /** Every row and vector of the index's tables. */
  load(db: Database.Database): void {
    for (const kind of ['grant', 'contract', 'funder'] as const) {
      const columns = kind === 'funder' ? '' : `, ${[...new Set([...FILTER_COLUMNS, ...FACET_COLUMNS])].join(', ')}`;
      for (const row of db.prepare(`SELECT rowid, id${columns} FROM ${kind}_rows`).iterate() as Iterable<
        FilterRow & FacetRow & { rowid: number; id: string }
      >) {
        this.setRow(kind, row.rowid, row.id, row);
      }
    }
    this.fieldLengths.load(db);
    this.loadVectors(db);
  }

  /** Every vector of the index's tables, sent to the scanner a slice at a time. */
  loadVectors(db: Database.Database): void {
    const { dimensions, vectors } = this;
    for (const kind of ['grant', 'contract', 'funder'] as const) {
      vectors.reserve(kind, db.prepare(`SELECT count(*) FROM ${kind}_vectors`).pluck().get() as number);
      const rowids = new Int32Array(VECTORS_PER_LOAD);
      const values = new Float32Array(VECTORS_PER_LOAD * dimensions);
      const bytes = Buffer.from(values.buffer);
      const width = dimensions * 4;
      let count = 0;
      const flush = () => {
        if (count === 0) return;
        vectors.set(kind, rowids.slice(0, count), values.slice(0, count * dimensions));
        count = 0;
      };
      // Read as hex text and decoded into the slice (vector-bytes.ts's layout): each blob read is
      // a Buffer outside the JavaScript heap, freed only as the collector catches up, and a load's
      // worth of them stayed in the process's memory.
      for (const [rowid, hex] of db.prepare(`SELECT rowid, hex(vector) FROM ${kind}_vectors`).raw().iterate() as Iterable<[number, string]>) {
        if (hex.length !== width * 2) throw new Error(`a stored ${kind} vector has ${hex.length / 8} dimensions, the index ${dimensions}`);
        bytes.write(hex, count * width, width, 'hex');
        rowids[count++] = rowid;
        if (count === VECTORS_PER_LOAD) flush();
      }
      flush();
    }
  }

  /** A row written (`row` holds its filter and facet columns; funders have none). */
  setRow(kind: ResourceKind, rowid: number, id: string, row: FilterRow & FacetRow): void {
    const ids = this.recordIds[kind];
    // Only a new record needs a place in id order; an update keeps its rowid and id.
    if (!ids.has(rowid)) this.idOrders[kind].invalidate();
    ids.set(rowid, id);
    if (kind !== 'funder') {
      this.filterColumns[kind].set(rowid, row);
      this.facets.set(kind, rowid, row);
    }
  }

  /** The vectors of rows written together (null: the row has none, or no longer has one). */
  setVectors(kind: ResourceKind, rowids: readonly number[], vectors: readonly (Float32Array | null | undefined)[]): void {
    const { dimensions } = this;
    const kept = rowids.flatMap((_rowid, i) => (vectors[i] ? [i] : []));
    const dropped = rowids.filter((_, i) => !vectors[i]);
    if (kept.length > 0) {
      const values = new Float32Array(kept.length * dimensions);
      kept.forEach((i, row) => values.set(vectors[i]!, row * dimensions));
      this.vectors.set(
        kind,
        Int32Array.from(kept, (i) => rowids[i]!),
        values,
      );
    }
    if (dropped.length > 0) this.vectors.delete(kind, Int32Array.from(dropped));
  }

  deleteRow(kind: ResourceKind, rowid: number): void {
    this.vectors.delete(kind, Int32Array.of(rowid));
    this.fieldLengths.delete(kind, rowid);
    this.recordIds[kind].delete(rowid);
    this.idOrders[kind].forget(rowid);
    if (kind !== 'funder') {
      this.filterColumns[kind].delete(rowid);
      this.facets.delete(kind, rowid);
    }
  }
}
