import type { RequestLogEntry } from '../../ports/request-log';
import { invalidParameters } from '../errors';

/** How long a key's recent-requests log keeps an entry. */
export const REQUEST_LOG_RETENTION_DAYS = 7;
export const REQUEST_LOG_DEFAULT_LIMIT = 50;
export const REQUEST_LOG_MAX_LIMIT = 200;
const MAX_PATH_LENGTH = 512;

/** The oldest moment still within retention at `now`. */
export function requestLogHorizon(now: Date): Date {
  return new Date(now.getTime() - REQUEST_LOG_RETENTION_DAYS * 86_400_000);
}

/** A log entry from what a route saw: the path loses any query string and is cut to a bounded length. */
export function requestLogEntryOf(request: { at: Date; method: string; path: string; status: number; latencyMs: number; requestId: string }): RequestLogEntry {
  const path = request.path.split('?')[0]!.slice(0, MAX_PATH_LENGTH);
  return {
    at: request.at.toISOString(),
    method: request.method.toUpperCase(),
    path,
    status: request.status,
    latencyMs: Math.round(request.latencyMs * 10) / 10,
    requestId: request.requestId,
  };
}

/**
 * A page's position: the sort key of the last entry shown (`<ISO time>#<request id>`), as
 * base64url, so the cursor says nothing a caller should rely on.
 */
const POSITION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z#[\w.:-]{1,128}$/;

export function encodeRequestLogCursor(position: string): string {
  return Buffer.from(position, 'utf8').toString('base64url');
}

export function decodeRequestLogCursor(cursor: string): string {
  const position = /^[\w-]{1,400}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!POSITION.test(position)) throw invalidParameters([{ field: 'cursor', issue: 'is not a cursor this log returned' }]);
  return position;
}

/** The page a caller asked for (`limit` and `cursor` as query parameters), or a 400 naming what is wrong. */
export function parseRequestLogQuery(query: { limit?: string | null; cursor?: string | null }): { limit: number; cursor: string | null } {
  let limit = REQUEST_LOG_DEFAULT_LIMIT;
  if (query.limit !== undefined && query.limit !== null) {
    limit = /^\d{1,4}$/.test(query.limit) ? Number(query.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= REQUEST_LOG_MAX_LIMIT))
      throw invalidParameters([{ field: 'limit', issue: `must be an integer from 1 to ${REQUEST_LOG_MAX_LIMIT}` }]);
  }
  const cursor = query.cursor ?? null;
  if (cursor !== null) decodeRequestLogCursor(cursor);
  return { limit, cursor };
}
