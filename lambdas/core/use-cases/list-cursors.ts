import type { CursorKeySource } from '../../ports/cursor-key';
import { issueCursor, readCursor } from '../query/list-cursor';
import type { ListQuery } from '../query/list-query';
import type { ResourceKind } from '../records';
import type { ListOutcome, PageLinks } from './list-records';

/**
 * Deep paging around listRecords: a query with `cursor` is resumed after the cursor's position
 * (and on the walk's first date), and every page with more results after it gets a cursor to them.
 */

export interface ResumedQuery<K extends ResourceKind> {
  query: ListQuery & { kind: K };
  /** Results the walk returned before this page (the query's offset without a cursor). */
  seen: number;
}

/** The query to ask the index: with a cursor, its position and date; without, as given. */
export async function resumeListQuery<K extends ResourceKind>(keys: CursorKeySource, query: ListQuery & { kind: K }, now: Date): Promise<ResumedQuery<K>> {
  if (query.cursor === undefined) return { query, seen: query.offset };
  const position = readCursor(await keys.key(), query.cursor, query, now);
  return { query: { ...query, after: position.after, today: position.today, offset: 0 }, seen: position.seen };
}

/** The page's offset in the walk, and the cursor to the next page when more results follow. */
export async function pageLinks<K extends ResourceKind>(keys: CursorKeySource, outcome: ListOutcome<K>, seen: number, now: Date): Promise<PageLinks> {
  if (!outcome.next || outcome.query.countOnly || outcome.results.length === 0) return { offset: seen };
  const nextCursor = issueCursor(
    await keys.key(),
    outcome.query,
    { after: outcome.next, seen: seen + outcome.results.length, today: outcome.query.today },
    now,
  );
  return { offset: seen, nextCursor };
}
