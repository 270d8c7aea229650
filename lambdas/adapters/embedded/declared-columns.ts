import { LIST_FILTERS, type ListFilter, readsList, termsOf } from '../../core/query/filter-registry';
import type { Contract, Grant } from '../../core/records';

/**
 * The embedded index's row columns for the declared filters (filter-registry.ts): one for each
 * record field such a filter reads, named after the field, holding what the filters compare, so
 * the SQL (sqlite-index-filters.ts) and the in-memory columns (declared-filter-columns.ts) read
 * the same values:
 *
 * - terms: the value in the filter's case, or NULL; a list field as `|a|b|` (`||` when empty), so
 *   a search for `|value|` finds one whole value;
 * - prefix: the value as it is, or NULL;
 * - range: the value (a number, or an ISO date or timestamp as text), or NULL.
 */

export interface DeclaredColumn {
  name: string;
  /** The filters reading it (one shape among them). */
  filters: readonly ListFilter[];
  shape: ListFilter['shape'];
  /** A terms column of a list field (`|a|b|`). */
  list: boolean;
  sqlType: 'TEXT' | 'REAL';
}

function columnsOf(filters: readonly ListFilter[]): DeclaredColumn[] {
  const byField = new Map<string, ListFilter[]>();
  for (const filter of filters) byField.set(filter.field, [...(byField.get(filter.field) ?? []), filter]);
  return [...byField].map(([name, readers]) => {
    const shape = readers[0]!.shape;
    const storedAlike = (other: ListFilter['shape']) =>
      other.type === shape.type &&
      (shape.type !== 'terms' || (other.type === 'terms' && other.case === shape.case)) &&
      (shape.type !== 'range' || (other.type === 'range' && other.of === shape.of));
    // One column holds one encoding: two filters on a field must store it alike.
    if (!readers.every((filter) => storedAlike(filter.shape)))
      throw new Error(`the declared filters on ${name} need one shape (and case rule, or value type) to share its column`);
    return {
      name,
      filters: readers,
      shape,
      list: shape.type === 'terms' && readsList(readers[0]!),
      sqlType: shape.type === 'range' && shape.of === 'number' ? 'REAL' : 'TEXT',
    };
  });
}

export const DECLARED_COLUMNS: readonly DeclaredColumn[] = columnsOf(LIST_FILTERS);

/** What a column holds for a record's value of its field (undefined or null: none). */
export function columnValueOf(column: DeclaredColumn, value: unknown): string | number | null {
  if (column.shape.type !== 'terms') return (value ?? null) as string | number | null;
  if (column.list) return `|${termsOf(column.shape, (value ?? []) as string[]).join('|')}|`;
  return value == null ? null : termsOf(column.shape, String(value))[0]!;
}

/** Every declared column's value for a record, by name. */
export function declaredColumnValues(record: Grant | Contract): Record<string, string | number | null> {
  return Object.fromEntries(
    DECLARED_COLUMNS.map((column) => [column.name, columnValueOf(column, (record as unknown as Record<string, unknown>)[column.name])]),
  );
}
