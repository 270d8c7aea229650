import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, OFFSET_MAX, PagingLimitError } from '../../clients/typescript/src/index';

/**
 * The iterator past the service's offset cap, which the test catalogue is too small to reach:
 * a real HTTP server holds a list of `total` ids and pages it as the list endpoints do (offset up
 * to 10,000; with `cursors`, pagination.next_cursor and `cursor=`), recording every query.
 */

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function listServer(total: number, cursors: boolean): Promise<{ baseUrl: string; queries: URLSearchParams[] }> {
  const queries: URLSearchParams[] = [];
  server = createServer((req, res) => {
    const query = new URL(req.url!, 'http://x').searchParams;
    queries.push(query);
    const limit = Number(query.get('limit') ?? 20);
    const cursor = query.get('cursor');
    const offset = cursor === null ? Number(query.get('offset') ?? 0) : Number(Buffer.from(cursor, 'base64url').toString());
    if (cursor === null && offset > OFFSET_MAX) {
      res
        .writeHead(400, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ error: { code: 'INVALID_PARAMETER', message: 'offset too large', details: [{ field: 'offset', issue: 'at most 10000' }] } }));
      return;
    }
    const results = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => ({ id: `g${offset + i}` }));
    const next = offset + results.length;
    const pagination = {
      total,
      limit,
      offset,
      returned: results.length,
      ...(cursors && next < total ? { next_cursor: Buffer.from(String(next)).toString('base64url') } : {}),
    };
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ results, pagination, meta: { response_time_ms: 1, sort_by: 'created_at', order: 'desc' } }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/functions/v1`, queries };
}

describe('paginate beyond the offset cap', () => {
  it('follows pagination.next_cursor with cursor= and the same filters, to the end of a list longer than 10,000', async () => {
    const { baseUrl, queries } = await listServer(12_345, true);
    const client = createClient({ baseUrl, apiKey: 'k' });
    const ids: string[] = [];
    for await (const grant of client.paginate('grants', { status: 'posted', states: 'KS' })) ids.push(grant.id);
    expect(ids).toHaveLength(12_345);
    expect(ids[12_344]).toBe('g12344');
    expect(new Set(ids).size).toBe(12_345);
    expect(queries).toHaveLength(124);
    expect(Object.fromEntries(queries[0]!)).toEqual({ status: 'posted', states: 'KS', limit: '100', offset: '0' });
    for (const query of queries.slice(1)) {
      expect(query.get('cursor')).not.toBeNull();
      expect(query.has('offset')).toBe(false);
      expect([query.get('status'), query.get('states'), query.get('limit')]).toEqual(['posted', 'KS', '100']);
    }
  });

  it('without cursors, pages by offset up to the cap and then throws PagingLimitError rather than end short', async () => {
    const { baseUrl, queries } = await listServer(10_250, false);
    const client = createClient({ baseUrl, apiKey: 'k' });
    const ids: string[] = [];
    const error = await (async () => {
      for await (const grant of client.paginate('grants', { category: 'Health' })) ids.push(grant.id);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PagingLimitError);
    expect(error).toMatchObject({ total: 10_250, reached: 10_100 });
    expect(ids).toHaveLength(10_100);
    expect(queries.map((q) => Number(q.get('offset')))).toEqual(Array.from({ length: 101 }, (_, i) => i * 100));
    expect(queries.every((q) => q.get('category') === 'Health')).toBe(true);
  });

  it('without cursors, a list that ends within the cap is walked to its end', async () => {
    const { baseUrl } = await listServer(10_100, false);
    const client = createClient({ baseUrl, apiKey: 'k' });
    let count = 0;
    for await (const page of client.pages('contracts', { limit: 100 })) count += page.results.length;
    expect(count).toBe(10_100);
  });
});
