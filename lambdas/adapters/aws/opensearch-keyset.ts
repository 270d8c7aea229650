import { firstIndexWhere } from '../../core/query/first-index';
import { unreadablePosition } from '../../core/query/list-cursor';
import type { ListQuery, PagePosition } from '../../core/query/list-query';
import type { FusedHit } from '../../core/search/fusion';
import type { SearchHit } from './opensearch-responses';

/**
 * Keyset paging on OpenSearch (SearchIndex `after`): a page's position is its last hit's sort
 * values (score or field value, then id: opensearch-query.ts sortClauses), given back as
 * search_after; in a hybrid query's fused order, the fused score and id.
 */
/** A position as search_after, once it has the shape of the sort (a cursor cannot be forged, but may outlive a change of sort). */
export function searchAfterOf(after: PagePosition, sortKeys: number): PagePosition {
  if (after.length !== sortKeys || typeof after[after.length - 1] !== 'string') throw unreadablePosition();
  return after;
}

/** A hit's sort values: the position after it. */
export function positionOfHit(hit: SearchHit): PagePosition {
  if (!Array.isArray(hit.sort)) throw new Error('a sorted hit came back without its sort values');
  return hit.sort as PagePosition;
}

/** The position of a fused hit in relevance order: its fused score (the order's key) and id. */
export function fusedPosition(hit: FusedHit<string>): PagePosition {
  return [hit.score, hit.key];
}

/**
 * Where the fused hits after a position start, in `ordered` (score descending, ties by id; or
 * the exact reverse): a binary search by the position's score and id, so hits that came or went
 * before it shift nothing.
 */
export function fusedStartAfter(ordered: readonly FusedHit<string>[], order: ListQuery['sort']['order'], after: PagePosition): number {
  const [score, id] = after;
  if (after.length !== 2 || typeof score !== 'number' || typeof id !== 'string') throw unreadablePosition();
  const follows = (hit: FusedHit<string>) =>
    order === 'desc' ? hit.score < score || (hit.score === score && hit.key > id) : hit.score > score || (hit.score === score && hit.key < id);
  return firstIndexWhere(ordered.length, (i) => follows(ordered[i]!));
}
