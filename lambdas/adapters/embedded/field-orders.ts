import type Database from 'better-sqlite3';
import { declaredFiltersIn, LIST_FILTERS, storedOp } from '../../core/query/filter-registry';
import { firstIndexWhere } from '../../core/query/first-index';
import type { ListQuery, PagePosition } from '../../core/query/list-query';
import type { ResourceKind } from '../../core/records';
import type { RowBitmap } from './row-bitmap';
import { orderSql } from './sqlite-index-filters';
import { sortColumnOf } from './sqlite-keyset';

/**
 * Every row of a kind in a field order (orderSql's: the sort column, nulls last, ties by id), as
 * one array of rowids, so a page of a filtered list or of a search sorted by a field is a walk
 * through that array testing each row's bit in the filter bitmap. SQLite answered those pages by
 * walking an index and testing the filters row by row, or by sorting every match, so deep pages
 * grew slow; the walk costs about the same at any offset.
 *
 * An order is read from SQLite on first use after a write (an ORDER BY over every row, the
 * order's own definition); while writes keep coming, at most once per REBUILD_INTERVAL_MS, and the
 * caller pages with SQL in between (get returns undefined).
 */

const REBUILD_INTERVAL_MS = 1000;

export interface FieldOrder {
  /** The rowids in order. */
  rowids: Int32Array;
  /** For the fields a filter bounds (BOUNDED_FIELDS): each position's value as a number (NaN for none). */
  keys: Float64Array | null;
  /** By rowid: its index in `rowids` (-1 for none). */
  positionOf: Int32Array;
}

/** One page of rows in a field order, and the position after its last row when more follow. */
export type RowPage = { rowids: number[]; next?: PagePosition };

type SortKey = `${ResourceKind}|${ListQuery['sort']['field']}|${ListQuery['sort']['order']}`;

/** Pages in field orders for the embedded index (sqlite-search-index.ts), over its row tables. */
export class OrderedPages {
  private readonly orders: FieldOrders;

  constructor(
    private readonly statement: (sql: string) => Database.Statement,
    private readonly ids: Record<ResourceKind, ReadonlyMap<number, string>>,
    now?: () => number,
  ) {
    this.orders = new FieldOrders((key) => {
      const [kind, field, order] = key.split('|') as [ResourceKind, ListQuery['sort']['field'], ListQuery['sort']['order']];
      const { bare } = sortColumnOf(kind, field);
      // Without filters, orderSql gives the general order (ascending: nulls last); a filter that excludes nulls only leaves them out.
      const sql = `SELECT r.rowid, r.${bare} FROM ${kind}_rows r ORDER BY ${orderSql(kind, { sort: { field, order }, filters: null } as unknown as ListQuery)}`;
      const rows = this.statement(sql).raw().all() as [number, string | number | null][];
      return { rowids: Int32Array.from(rows, (row) => row[0]), keys: BOUNDED_FIELDS.has(field) ? Float64Array.from(rows, (row) => numericKey(row[1])) : null };
    }, now);
  }

  invalidate(): void {
    this.orders.invalidate();
  }

  /**
   * A page of the rows whose bit is set, in the query's field order: after its position (keyset
   * paging) or its offset, one row more telling whether more follow. Undefined when SQL must
   * answer: the order waits to be read again, or the position's row has changed or gone.
   */
  page(kind: ResourceKind, query: ListQuery, bits: RowBitmap): RowPage | undefined {
    const order = this.orders.get(`${kind}|${query.sort.field}|${query.sort.order}`);
    if (!order) return undefined;
    const { bare } = sortColumnOf(kind, query.sort.field);
    const sortValueOf = this.statement(`SELECT r.${bare} FROM ${kind}_rows r WHERE r.rowid = ?`).pluck();
    // Rows outside the filters' bounds on the sort column cannot pass: the walk skips them.
    let [start, end] = boundedPositions(order, query);
    if (query.after) {
      const [value, id] = query.after;
      const row =
        typeof id === 'string'
          ? (this.statement(`SELECT r.rowid AS rowid, r.${bare} AS value FROM ${kind}_rows r WHERE r.id = ?`).get(id) as
              | { rowid: number; value: unknown }
              | undefined)
          : undefined;
      if (!row || row.value !== (value ?? null)) return undefined;
      const position = order.positionOf[row.rowid] ?? -1;
      if (position < 0) return undefined;
      start = Math.max(start, position + 1);
    }
    end = Math.max(start, end);
    const rows = rowsInOrder(order.rowids.subarray(0, end), bits, start, query.after ? 0 : query.offset, query.limit + 1);
    if (rows.length <= query.limit) return { rowids: rows };
    const last = rows[query.limit - 1]!;
    return { rowids: rows.slice(0, query.limit), next: [sortValueOf.get(last) as string | number | null, this.ids[kind].get(last)!] };
  }
}

