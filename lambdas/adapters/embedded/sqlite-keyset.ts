import { firstIndexWhere } from '../../core/query/first-index';
import { unreadablePosition } from '../../core/query/list-cursor';
import type { ListQuery, PagePosition } from '../../core/query/list-query';
import type { ResourceKind } from '../../core/records';
import type { Sql } from './sqlite-index-filters';
import { SORT_COLUMNS } from './sqlite-index-schema';

/**
 * Keyset paging in the embedded index (SearchIndex `after`). A field sort's position is
 * [sort column value, id]; the condition keeps the rows after it in orderSql's order: descending
 * is SQLite's own (nulls sort lowest, so last), ascending puts nulls last; ties by id in the same
 * direction; text columns compare with the column's collation (title and name COLLATE NOCASE). A
 * relevance position is [score, id] in a ranking (rankingCursor).
 */

/** The sort column's expression (with its collation) and its bare name, as orderSql uses them. */
export function sortColumnOf(kind: ResourceKind, field: ListQuery['sort']['field']): { column: string; bare: string } {
  const column = SORT_COLUMNS[kind][field];
  if (!column) throw new Error(`no sort column for ${kind}.${field}`);
  return { column, bare: column.split(' ')[0]! };
}

function fieldPosition(after: PagePosition): { value: string | number | null; id: string } {
  const [value, id] = after;
  if (after.length !== 2 || typeof id !== 'string') throw unreadablePosition();
  return { value: value ?? null, id };
}

/** The rows after a field sort's position, as one condition on the row table `r`. */
export function afterFieldSql(kind: ResourceKind, query: ListQuery, after: PagePosition): Sql {
  const { value, id } = fieldPosition(after);
  const { column, bare } = sortColumnOf(kind, query.sort.field);
  const beyond = query.sort.order === 'desc' ? '<' : '>';
  if (value === null) return { where: [`(r.${bare} IS NULL AND r.id ${beyond} ?)`], params: [id] };
  return {
    where: [`(r.${column} ${beyond} ? OR (r.${column} = ? AND r.id ${beyond} ?) OR r.${bare} IS NULL)`],
    params: [value, value, id],
  };
}

/** A ranking's order keys: best score first, ties by id. */
export interface RankingKeys {
  scores: Float32Array;
  idAt: (i: number) => string;
}

function relevancePosition(after: PagePosition): { score: number; id: string } {
  const [score, id] = after;
  if (after.length !== 2 || typeof score !== 'number' || typeof id !== 'string') throw unreadablePosition();
  return { score, id };
}

/** Entry i's place against a position in the ranking's (descending) order: -1 before it, 0 at it, 1 after it. */
function compareAt(keys: RankingKeys, i: number, at: { score: number; id: string }): number {
  const score = keys.scores[i]!;
  if (score !== at.score) return score > at.score ? -1 : 1;
  const id = keys.idAt(i);
  return id < at.id ? -1 : id > at.id ? 1 : 0;
}

/** The first index whose entry compares above `bound` (binary search: the ranking is sorted). */
function firstAbove(keys: RankingKeys, total: number, at: ReturnType<typeof relevancePosition>, bound: number): number {
  return firstIndexWhere(total, (i) => compareAt(keys, i, at) > bound);
}

/**
 * The offset in relevance order (descending: from the best; ascending: from the worst) of the
 * first entry after a position: the same slice as offset paging, found by the keys, not by a count,
 * so records that came or went before the position shift nothing.
 */
export function relevanceOffsetAfter(keys: RankingKeys, total: number, order: ListQuery['sort']['order'], after: PagePosition): number {
  const at = relevancePosition(after);
  if (order === 'desc') return firstAbove(keys, total, at, 0);
  // Ascending walks the ranking backwards: what follows is every entry before the position.
  return total - firstAbove(keys, total, at, -1);
}

/** The position of ranking entry i. */
export function relevancePositionAt(keys: RankingKeys, i: number): PagePosition {
  return [keys.scores[i]!, keys.idAt(i)];
}

/**
 * A page of a ranked set in relevance order (ascending is the exact reverse): the ranking
 * positions of its results, after the query's position (keyset paging) or its offset, and the
 * position of its last result when more follow.
 */
export function relevancePage(
  keys: RankingKeys,
  total: number,
  query: Pick<ListQuery, 'after' | 'offset' | 'limit' | 'sort'>,
): { positions: number[]; next?: PagePosition } {
  const offset = query.after ? relevanceOffsetAfter(keys, total, query.sort.order, query.after) : query.offset;
  const position = (i: number) => (query.sort.order === 'desc' ? offset + i : total - 1 - offset - i);
  const length = Math.max(0, Math.min(query.limit, total - offset));
  const positions = Array.from({ length }, (_, i) => position(i));
  return { positions, ...(length > 0 && offset + length < total ? { next: relevancePositionAt(keys, positions[length - 1]!) } : {}) };
}
