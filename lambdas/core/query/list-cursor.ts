import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { invalidParameters } from '../errors';
import type { ResourceKind } from '../records';
import type { ListQuery, PagePosition } from './list-query';

/**
 * List cursors (deep paging): `pagination.next_cursor` names where a page ended, and `cursor=`
 * continues right after it, past the offset cap. A cursor is opaque to callers and signed, so its
 * position (the last result's sort key, which the index adapter reads back as it wrote it) cannot
 * be forged into an index query:
 *
 *   base64url(JSON payload) "." base64url(HMAC-SHA256(key, the payload part))
 *
 * The payload says which query it continues (kind, sort, and a hash of the rest of the normalised
 * query without limit, offset and count_only, so the page size may change along the walk), where
 * (the index's sort key of the last result), how many results the walk has returned, the date the
 * walk's first page was evaluated on (open and closed stay those of that day through the walk), and
 * when it was issued: a cursor is valid for CURSOR_LIFETIME_MS. Pure computation: the key and the
 * time come from the caller.
 */

export const CURSOR_VERSION = 1;
export const CURSOR_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** Where a walk stands: after this sort key, with `seen` results returned before, on the first page's date. */
export interface CursorPosition {
  after: PagePosition;
  seen: number;
  today: string;
}

interface Payload {
  v: number;
  k: ResourceKind;
  s: string;
  q: string;
  p: PagePosition;
  n: number;
  d: string;
  t: number;
}

const FIELD = 'cursor';

function sortOf(query: Pick<ListQuery, 'sort'>): string {
  return `${query.sort.field}:${query.sort.order}`;
}

/** The query a cursor continues, without what may change between pages (limit, offset, count_only) or is the cursor's own (today). */
export function queryHash(query: Pick<ListQuery, 'kind' | 'filters' | 'search'>): string {
  const normalised = JSON.stringify({ kind: query.kind, filters: query.filters, search: query.search ?? null });
  return createHash('sha256').update(normalised).digest('base64url').slice(0, 22);
}

function signatureOf(key: Uint8Array, body: string): Buffer {
  return createHmac('sha256', key).update(body).digest();
}

/** A cursor that continues `query` after `position`, issued at `now`. */
export function issueCursor(key: Uint8Array, query: ListQuery, position: CursorPosition, now: Date): string {
  const payload: Payload = {
    v: CURSOR_VERSION,
    k: query.kind,
    s: sortOf(query),
    q: queryHash(query),
    p: position.after,
    n: position.seen,
    d: position.today,
    t: now.getTime(),
  };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${signatureOf(key, body).toString('base64url')}`;
}

const isPositionValue = (value: unknown) => value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

function isPayload(value: unknown): value is Payload {
  const p = value as Partial<Payload> | null;
  return (
    typeof p === 'object' &&
    p !== null &&
    p.v === CURSOR_VERSION &&
    typeof p.k === 'string' &&
    typeof p.s === 'string' &&
    typeof p.q === 'string' &&
    Array.isArray(p.p) &&
    p.p.length > 0 &&
    p.p.every(isPositionValue) &&
    Number.isInteger(p.n) &&
    p.n! >= 0 &&
    typeof p.d === 'string' &&
    /^\d{4}-\d{2}-\d{2}$/.test(p.d) &&
    Number.isFinite(p.t)
  );
}

const fail = (issue: string) => invalidParameters([{ field: FIELD, issue }]);
const START_AGAIN = 'start again from the first page (without cursor)';

/**
 * The position a cursor holds, once it is shown to be one this deployment signed (the same key),
 * within its lifetime, for this same query; otherwise a 400 naming `cursor` that says which.
 */
export function readCursor(key: Uint8Array, cursor: string, query: ListQuery, now: Date): CursorPosition {
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(cursor);
  if (!match) throw fail('is not a cursor: pass pagination.next_cursor exactly as a list response gave it');
  const [, body, signature] = match as unknown as [string, string, string];
  const expected = signatureOf(key, body);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw fail('has been altered, or was not issued by this service: its signature does not match');
  }
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    payload = null;
  }
  if (!isPayload(payload)) throw fail(`is not a cursor this version of the service reads: ${START_AGAIN}`);
  if (now.getTime() - payload.t > CURSOR_LIFETIME_MS) {
    throw fail(`has expired (a cursor is valid for ${CURSOR_LIFETIME_MS / 3_600_000} hours after the page that gave it): ${START_AGAIN}`);
  }
  if (payload.k !== query.kind) throw fail(`was issued for a list of ${payload.k}s, not ${query.kind}s: a cursor continues only the query it came from`);
  if (payload.s !== sortOf(query)) {
    const [field, order] = payload.s.split(':');
    throw fail(`was issued for a different sort (sort_by=${field}, order=${order}): send the same sort_by and order as the first page, or ${START_AGAIN}`);
  }
  if (payload.q !== queryHash(query)) {
    throw fail(
      `was issued for a different query (its search, search_mode or filters differ): send the same parameters as the first page (only limit may change), or ${START_AGAIN}`,
    );
  }
  return { after: payload.p, seen: payload.n, today: payload.d };
}

/** An index adapter's answer to a position it cannot read back (a cursor signed for another index or sort). */
export function unreadablePosition(): Error {
  return fail(`does not fit this list's order any more (the service's index changed since it was issued): ${START_AGAIN}`);
}

/**
 * A page past the window a semantic or hybrid search ranks (the OpenSearch adapter's bounded
 * window of nearest candidates): a 400 naming the parameter that went past it (`offset`, or
 * `cursor` for a walk), with how far pages go and how to reach the rest.
 */
export function pageBeyondWindow(field: 'offset' | 'cursor', mode: 'semantic' | 'hybrid', window: number): Error {
  const depth = window.toLocaleString('en-US');
  return invalidParameters([
    {
      field,
      issue:
        `goes past the ${depth} best results ${mode} search ranks here (its window of nearest candidates): pages reach result ${depth}. ` +
        'Narrow the search with filters (a narrower query ranks all its matches), or walk every match with search_mode=keyword, which pages without a limit',
    },
  ]);
}
