import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../lambdas/core/errors';
import { jsonResult } from '../../lambdas/http/api-gateway';
import type { LocalRoute } from '../../local/api-routes';
import { limitsWith } from '../../local/http-connections';
import { type ApiServerOptions, BASE_PATH, createApiServer, DEFAULT_SERVER_LIMITS, listen, MAX_BODY_BYTES } from '../../local/http-server';
import { startLocalServer } from '../support/local-server';
import { parseRawResponse, type RawHttpResponse } from '../support/raw-http';

/**
 * The local server's connection handling over real sockets: the key is checked before a body is
 * read (an unauthenticated upload is refused at once, not after it arrived), a body over 1 MiB
 * gets a whole 413 and a clean close, and connections and slow requests are bounded.
 */

const GOOD = 'Bearer good-key';
let bodiesRead = 0;
const routes: LocalRoute[] = [
  {
    method: 'POST',
    resource: '/echo',
    authenticated: true,
    handler: async (event) => {
      bodiesRead++;
      return jsonResult(200, { bytes: Buffer.byteLength(event.body ?? '') });
    },
  },
  { method: 'GET', resource: '/ping', authenticated: true, handler: async () => jsonResult(200, { ok: true }) },
];
const authorize = async (values: readonly string[] | undefined) => {
  if (values?.length === 1 && values[0] === GOOD) return { keyId: 'key_1', tier: 'developer' as const };
  throw new ServiceError(401, 'UNAUTHORIZED', 'Missing or invalid API key');
};

