import type { StateCode } from '../../core/geo';
import { declaredFiltersIn, type FilterValue, type ListFilter, type RangeOp, storedOp, termsOf } from '../../core/query/filter-registry';
import type { ListQuery, OpportunityFilters, StatusClause } from '../../core/query/list-query';
import type { ResourceKind } from '../../core/records';
import { DECLARED_COLUMNS, type DeclaredColumn } from './declared-columns';
import { applicantMask, NULLABLE_SORT_COLUMNS, SORT_COLUMNS, stateMasks } from './sqlite-index-schema';

/** WHERE conditions on the row table `r`, and their parameters in order. */
export type Sql = { where: string[]; params: unknown[] };

function stateCondition(states: readonly StateCode[], sql: Sql, alsoNational: boolean): string {
  const [lo, hi] = stateMasks(states);
  sql.params.push(lo, hi);
  const specific = '((r.states_lo & ?) != 0 OR (r.states_hi & ?) != 0)';
  return alsoNational ? `(r.national = 1 OR ${specific})` : specific;
}

/** Live on `today` (lambdas/core/query/applyable.ts) or not: the row's last live day against today. */
function statusCondition(clause: StatusClause, today: string, params: unknown[]): string {
  params.push(clause.stored);
  if (clause.live === undefined) return '(r.status = ?)';
  params.push(today);
  return `(r.status = ? AND r.live_until ${clause.live ? '>=' : '<'} ?)`;
}

const SQL_OPS: Record<RangeOp, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };
const COLUMN_OF: ReadonlyMap<string, DeclaredColumn> = new Map(DECLARED_COLUMNS.map((column) => [column.name, column]));

/** A declared filter's condition (filter-registry.ts) on its column (declared-columns.ts), by its shape. */
function declaredCondition(filter: ListFilter, value: FilterValue, params: unknown[]): string {
  const { shape } = filter;
  const column = COLUMN_OF.get(filter.field)!;
  const at = `r.${column.name}`;
  switch (shape.type) {
    case 'terms': {
      const terms = termsOf(shape, value);
      if (!column.list) {
        params.push(...terms);
        return `${at} IN (${terms.map(() => '?').join(', ')})`;
      }
      params.push(...terms.map((term) => `|${term}|`));
      return terms.length === 1 ? `instr(${at}, ?) > 0` : `(${terms.map(() => `instr(${at}, ?) > 0`).join(' OR ')})`;
    }
    case 'prefix': {
      const codes = value as readonly string[];
      for (const code of codes) params.push(code.length, code);
      return `(${codes.map(() => `substr(${at}, 1, ?) = ?`).join(' OR ')})`;
    }
    case 'range':
      params.push(value);
      return `${at} ${SQL_OPS[storedOp(shape)]} ?`;
  }
}

export function filterSql(f: OpportunityFilters, today: string, sql: Sql): void {
  const { where, params } = sql;
  if (f.opportunityType !== 'all') where.push(`r.awarded = ${f.opportunityType === 'awarded' ? 1 : 0}`);
  if (f.status) where.push(`(${f.status.map((clause) => statusCondition(clause, today, params)).join(' OR ')})`);
  if (f.states) where.push(stateCondition(f.states, sql, f.includeNational));
  if (f.geography?.level) {
    where.push('r.geo_level = ?');
    params.push(f.geography.level);
  } else if (f.geography?.states) {
    where.push(stateCondition(f.geography.states, sql, false));
  } else if (f.geography?.text) {
    where.push('instr(lower(r.geography), ?) > 0');
    params.push(f.geography.text.toLowerCase());
  }
  for (const { filter, value } of declaredFiltersIn(f)) where.push(declaredCondition(filter, value, params));
  if (f.applicant) {
    where.push('(r.applicants = 0 OR (r.applicants & ?) != 0)');
    params.push(applicantMask([f.applicant.type]));
    if (f.applicant.lacks501c3) where.push('(r.requires_501c3 IS NULL OR r.requires_501c3 = 0)');
  }
}

/** Whether the filters already drop records whose sort column is null (so no nulls-last key is needed): a declared filter never matches a missing value. */
function excludesNulls(column: string, f: OpportunityFilters | null): boolean {
  return declaredFiltersIn(f).some(({ filter }) => filter.field === column);
}

/** ORDER BY of a field sort (relevance orders are the rankings' own). */
export function orderSql(kind: ResourceKind, query: ListQuery): string {
  const { field, order } = query.sort;
  const column = SORT_COLUMNS[kind][field];
  if (!column) throw new Error(`no sort column for ${kind}.${field}`);
  // SQLite sorts nulls first ascending and last descending; ascending needs them moved last.
  if (order === 'desc') return `r.${column} DESC, r.id DESC`;
  const bare = column.split(' ')[0]!;
  // Without the extra key the planner can walk an index in order and stop after one page.
  const nullsPossible = NULLABLE_SORT_COLUMNS.has(bare) && !excludesNulls(bare, query.filters);
  return nullsPossible ? `(r.${bare} IS NULL), r.${column} ASC, r.id ASC` : `r.${column} ASC, r.id ASC`;
}
