import type Database from 'better-sqlite3';
import type { ResourceKind } from '../../core/records';
import { vectorOfBytes } from '../vector-bytes';
import { FACET_COLUMNS, type FacetRow } from './facet-columns';
import { FILTER_COLUMNS, FilterColumns, type FilterRow } from './filter-columns';
import { IdOrder } from './id-order';
import { IndexFacets } from './index-facets';
import { VectorMatrix } from './vector-matrix';

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
  readonly vectors: Record<ResourceKind, VectorMatrix>;
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

  constructor(dimensions: number) {
    this.vectors = { grant: new VectorMatrix(dimensions), contract: new VectorMatrix(dimensions), funder: new VectorMatrix(dimensions) };
  }

  /** Every row and vector of the index's tables. */
  load(db: Database.Database): void {
    for (const kind of ['grant', 'contract', 'funder'] as const) {
      const columns = kind === 'funder' ? '' : `, ${[...FILTER_COLUMNS, ...FACET_COLUMNS].join(', ')}`;
      for (const row of db.prepare(`SELECT rowid, id${columns} FROM ${kind}_rows`).iterate() as Iterable<FilterRow & FacetRow & { rowid: number; id: string }>) {
        this.setRow(kind, row.rowid, row.id, row);
      }
      const matrix = this.vectors[kind];
      matrix.reserve(db.prepare(`SELECT count(*) FROM ${kind}_vectors`).pluck().get() as number);
      for (const row of db.prepare(`SELECT rowid, vector FROM ${kind}_vectors`).iterate() as Iterable<{ rowid: number; vector: Buffer }>) {
        matrix.set(row.rowid, vectorOfBytes(row.vector));
      }
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

  setVector(kind: ResourceKind, rowid: number, vector: Float32Array | null | undefined): void {
    if (vector) this.vectors[kind].set(rowid, vector);
    else this.vectors[kind].delete(rowid);
  }

  deleteRow(kind: ResourceKind, rowid: number): void {
    this.vectors[kind].delete(rowid);
    this.recordIds[kind].delete(rowid);
    this.idOrders[kind].forget(rowid);
    if (kind !== 'funder') {
      this.filterColumns[kind].delete(rowid);
      this.facets.delete(kind, rowid);
    }
  }
}
