import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * What the local server allows a connection, as API Gateway bounds its own: how many at once, how
 * long headers and a whole request may take, how large a body is read, and how a connection ends
 * when it is answered before its body was read (a refused key, a body over the limit).
 */

export const MAX_BODY_BYTES = 1024 * 1024;

export interface ServerLimits {
  /** Connections open at once; a further one is closed as it arrives. */
  maxConnections: number;
  /** Time for a request's headers to arrive (a 408 after it). */
  headersTimeoutMs: number;
  /** Time for a whole request, its body included, to arrive (a 408 after it). */
  requestTimeoutMs: number;
  /** How long an idle kept-alive connection is kept. */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  maxConnections: 256,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
};

/** node:http checks the two timeouts this often (its own default, 30 s, would let them run far over). */
const TIMEOUT_CHECK_MS = 1_000;
/** After an early answer, what a client still sending may send before its connection is cut. */
const LINGER_MS = 5_000;
const LINGER_BYTES = 4 * MAX_BODY_BYTES;

export function limitsWith(overrides: Partial<ServerLimits> = {}): ServerLimits {
  const limits = { ...DEFAULT_SERVER_LIMITS, ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) };
  for (const [name, value] of Object.entries(limits)) {
    if (!(Number.isInteger(value) && value > 0)) throw new Error(`${name} must be a positive integer, got ${value}`);
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) throw new Error('headersTimeoutMs must not exceed requestTimeoutMs');
  return limits;
}

/** The options node:http takes only at creation. */
export function serverOptionsFor(limits: ServerLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: TIMEOUT_CHECK_MS,
  };
}

export function applyLimits(server: Server, limits: ServerLimits): void {
  server.maxConnections = limits.maxConnections;
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
}

/** The body's size as its Content-Length declares it, or null (none, or chunked). */
export function declaredLength(req: IncomingMessage): number | null {
  const header = req.headers['content-length'];
  return header !== undefined && /^\d+$/.test(header) ? Number(header) : null;
}

/** Whether the request has a body that has not arrived whole yet. */
export function bodyStillComing(req: IncomingMessage): boolean {
  const hasBody = (declaredLength(req) ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  return hasBody && !req.complete;
}

export const TOO_LARGE = Symbol('body over the limit');

/** The client went away before its body arrived: there is no one to answer. */
export class ClientGone extends Error {}

/** The body as text (null when empty), or TOO_LARGE as soon as it passes the limit (the rest is discarded, never kept). */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<string | null | typeof TOO_LARGE> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off('data', onData);
      chunks.length = 0;
      req.resume();
      resolve(TOO_LARGE);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length > 0 ? Buffer.concat(chunks).toString('utf8') : null));
    const gone = () => reject(new ClientGone('the client closed the connection mid-body'));
    req.once('error', gone);
    req.once('close', () => (req.complete ? undefined : gone()));
  });
}

/**
 * For an answer given before the request's body was read whole: `Connection: close`, the rest of
 * the body discarded, and a lingering close. Node would end and destroy the socket as soon as the
 * answer is written; bytes the client is still sending would then meet a reset, which can discard
 * the answer before the client reads it. Instead the socket half-closes and drains, within bounds.
 */
export function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Connection', 'close');
  req.resume();
  const socket = req.socket;
  socket.destroySoon = () => linger(socket);
}

function linger(socket: Socket): void {
  socket.end();
  let drained = 0;
  const cut = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('close', () => clearTimeout(cut));
  socket.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > LINGER_BYTES) socket.destroy();
  });
  socket.resume();
}