async function serve(options: ApiServerOptions = {}) {
  const server = createApiServer(routes, authorize, options);
  const baseUrl = await listen(server, 0);
  return {
    server,
    port: Number(new URL(baseUrl).port),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Exchange {
  socket: Socket;
  /** The first whole response, once it has arrived. */
  response: Promise<RawHttpResponse>;
  /** Resolves when the connection is over: with the error it ended on (ECONNRESET), or null for a clean end. */
  ended: Promise<Error | null>;
}

/** A connection that collects what the server sends; the caller writes the request. */
function open(port: number): Exchange {
  const socket = connect(port, '127.0.0.1');
  let data = Buffer.alloc(0);
  let onData: () => void = () => undefined;
  const response = new Promise<RawHttpResponse>((resolve, reject) => {
    onData = () => {
      const parsed = parseRawResponse(data, 'POST');
      if (!parsed) return;
      const chunked = parsed.headers['transfer-encoding']?.[0] === 'chunked';
      if (chunked ? data.subarray(-5).toString('latin1') === '0\r\n\r\n' : Buffer.byteLength(parsed.body) === Number(parsed.headers['content-length']?.[0]))
        resolve(parsed);
    };
    socket.once('close', () => reject(new Error(`the connection closed before a whole response (${data.length} bytes)`)));
  });
  response.catch(() => undefined);
  socket.on('data', (chunk: Buffer) => {
    data = Buffer.concat([data, chunk]);
    onData();
  });
  const ended = new Promise<Error | null>((resolve) => {
    socket.once('error', resolve);
    socket.once('close', () => resolve(null));
  });
  return { socket, response, ended };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;
/** The body in 64 KiB pieces. */
const pieces = (body: Buffer) => Array.from({ length: Math.ceil(body.length / 65_536) }, (_, i) => body.subarray(i * 65_536, (i + 1) * 65_536));

describe('the local server reads no body before the key, and refuses an oversized one cleanly', () => {
  let api: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    api = await serve();
  });
  afterAll(() => api?.close());

  it.each([
    ['no key', []],
    ['an unknown key', ['Authorization: Bearer gcf_live_00000000000000000000000000000000']],
  ])('with %s, a POST declaring 1 MiB is answered 401 at once, after a few bytes of it, and closed', async (_, auth) => {
    const before = bodiesRead;
    const exchange = open(api.port);
    exchange.socket.write(
      head([`POST ${BASE_PATH}/echo HTTP/1.1`, 'Host: local', 'Content-Type: application/json', `Content-Length: ${MAX_BODY_BYTES}`, ...auth]),
    );
    exchange.socket.write('{"query":"');
    const response = await within(exchange.response, 2_000, 'the 401');
    expect(response.status).toBe(401);
    expect(response.headers.connection).toEqual(['close']);
    expect(JSON.parse(response.body)).toEqual({
      error: { code: 'UNAUTHORIZED', message: 'Missing or invalid API key', request_id: response.headers['x-request-id']![0] },
    });
    // The server half-closes at once; the client, done, closes too: a clean end.
    exchange.socket.end();
    expect(await within(exchange.ended, 2_000, 'the close')).toBeNull();
    expect(bodiesRead).toBe(before);
  });

  it('a chunked upload without a key is refused before it is read, too', async () => {
    const exchange = open(api.port);
    exchange.socket.write(head([`POST ${BASE_PATH}/echo HTTP/1.1`, 'Host: local', 'Transfer-Encoding: chunked']));
    exchange.socket.write('10\r\n0123456789abcdef\r\n');
    const response = await within(exchange.response, 2_000, 'the 401');
    expect([response.status, response.headers.connection]).toEqual([401, ['close']]);
    exchange.socket.destroy();
  });

  it.each([
    [
      'declared by Content-Length',
      (body: Buffer) => [head([`POST ${BASE_PATH}/echo HTTP/1.1`, 'Host: local', `Authorization: ${GOOD}`, `Content-Length: ${body.length}`]), ...pieces(body)],
    ],
    [
      'found while reading a chunked body',
      (body: Buffer) => [
        head([`POST ${BASE_PATH}/echo HTTP/1.1`, 'Host: local', `Authorization: ${GOOD}`, 'Transfer-Encoding: chunked']),
        ...pieces(body).map((piece) => Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])),
        '0\r\n\r\n',
      ],
    ],
  ])('a body over 1 MiB (%s) gets a whole 413 with Connection: close, and the connection ends without a reset', async (_, request) => {
    const before = bodiesRead;
    const exchange = open(api.port);
    const parts = request(Buffer.alloc(2 * MAX_BODY_BYTES, 'x'));
    // A slow client: it sends on after the server has answered, and reads its answer late (a reset
    // arriving before it reads would discard the answer).
    exchange.socket.pause();
    for (const part of parts.slice(0, -8)) exchange.socket.write(part);
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const part of parts.slice(-8)) exchange.socket.write(part);
    await new Promise((resolve) => setTimeout(resolve, 100));
    exchange.socket.resume();
    const response = await within(exchange.response, 5_000, 'the 413');
    expect(response.status).toBe(413);
    expect(response.headers.connection).toEqual(['close']);
    expect(JSON.parse(response.body)).toEqual({
      error: { code: 'INVALID_PARAMETER', message: 'Request body over 1 MiB', request_id: response.headers['x-request-id']![0] },
    });
    exchange.socket.end();
    expect(await within(exchange.ended, 6_000, 'the close')).toBeNull();
    expect(bodiesRead).toBe(before);
  });

  it('an accepted request keeps its connection, and a small body is read whole', async () => {
    const exchange = open(api.port);
    exchange.socket.write(head([`POST ${BASE_PATH}/echo HTTP/1.1`, 'Host: local', `Authorization: ${GOOD}`, 'Content-Length: 11']));
    exchange.socket.write('{"q":"abc"}');
    const response = await within(exchange.response, 2_000, 'the answer');
    expect([response.status, JSON.parse(response.body), response.headers.connection]).toEqual([200, { bytes: 11 }, ['keep-alive']]);
    exchange.socket.destroy();
  });
});

