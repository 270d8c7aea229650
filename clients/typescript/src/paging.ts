import { PagingLimitError } from './errors.js';
import type { ListItem, ListPage, ListQuery, ListResource, PagingQuery } from './types.js';

/** The largest `offset` the list endpoints accept: offset paging reaches at most OFFSET_MAX + a page. */
export const OFFSET_MAX = 10_000;
/** The largest page the list endpoints serve, and the iterator's default page size. */
export const PAGE_MAX = 100;

export type ListPageFetcher = <R extends ListResource>(resource: R, query: ListQuery<R>) => Promise<ListPage<R>>;

/**
 * Every page of a list, in order, with the same filters and sort. The first page is asked by
 * offset; from then on the iterator follows `pagination.next_cursor` with `cursor=` whenever the
 * answer has one (deep paging: no cap), and otherwise advances `offset` by `returned` until
 * `total` is reached. Without cursors, offset paging stops at 10,000: a longer list throws
 * PagingLimitError after the last reachable page rather than end silently short.
 */
export async function* listPages<R extends ListResource>(
  fetchPage: ListPageFetcher,
  resource: R,
  query: PagingQuery<R> = {} as PagingQuery<R>,
): AsyncGenerator<ListPage<R>, void, undefined> {
  const base = { limit: PAGE_MAX, ...query } as ListQuery<R>;
  let offset = 0;
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(resource, (cursor === undefined ? { ...base, offset } : { ...base, cursor }) as ListQuery<R>);
    yield page;
    const { returned, total, next_cursor: next } = page.pagination;
    // An empty page is the last, whatever it says next (no endless walk on a misbehaving server).
    if (returned === 0) return;
    if (next) {
      cursor = next;
      continue;
    }
    // A cursor page without a next cursor is the last.
    if (cursor !== undefined) return;
    offset += returned;
    if (offset >= total) return;
    if (offset > OFFSET_MAX) throw new PagingLimitError(total, offset);
  }
}

/** Every result of a list, one at a time, fetched page by page as listPages does. */
export async function* listItems<R extends ListResource>(
  fetchPage: ListPageFetcher,
  resource: R,
  query?: PagingQuery<R>,
): AsyncGenerator<ListItem<R>, void, undefined> {
  for await (const page of listPages(fetchPage, resource, query)) yield* page.results;
}
