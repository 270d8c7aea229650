import { createHmac } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CURSOR_KEY_FILE, localCursorKeys } from '../../lambdas/adapters/embedded/file-cursor-key';
import { ServiceError } from '../../lambdas/core/errors';
import { CURSOR_LIFETIME_MS, issueCursor, queryHash, readCursor } from '../../lambdas/core/query/list-cursor';
import { type ListQuery, parseListQuery } from '../../lambdas/core/query/list-query';
import type { ResourceKind } from '../../lambdas/core/records';
import { pageLinks, resumeListQuery } from '../../lambdas/core/use-cases/list-cursors';
import { onceKeySource } from '../../lambdas/ports/cursor-key';

const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 8);
const ISSUED = new Date('2026-11-20T12:00:00.000Z');
const at = { after: ['2026-01-01T00:00:00.000Z', '00000000-0000-4000-8000-000000000001'], seen: 40, today: '2026-11-20' } as const;

function q(params: Record<string, string>, kind: ResourceKind = 'grant'): ListQuery {
  return parseListQuery(kind, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, [v]])), '2026-11-22');
}

/** The 400 a read throws: INVALID_PARAMETER naming cursor, and its issue text. */
function rejection(read: () => unknown): { field: string; issue: string } {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    const e = error as ServiceError;
    expect(e.status).toBe(400);
    expect(e.code).toBe('INVALID_PARAMETER');
    expect(e.message).toBe('Invalid parameter: cursor');
    expect(e.details).toHaveLength(1);
    return e.details![0]!;
  }
  throw new Error('the cursor was accepted');
}

describe('list cursors', () => {
  const query = q({ search: 'water', status: 'open', states: 'TX' });
  const cursor = issueCursor(KEY, query, at, ISSUED);

  it("round-trip: the position, the walk's count and date come back, for the same query with any limit or offset default", () => {
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(readCursor(KEY, cursor, query, ISSUED)).toEqual(at);
    expect(readCursor(KEY, cursor, q({ search: 'water', status: 'open', states: 'TX', limit: '100' }), new Date(ISSUED.getTime() + 1000))).toEqual(at);
    // The same query spelled differently normalises alike (order of states, of parameters).
    expect(readCursor(KEY, cursor, q({ states: 'tx', status: 'open', search: 'water' }), ISSUED)).toEqual(at);
  });

  it('carries null, numbers and strings in a position exactly', () => {
    for (const after of [
      [null, 'id-1'],
      [0.123456789012345, 'id-2'],
      ['Infinity', 'id-3'],
      [0, 0.7421875, 'id-4'],
    ]) {
      expect(readCursor(KEY, issueCursor(KEY, query, { ...at, after }, ISSUED), query, ISSUED).after).toEqual(after);
    }
  });

  it('a tampered cursor (payload or signature changed) or one signed with another key is refused', () => {
    const [body, signature] = cursor.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, n: 0, p: ['x', 'y'] })).toString('base64url');
    for (const bad of [
      `${forged}.${signature}`,
      `${body}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`,
      issueCursor(OTHER_KEY, query, at, ISSUED),
    ]) {
      expect(rejection(() => readCursor(KEY, bad, query, ISSUED)).issue).toMatch(/altered, or was not issued by this service: its signature does not match/);
    }
  });

  it('malformed text is refused as not a cursor', () => {
    for (const bad of ['abc', 'a.b.c', `${cursor}x`, 'not base64!.AAAA', '']) {
      expect(rejection(() => readCursor(KEY, bad, query, ISSUED)).issue).toMatch(/is not a cursor/);
    }
  });

  it('a signed payload of another version is refused as unreadable, never trusted', () => {
    const body = Buffer.from(JSON.stringify({ v: 99 })).toString('base64url');
    const signed = `${body}.${createHmac('sha256', KEY).update(body).digest('base64url')}`;
    expect(rejection(() => readCursor(KEY, signed, query, ISSUED)).issue).toMatch(/not a cursor this version of the service reads/);
  });

  it('expires 24 hours after it was issued: start again from the first page', () => {
    expect(CURSOR_LIFETIME_MS).toBe(24 * 3_600_000);
    expect(readCursor(KEY, cursor, query, new Date(ISSUED.getTime() + CURSOR_LIFETIME_MS))).toEqual(at);
    const issue = rejection(() => readCursor(KEY, cursor, query, new Date(ISSUED.getTime() + CURSOR_LIFETIME_MS + 1))).issue;
    expect(issue).toMatch(/has expired \(a cursor is valid for 24 hours/);
    expect(issue).toMatch(/start again from the first page/);
  });

  it('refuses a cursor made for another kind, sort or query, saying which', () => {
    expect(rejection(() => readCursor(KEY, cursor, { ...query, kind: 'contract' }, ISSUED)).issue).toMatch(/issued for a list of grants, not contracts/);
    expect(rejection(() => readCursor(KEY, cursor, q({ search: 'water', status: 'open', states: 'TX', sort_by: 'title' }), ISSUED)).issue).toMatch(
      /different sort \(sort_by=relevance, order=desc\)/,
    );
    expect(rejection(() => readCursor(KEY, cursor, q({ search: 'water', status: 'open', states: 'TX', order: 'asc' }), ISSUED)).issue).toMatch(
      /different sort/,
    );
    for (const other of <Record<string, string>[]>[
      { search: 'waters', status: 'open', states: 'TX' },
      { search: 'water', status: 'open' },
      { search: 'water', status: 'open', states: 'TX', search_mode: 'hybrid' },
    ]) {
      expect(rejection(() => readCursor(KEY, cursor, q(other), ISSUED)).issue, JSON.stringify(other)).toMatch(
        /different query \(its search, search_mode or filters differ\)/,
      );
    }
  });

  it('hashes the query without limit, offset, count_only and the date', () => {
    const base = q({ category: 'Health' });
    const paged: ListQuery = { ...base, limit: 5, offset: 20, countOnly: true, today: '2030-01-01' };
    expect(queryHash(paged)).toBe(queryHash(base));
    expect(queryHash(q({ category: 'Arts' }))).not.toBe(queryHash(base));
  });
});