/** The fields a declared range over numbers or dates bounds (filter-registry.ts: the deadline, the amounts): their orders keep numeric keys. */
const BOUNDED_FIELDS: ReadonlySet<string> = new Set(
  LIST_FILTERS.flatMap((filter) => (filter.shape.type === 'range' && filter.shape.of !== 'timestamp' ? [filter.field] : [])),
);

/** A sort value as a number in the same order: an amount as it is, an ISO day as YYYYMMDD, none as NaN. */
function numericKey(value: string | number | null): number {
  if (value === null) return Number.NaN;
  if (typeof value === 'number') return value;
  return Number(value.slice(0, 4)) * 10_000 + Number(value.slice(5, 7)) * 100 + Number(value.slice(8, 10));
}

/**
 * The positions [start, end) of an order whose rows can pass the query's declared ranges on its
 * sort column (filterSql's: deadline_date > deadline_after, amount_max >= min_amount, ...; a row
 * without a value passes none). Values ascend (or descend) and rows without one come last, so
 * each bound is one binary search.
 */
function boundedPositions(order: FieldOrder, query: ListQuery): [number, number] {
  const { keys } = order;
  const all: [number, number] = [0, order.rowids.length];
  const filters = query.filters;
  if (!keys || !filters) return all;
  const field = query.sort.field;
  let above: ((v: number) => boolean) | undefined;
  let below: ((v: number) => boolean) | undefined;
  for (const { filter, value } of declaredFiltersIn(filters)) {
    if (filter.field !== field || filter.shape.type !== 'range' || !BOUNDED_FIELDS.has(field)) continue;
    const bound = numericKey(value as string | number);
    const op = storedOp(filter.shape);
    const holds =
      op === 'gt' ? (v: number) => v > bound : op === 'gte' ? (v: number) => v >= bound : op === 'lt' ? (v: number) => v < bound : (v: number) => v <= bound;
    // Two bounds on one side both hold from (or fail from) one position: their conjunction does too.
    if (op === 'gt' || op === 'gte') {
      const other = above;
      above = other ? (v) => other(v) && holds(v) : holds;
    } else {
      const other = below;
      below = other ? (v) => other(v) && holds(v) : holds;
    }
  }
  const n = keys.length;
  // Rows without a value (NaN) come last and pass no bound: a walk that starts where a bound holds
  // counts them as past it, and one that ends where a bound fails counts them as failing it.
  const holdsFrom = (bound: (v: number) => boolean) => firstIndexWhere(n, (i) => Number.isNaN(keys[i]!) || bound(keys[i]!));
  const failsFrom = (bound: (v: number) => boolean) => firstIndexWhere(n, (i) => Number.isNaN(keys[i]!) || !bound(keys[i]!));
  // Ascending, the lower bound holds from some position on and the upper one fails from some position on; descending, the reverse.
  const [first, last] = query.sort.order === 'asc' ? [above, below] : [below, above];
  return [first ? holdsFrom(first) : 0, last ? failsFrom(last) : n];
}

class FieldOrders {
  private readonly orders = new Map<SortKey, FieldOrder>();
  private builtAt = Number.NEGATIVE_INFINITY;
  private stale = false;

  constructor(
    private readonly readOrder: (key: SortKey) => Pick<FieldOrder, 'rowids' | 'keys'>,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A write changed the rows: every order is read again (or left to SQL for a while). */
  invalidate(): void {
    this.orders.clear();
    this.stale = true;
  }

  get(key: SortKey): FieldOrder | undefined {
    let order = this.orders.get(key);
    if (order) return order;
    if (this.stale && this.now() - this.builtAt < REBUILD_INTERVAL_MS) return undefined;
    const { rowids, keys } = this.readOrder(key);
    const positionOf = new Int32Array(rowids.reduce((max, rowid) => Math.max(max, rowid + 1), 0)).fill(-1);
    rowids.forEach((rowid, i) => {
      positionOf[rowid] = i;
    });
    order = { rowids, keys, positionOf };
    this.orders.set(key, order);
    this.builtAt = this.now();
    this.stale = false;
    return order;
  }
}

/**
 * The rows of `order` from index `start` whose bit is set: `skip` of them passed over, then up to
 * `take` returned, in order.
 */
export function rowsInOrder(order: Int32Array, bits: RowBitmap, start: number, skip: number, take: number): number[] {
  const rows: number[] = [];
  let skipped = 0;
  for (let i = start; i < order.length && rows.length < take; i++) {
    const rowid = order[i]!;
    if (((bits[rowid >>> 5] ?? 0) & (1 << (rowid & 31))) === 0) continue;
    if (skipped < skip) skipped++;
    else rows.push(rowid);
  }
  return rows;
}