describe('connection limits and timeouts', () => {
  it('has bounds by default', async () => {
    const { server, close } = await serve();
    expect(DEFAULT_SERVER_LIMITS).toEqual({ maxConnections: 256, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 });
    expect([server.maxConnections, server.headersTimeout, server.requestTimeout, server.keepAliveTimeout]).toEqual([256, 10_000, 30_000, 5_000]);
    await close();
    expect(() => limitsWith({ maxConnections: 0 })).toThrow(/maxConnections must be a positive integer/);
    expect(() => limitsWith({ headersTimeoutMs: 5_000, requestTimeoutMs: 1_000 })).toThrow(/must not exceed/);
  });

  /** Two connections held open, then a third: closed unanswered, while the first two are served. */
  async function overTheLimit(port: number, path: string, authorization: string, settled: () => Promise<unknown>) {
    const first = open(port);
    const second = open(port);
    await Promise.all([first, second].map((e) => new Promise((resolve) => e.socket.once('connect', resolve))));
    await settled();
    const third = open(port);
    third.socket.write(head([`GET ${path} HTTP/1.1`, 'Host: local', `Authorization: ${authorization}`]));
    await expect(within(third.response, 2_000, 'the third')).rejects.toThrow(/closed before a whole response \(0 bytes\)/);
    first.socket.write(head([`GET ${path} HTTP/1.1`, 'Host: local', `Authorization: ${authorization}`]));
    expect((await within(first.response, 5_000, 'the first')).status).toBe(200);
    for (const e of [first, second, third]) e.socket.destroy();
  }

  it('closes a connection over the limit at once, and serves those within it', async () => {
    const { server, port, close } = await serve({ limits: { maxConnections: 2 } });
    expect(server.maxConnections).toBe(2);
    const counted = async () => {
      while ((await new Promise<number>((r) => server.getConnections((_, n) => r(n)))) < 2) await new Promise((r) => setTimeout(r, 10));
    };
    await overTheLimit(port, `${BASE_PATH}/ping`, GOOD, () => within(counted(), 2_000, 'two connections'));
    await close();
  });

  it('npm start takes the limit as --max-connections, and refuses a value that is none', async () => {
    const refused = spawnSync(process.execPath, ['--import', 'tsx', 'bin/local.ts', '--max-connections', '0'], { encoding: 'utf8', timeout: 30_000 });
    expect([refused.status, refused.stderr.trim()]).toEqual([1, 'npm start: --max-connections must be a positive integer']);
    const dataDir = mkdtempSync(join(tmpdir(), 'gcf-limits-'));
    const server = await startLocalServer(['--data-dir', dataDir, '--grants', '30', '--max-connections', '2']);
    try {
      const developer = (JSON.parse(readFileSync(join(dataDir, 'keys.json'), 'utf8')) as { developer: string }).developer;
      const url = new URL(server.baseUrl);
      // The server counts a connection as it accepts it: a moment after both have connected.
      await overTheLimit(Number(url.port), `${url.pathname}/funders-api?limit=1`, `Bearer ${developer}`, () => new Promise((r) => setTimeout(r, 200)));
    } finally {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('answers 408 to headers that do not arrive in time, and to a body that does not', async () => {
    const { server, port, close } = await serve({ limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 } });
    expect([server.headersTimeout, server.requestTimeout]).toEqual([300, 600]);
    const slowHeaders = open(port);
    slowHeaders.socket.write(`GET ${BASE_PATH}/ping HTTP/1.1\r\nHost: local\r\n`);
    const slowBody = open(port);
    slowBody.socket.write(head([`POST ${BASE_PATH}/echo HTTP/1.1`, 'Host: local', `Authorization: ${GOOD}`, 'Content-Length: 100']));
    slowBody.socket.write('{"q":');
    for (const exchange of [slowHeaders, slowBody]) {
      const response = await within(exchange.response, 3_000, 'the 408');
      expect([response.status, JSON.parse(response.body).error.code]).toEqual([408, 'INVALID_PARAMETER']);
      exchange.socket.destroy();
    }
    await close();
  });
});