describe('resuming a list query and linking the next page', () => {
  const keys = onceKeySource(async () => KEY);
  const now = ISSUED;

  it("a query without cursor stands as given; with one, it continues after the position on the walk's first date", async () => {
    const plain = q({ offset: '20' }) as ListQuery & { kind: 'grant' };
    expect(await resumeListQuery(keys, plain, now)).toEqual({ query: plain, seen: 20 });
    const cursor = issueCursor(KEY, plain, at, now);
    const resumed = await resumeListQuery(keys, q({ cursor, limit: '5' }) as ListQuery & { kind: 'grant' }, now);
    expect(resumed.seen).toBe(40);
    expect(resumed.query).toMatchObject({ after: at.after, today: '2026-11-20', offset: 0, limit: 5 });
  });

  it('links a next page only when the index says more follow, never for count_only', async () => {
    const query = q({}) as ListQuery & { kind: 'grant' };
    const outcome = { query, total: 50, totalRelation: 'eq' as const, results: [{ id: 'a' }, { id: 'b' }] as never[], next: ['x', 'b'] };
    const links = await pageLinks(keys, outcome, 10, now);
    expect(links.offset).toBe(10);
    expect(readCursor(KEY, links.nextCursor!, query, now)).toEqual({ after: ['x', 'b'], seen: 12, today: '2026-11-22' });
    expect(await pageLinks(keys, { ...outcome, next: undefined }, 10, now)).toEqual({ offset: 10 });
    expect(await pageLinks(keys, { ...outcome, query: { ...query, countOnly: true } }, 0, now)).toEqual({ offset: 0 });
  });

  it('refuses cursor with an offset other than 0, naming both', () => {
    let error: ServiceError | undefined;
    try {
      q({ cursor: 'abc.def', offset: '20' });
    } catch (e) {
      error = e as ServiceError;
    }
    expect(error?.status).toBe(400);
    expect(error?.message).toBe('Invalid parameter: cursor, offset');
    expect(q({ cursor: 'abc.def', offset: '0' }).cursor).toBe('abc.def');
  });

  it('a key source reads once, keeps the key, refuses a short one and tries a failed read again', async () => {
    let reads = 0;
    const source = onceKeySource(async () => {
      reads++;
      if (reads === 1) throw new Error('throttled');
      return reads === 2 ? Buffer.alloc(16) : KEY;
    });
    await expect(source.key()).rejects.toThrow('throttled');
    await expect(source.key()).rejects.toThrow(/at least 32 bytes/);
    expect(await source.key()).toBe(KEY);
    expect(await source.key()).toBe(KEY);
    expect(reads).toBe(3);
  });
});

describe('the local cursor key', () => {
  it('is made once in the state folder, readable by its owner only, and the same on the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gcf-cursor-key-'));
    try {
      const first = await localCursorKeys(dir).key();
      expect(first).toHaveLength(32);
      expect(statSync(join(dir, CURSOR_KEY_FILE)).mode & 0o777).toBe(0o600);
      expect(Buffer.from(await localCursorKeys(dir).key()).equals(Buffer.from(first))).toBe(true);
      // A key copied in with wider permissions is narrowed.
      chmodSync(join(dir, CURSOR_KEY_FILE), 0o644);
      await localCursorKeys(dir).key();
      expect(statSync(join(dir, CURSOR_KEY_FILE)).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is random and in memory without a state folder', async () => {
    const a = await localCursorKeys().key();
    const b = await localCursorKeys().key();
    expect(a).toHaveLength(32);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });
});
