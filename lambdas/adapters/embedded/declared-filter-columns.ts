import { declaredFiltersIn, type FilterValue, type ListFilter, type RangeOp, storedOp, termsOf } from '../../core/query/filter-registry';
import type { OpportunityFilters } from '../../core/query/list-query';
import { DECLARED_COLUMNS, type DeclaredColumn } from './declared-columns';
import { type RangeBound, RangeIndex } from './range-index';
import { andInto, keepWhere, type RowBitmap } from './row-bitmap';

/**
 * The declared filters' columns (declared-columns.ts) of one kind's rows, held in memory by rowid,
 * and each declared filter (filter-registry.ts) applied as filterSql applies it, by its shape:
 * a range over numbers or dates from a range index (range-index.ts), anything else by a test of
 * each row the other filters leave. A comparison with a missing value is false, as in SQL, and
 * text compares by code unit, as SQLite's BINARY collation does.
 */

/** One test of a row by rowid; a mask keeps the rows that pass them all. */
export type RowTest = (rowid: number) => boolean;

type Store =
  | { column: DeclaredColumn; type: 'text'; values: (string | null)[] }
  /** Numbers, and ISO dates as YYYYMMDD; a missing value is NaN, which fails every comparison. */
  | { column: DeclaredColumn; type: 'ordered'; values: Float64Array; range: RangeIndex };

/** An ISO day (YYYY-MM-DD) as the number YYYYMMDD, which orders as the text does. */
export const dayNumber = (day: string) => Number(day.slice(0, 4)) * 10_000 + Number(day.slice(5, 7)) * 100 + Number(day.slice(8, 10));

const COMPARE: Record<RangeOp, <T extends string | number>(value: T, bound: T) => boolean> = {
  gt: (value, bound) => value > bound,
  gte: (value, bound) => value >= bound,
  lt: (value, bound) => value < bound,
  lte: (value, bound) => value <= bound,
};

function rangeBounds(op: RangeOp, value: number): { min?: RangeBound; max?: RangeBound } {
  const inclusive = op === 'gte' || op === 'lte';
  return op === 'gt' || op === 'gte' ? { min: { value, inclusive } } : { max: { value, inclusive } };
}

export class DeclaredFilterColumns {
  private readonly stores = new Map<string, Store>(
    DECLARED_COLUMNS.map((column): [string, Store] => {
      const ordered = column.shape.type === 'range' && column.shape.of !== 'timestamp';
      return [
        column.name,
        ordered
          ? { column, type: 'ordered', values: new Float64Array(0), range: new RangeIndex((value) => !Number.isNaN(value)) }
          : { column, type: 'text', values: [] },
      ];
    }),
  );
  /** One copy of each text of few distinct values (a category list, a code): each row's read from SQLite is a new string. */
  private readonly texts = new Map<string, string>();

  /** A row's values, by column name. */
  set(rowid: number, row: Readonly<Record<string, unknown>>): void {
    for (const store of this.stores.values()) {
      const value = row[store.column.name] ?? null;
      if (store.type === 'ordered') {
        store.values[rowid] = value === null ? Number.NaN : typeof value === 'number' ? value : dayNumber(String(value));
        store.range.stale();
      } else {
        // Timestamps are nearly all distinct: kept as read.
        store.values[rowid] = value === null ? null : store.column.shape.type === 'range' ? String(value) : this.shared(String(value));
      }
    }
  }

  /** A row left the index: the range indexes must forget it. */
  delete(): void {
    for (const store of this.stores.values()) if (store.type === 'ordered') store.range.stale();
  }

  grow(capacity: number): void {
    for (const store of this.stores.values()) {
      if (store.type !== 'ordered') continue;
      const grown = new Float64Array(capacity).fill(Number.NaN);
      grown.set(store.values);
      store.values = grown;
    }
  }

  private shared(text: string): string {
    const known = this.texts.get(text);
    if (known !== undefined) return known;
    this.texts.set(text, text);
    return text;
  }

  /** Narrows `mask` by the declared ranges an index answers, and returns the tests of the other declared filters. */
  narrow(mask: RowBitmap, present: RowBitmap, filters: OpportunityFilters): RowTest[] {
    const tests: RowTest[] = [];
    for (const { filter, value } of declaredFiltersIn(filters)) {
      const store = this.stores.get(filter.field)!;
      if (store.type === 'ordered' && filter.shape.type === 'range') {
        const op = storedOp(filter.shape);
        const bound = typeof value === 'number' ? value : dayNumber(String(value));
        const rows = store.range.rowsWithin(store.values, present, rangeBounds(op, bound));
        // While the index waits to be rebuilt after writes, a pass over the column answers.
        if (rows) andInto(mask, rows);
        else keepWhere(mask, store.values, (stored) => COMPARE[op](stored, bound));
      } else if (store.type === 'text') {
        tests.push(textTest(filter, store.column, store.values, value));
      }
    }
    return tests;
  }
}

function textTest(filter: ListFilter, column: DeclaredColumn, values: readonly (string | null)[], value: FilterValue): RowTest {
  const { shape } = filter;
  switch (shape.type) {
    case 'terms': {
      const terms = termsOf(shape, value);
      if (column.list) {
        const keys = terms.map((term) => `|${term}|`);
        return (i) => keys.some((key) => values[i]?.includes(key) ?? false);
      }
      const wanted = new Set(terms);
      return (i) => values[i] != null && wanted.has(values[i]!);
    }
    case 'prefix': {
      const codes = value as readonly string[];
      return (i) => {
        const stored = values[i];
        return stored != null && codes.some((code) => stored.slice(0, code.length) === code);
      };
    }
    case 'range': {
      const compare = COMPARE[storedOp(shape)];
      const bound = String(value);
      return (i) => values[i] != null && compare(values[i]!, bound);
    }
  }
}
