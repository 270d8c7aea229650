import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, createClient, type RetryOptions } from '../../clients/typescript/src/index';

/**
 * The client's retries against a real HTTP server that answers from a script: what it was asked
 * (method, path, body) and how long the client waited before each retry (an injected sleep that
 * records instead of waiting, and a fixed clock for HTTP dates).
 */

interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

interface Recorded {
  method: string;
  path: string;
  body: string;
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server that answers each request with the next scripted answer (the last one repeats). */
async function scriptedServer(script: Scripted[]): Promise<{ baseUrl: string; requests: Recorded[] }> {
  const requests: Recorded[] = [];
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method!, path: req.url!, body: Buffer.concat(chunks).toString('utf8') });
      const answer = script[Math.min(requests.length, script.length) - 1]!;
      res.writeHead(answer.status, { 'Content-Type': 'application/json', 'X-Request-Id': `req-${requests.length}`, ...answer.headers });
      res.end(JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/functions/v1`, requests };
}

const NOW = Date.parse('2026-11-26T12:00:00Z');
const PAGE = {
  results: [],
  pagination: { total: 0, total_relation: 'eq', limit: 20, offset: 0, returned: 0 },
  meta: { response_time_ms: 1, sort_by: 'created_at', order: 'desc' },
};
const rateLimited = (retryAfter?: string): Scripted => ({
  status: 429,
  headers: retryAfter === undefined ? {} : { 'Retry-After': retryAfter },
  body: { error: { code: 'RATE_LIMITED', message: 'Daily quota exceeded', request_id: 'rid-429' } },
});

function clientFor(baseUrl: string, retry: RetryOptions = {}) {
  const waits: number[] = [];
  const client = createClient({
    baseUrl,
    apiKey: 'test-key',
    retry: { now: () => NOW, sleep: async (ms) => void waits.push(ms), ...retry },
  });
  return { client, waits };
}

describe('retries', () => {
  it('a GET answered 429 with Retry-After in seconds is retried after that wait, then succeeds', async () => {
    const { baseUrl, requests } = await scriptedServer([rateLimited('2'), rateLimited('1'), { status: 200, body: PAGE }]);
    const { client, waits } = clientFor(baseUrl);
    const page = await client.listGrants({ status: 'posted', limit: 5 });
    expect(page.pagination.total).toBe(0);
    expect(waits).toEqual([2000, 1000]);
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.path))).toEqual(new Set(['/functions/v1/grants-api?status=posted&limit=5']));
  });

  it('a Retry-After given as an HTTP date waits until that date by the client clock', async () => {
    const { baseUrl, requests } = await scriptedServer([rateLimited(new Date(NOW + 7_000).toUTCString()), { status: 200, body: PAGE }]);
    const { client, waits } = clientFor(baseUrl);
    await client.listFunders();
    expect(waits).toEqual([7000]);
    expect(requests).toHaveLength(2);
  });

  it('503 without Retry-After backs off with full jitter, growing per attempt and capped', async () => {
    const unavailable: Scripted = { status: 503, body: { error: { code: 'SEARCH_UNAVAILABLE', message: 'down' } } };
    const { baseUrl, requests } = await scriptedServer([unavailable, unavailable, unavailable, { status: 200, body: PAGE }]);
    const { client, waits } = clientFor(baseUrl, { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 3000, random: () => 0.5 });
    await client.listContracts();
    // random(0, min(3000, 1000 x 2^(n-1))) with random = 0.5
    expect(waits).toEqual([500, 1000, 1500]);
    expect(requests).toHaveLength(4);
  });

  it('gives up after maxAttempts and throws the last answer as an ApiError', async () => {
    const { baseUrl, requests } = await scriptedServer([rateLimited('1')]);
    const { client, waits } = clientFor(baseUrl, { maxAttempts: 3 });
    const error = await client.listGrants().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', requestId: 'rid-429', retryAfterSeconds: 1 });
    expect(requests).toHaveLength(3);
    expect(waits).toEqual([1000, 1000]);
  });

  it('a Retry-After longer than maxDelayMs is not waited for: the 429 is thrown at once with retryAfterSeconds', async () => {
    const { baseUrl, requests } = await scriptedServer([rateLimited('43200'), { status: 200, body: PAGE }]);
    const { client, waits } = clientFor(baseUrl, { maxDelayMs: 60_000 });
    const error = (await client.listGrants().catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfterSeconds: 43200 });
    expect(requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('400 is never retried, nor 500', async () => {
    for (const status of [400, 500]) {
      const { baseUrl, requests } = await scriptedServer([
        {
          status,
          body: { error: { code: status === 400 ? 'INVALID_PARAMETER' : 'INTERNAL', message: 'no', details: [{ field: 'limit', issue: 'too big' }] } },
        },
        { status: 200, body: PAGE },
      ]);
      const { client, waits } = clientFor(baseUrl);
      const error = (await client.listGrants({ limit: 5 }).catch((e: unknown) => e)) as ApiError;
      expect(error.status).toBe(status);
      expect(error.requestId).toBe('req-1');
      expect(requests).toHaveLength(1);
      expect(waits).toEqual([]);
      server!.closeAllConnections();
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    }
  });

  it('the read-only POSTs (semantic search) are retried with the same body', async () => {
    const found = { results: [], count: 0, meta: { response_time_ms: 1, types: ['grant', 'contract'], limit: 10, min_relevance: 0.5 } };
    const { baseUrl, requests } = await scriptedServer([rateLimited('3'), { status: 200, body: found }]);
    const { client, waits } = clientFor(baseUrl);
    const answer = await client.semanticSearch({ query: 'rural broadband', limit: 3 });
    expect(answer.count).toBe(0);
    expect(waits).toEqual([3000]);
    expect(requests.map((r) => [r.method, r.path, JSON.parse(r.body)])).toEqual([
      ['POST', '/functions/v1/semantic-search', { query: 'rural broadband', limit: 3 }],
      ['POST', '/functions/v1/semantic-search', { query: 'rural broadband', limit: 3 }],
    ]);
  });

  it('any other POST is sent once', async () => {
    const { baseUrl, requests } = await scriptedServer([rateLimited('1'), { status: 200 }]);
    const { client, waits } = clientFor(baseUrl);
    const { response } = await (client.raw as unknown as { POST(path: string, init: object): Promise<{ response: Response }> }).POST('/grants-api', {
      body: {},
    });
    expect(response.status).toBe(429);
    expect(requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('retry: false sends every request once', async () => {
    const { baseUrl, requests } = await scriptedServer([rateLimited('1'), { status: 200, body: PAGE }]);
    const client = createClient({ baseUrl, apiKey: 'k', retry: false });
    await expect(client.listGrants()).rejects.toMatchObject({ status: 429 });
    expect(requests).toHaveLength(1);
  });

  it('a network failure of an idempotent request is retried', async () => {
    const { baseUrl, requests } = await scriptedServer([{ status: 200, body: PAGE }]);
    let calls = 0;
    const flaky = async (request: Request) => {
      calls += 1;
      if (calls === 1) throw new TypeError('fetch failed');
      return fetch(request);
    };
    const waits: number[] = [];
    const client = createClient({
      baseUrl,
      apiKey: 'k',
      fetch: flaky,
      retry: { random: () => 0.25, baseDelayMs: 400, sleep: async (ms) => void waits.push(ms) },
    });
    await client.listGrants();
    expect(calls).toBe(2);
    expect(requests).toHaveLength(1);
    expect(waits).toEqual([100]);
  });

  it('sends the key as a bearer token', async () => {
    let authorization: string | undefined;
    server = createServer((req, res) => {
      authorization = req.headers.authorization;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(PAGE));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const client = createClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/functions/v1/`, apiKey: 'gcf_dev_abc' });
    await client.listGrants();
    expect(authorization).toBe('Bearer gcf_dev_abc');
  });
});
