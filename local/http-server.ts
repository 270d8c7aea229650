import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type ErrorCode, ServiceError } from '../lambdas/core/errors';
import type { Principal } from '../lambdas/core/use-cases/authenticate';
import { type ApiEvent, type ApiResult, jsonResult, REQUEST_ID_HEADER, withRequestId } from '../lambdas/http/api-gateway';
import { ANY_ORIGIN, allowedMethods, type CorsOrigins, corsResponseHeaders, preflightHeaders, withCorsHeaders } from '../lambdas/http/cors';
import { compilePathTemplate } from '../lambdas/http/path-template';
import type { LocalRoute } from './api-routes';
import {
  applyLimits,
  bodyStillComing,
  ClientGone,
  closeAfterAnswer,
  declaredLength,
  limitsWith,
  MAX_BODY_BYTES,
  readBody,
  type ServerLimits,
  serverOptionsFor,
  TOO_LARGE,
} from './http-connections';

/** The authorizer API Gateway runs before a protected route: the Authorization header values in, a principal out (or a 401). */
export type LocalAuthorizer = (authorization: readonly string[] | undefined) => Promise<Principal>;

/**
 * A node:http front that plays API Gateway: it turns each request into a REST API proxy event,
 * calls the route's Lambda handler, and writes the proxy result back.
 */

export const BASE_PATH = '/functions/v1';
export { DEFAULT_SERVER_LIMITS, MAX_BODY_BYTES, type ServerLimits } from './http-connections';

interface CompiledRoute extends LocalRoute {
  pattern: RegExp;
  paramNames: string[];
}

function compile(route: LocalRoute): CompiledRoute {
  return { ...route, ...compilePathTemplate(route.resource) };
}

/** Errors API Gateway itself would answer (no route, unreadable request), in the service's error body. */
function errorAnswer(requestId: string, status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}): ApiResult {
  return jsonResult(status, { error: { code, message, request_id: requestId } }, headers);
}

function toEvent(req: IncomingMessage, url: URL, route: CompiledRoute, match: RegExpMatchArray, body: string | null, requestId: string): ApiEvent {
  // Maps, not object literals: a parameter or header named __proto__, constructor or
  // hasOwnProperty is a name like any other (on a literal it would hit Object.prototype).
  const multiQuery = new Map<string, string[]>();
  for (const [name, value] of url.searchParams) multiQuery.set(name, [...(multiQuery.get(name) ?? []), value]);
  const query = Object.fromEntries([...multiQuery].map(([k, v]) => [k, v[v.length - 1]!]));
  const multiHeaderMap = new Map<string, string[]>();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    multiHeaderMap.set(name, [...(multiHeaderMap.get(name) ?? []), req.rawHeaders[i + 1]!]);
  }
  const headers: Record<string, string> = Object.fromEntries([...multiHeaderMap].map(([k, v]) => [k, v[v.length - 1]!]));
  const multiHeaders: Record<string, string[]> = Object.fromEntries(multiHeaderMap);
  const pathParameters = Object.fromEntries(route.paramNames.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]));
  return {
    resource: route.resource,
    path: url.pathname,
    httpMethod: req.method ?? 'GET',
    headers,
    multiValueHeaders: multiHeaders,
    queryStringParameters: multiQuery.size > 0 ? query : null,
    multiValueQueryStringParameters: multiQuery.size > 0 ? Object.fromEntries(multiQuery) : null,
    pathParameters: route.paramNames.length > 0 ? pathParameters : null,
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      requestId,
      stage: 'functions',
      httpMethod: req.method ?? 'GET',
      path: url.pathname,
      resourcePath: route.resource,
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1' },
    } as ApiEvent['requestContext'],
  };
}

function writeResult(res: ServerResponse, result: ApiResult): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  res.writeHead(result.statusCode, headers);
  res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

/** Every value sent for a header, whatever its case: Node would keep only one Authorization. */
function headerValues(req: IncomingMessage, name: string): string[] | undefined {
  const values: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === name) values.push(req.rawHeaders[i + 1]!);
  return values.length > 0 ? values : undefined;
}

/**
 * The URL of a request target. An origin-form target is a path even when it starts with "//"
 * (RFC 9112 section 3.2.1: resolved against a base, "//x" would name host x, and "//" no URL at
 * all); an absolute-form target is taken whole. Null for anything else ("*", authority form).
 */
export function requestUrl(target: string): URL | null {
  try {
    return new URL(target.startsWith('/') ? `http://localhost${target}` : target);
  } catch {
    return null;
  }
}

/**
 * The Origin header line of a request Node could not parse, read from the bytes it got (a best
 * effort: undefined when that line is not among them or is itself unreadable).
 */
export function originInRawRequest(raw: Buffer | undefined): string | undefined {
  const match = raw?.toString('latin1').match(/\r\norigin:[ \t]*([\x21-\x7e]+)[ \t]*\r\n/i);
  return match?.[1];
}

/** An error answer written straight to the socket, for requests that never become a request/response pair. */
function endWithError(socket: Duplex, status: number, code: ErrorCode, message: string, cors: Record<string, string>, head = false): void {
  const requestId = randomUUID();
  const body = JSON.stringify({ error: { code, message, request_id: requestId } });
  const corsLines = Object.entries(cors)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n${REQUEST_ID_HEADER}: ${requestId}\r\n${corsLines}` +
      // A response to HEAD has the headers of the answer but never its body (RFC 9110 section 9.3.2).
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
  );
}

/**
 * What Node's HTTP parser refuses before any route runs (a control character, a space or a
 * non-ASCII byte in the request line, a bad header, a method it does not know, headers over its
 * 16 KiB limit, broken framing) gets the service's JSON error body too. Node's own answer is a
 * bare "400 Bad Request" with no body; API Gateway's is a JSON gateway response.
 */
function answerUnparsableRequest(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex, corsOrigins: CorsOrigins): void {
  const pending = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  // A reset connection, or a response already on its way (a pipelined request): nothing can be written.
  if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
    socket.destroy();
    return;
  }
  const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  const cors = corsResponseHeaders(corsOrigins, originInRawRequest(error.rawPacket));
  if (error.code === 'HPE_HEADER_OVERFLOW') endWithError(socket, 431, 'INVALID_PARAMETER', 'Request headers over 16 KiB', cors, head);
  else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ERR_HTTP_HEADERS_TIMEOUT') {
    endWithError(socket, 408, 'INVALID_PARAMETER', 'The request did not arrive in time', cors, head);
  } else endWithError(socket, 400, 'INVALID_PARAMETER', 'Malformed HTTP request', cors, head);
}

export interface ApiServerOptions {
  /**
   * The origins browser apps may call from (lambdas/http/cors.ts): `['*']` (the default, as a
   * stage's default) or exact origins. Every answer carries the CORS headers for the request's
   * Origin, and OPTIONS on a route is its preflight, as API Gateway answers them.
   */
  corsOrigins?: CorsOrigins;
  /**
   * Called once a response is sent, with the request log line the Lambdas write in AWS (its id,
   * the route, status and latency): the path without its query string, never a header or a body.
   */
  logRequest?: (line: RequestLogLine) => void;
  /** Connections at once and the header, request and keep-alive timeouts (DEFAULT_SERVER_LIMITS otherwise). */
  limits?: Partial<ServerLimits>;
  /** Apps served beside the API on its port, each under a path of its own (the local OpenID provider at /oidc). */
  mounts?: readonly LocalMount[];
}

/** An app under `prefix` (no trailing slash) that answers its requests itself, whole URL and all. */
export interface LocalMount {
  prefix: string;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export interface RequestLogLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  latencyMs: number;
}

/** The request's Origin header (Node keeps the first of repeated ones). */
function originOf(req: IncomingMessage): string | undefined {
  return typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
}

export function createApiServer(routes: LocalRoute[], authorize: LocalAuthorizer, options: ApiServerOptions = {}): Server {
  const corsOrigins = options.corsOrigins ?? ANY_ORIGIN;
  const compiled = routes.map(compile);
  const limits = limitsWith(options.limits);
  const server = createServer(serverOptionsFor(limits), async (req, res) => {
    // One id a request, as API Gateway gives one: in the response header, any error body, and the event the handlers log.
    const requestId = randomUUID();
    const startedAt = performance.now();
    if (options.logRequest) {
      const log = options.logRequest;
      res.on('finish', () =>
        log({
          requestId,
          method: req.method ?? '',
          path: (req.url ?? '').split('?')[0]!,
          status: res.statusCode,
          latencyMs: Math.round((performance.now() - startedAt) * 100) / 100,
        }),
      );
    }
    const origin = originOf(req);
    // Every answer, the routes' and the server's own, with its request id and CORS headers.
    const answer = (result: ApiResult) => {
      // Answered before its body arrived (a refused key, a body too large, no route): that body is never read.
      if (bodyStillComing(req)) closeAfterAnswer(req, res);
      const identified = withRequestId(result, requestId);
      writeResult(res, { ...identified, headers: withCorsHeaders(identified.headers, corsOrigins, origin) });
    };
    const fail = (status: number, code: ErrorCode, message: string) => answer(errorAnswer(requestId, status, code, message));
    try {
      const url = requestUrl(req.url ?? '/');
      if (!url) return fail(404, 'NOT_FOUND', `Unknown path; the API lives under ${BASE_PATH}`);
      const mount = options.mounts?.find((m) => url.pathname === m.prefix || url.pathname.startsWith(`${m.prefix}/`));
      if (mount) return await mount.handle(req, res);
      if (!url.pathname.startsWith(`${BASE_PATH}/`)) return fail(404, 'NOT_FOUND', `Unknown path; the API lives under ${BASE_PATH}`);
      const resourcePath = url.pathname.slice(BASE_PATH.length);
      const matching = compiled.map((route) => ({ route, match: resourcePath.match(route.pattern) })).filter((m) => m.match);
      if (req.method === 'OPTIONS' && matching.length > 0) {
        // A CORS preflight, answered before any authorizer as API Gateway's mock OPTIONS methods are.
        req.resume();
        const headers = preflightHeaders(
          corsOrigins,
          origin,
          matching.map((m) => m.route.method),
        );
        return writeResult(res, withRequestId({ statusCode: 204, headers, body: '' }, requestId));
      }
      const hit = matching.find((m) => m.route.method === req.method);
      if (!hit && matching.length > 0) {
        // A known path asked with a method it does not serve; API Gateway answers the same (lib/constructs/api.ts).
        const allowed = allowedMethods(matching.map((m) => m.route.method)).join(', ');
        return answer(errorAnswer(requestId, 405, 'METHOD_NOT_ALLOWED', `${req.method} is not served here; this path serves ${allowed}`, { Allow: allowed }));
      }
      if (!hit) return fail(404, 'NOT_FOUND', `No route for ${req.method} ${url.pathname}`);
      const tooLarge = () => fail(413, 'INVALID_PARAMETER', 'Request body over 1 MiB');
      // A declared size over the limit is refused before anything else, the key included: none of it is read.
      if ((declaredLength(req) ?? 0) > MAX_BODY_BYTES) return tooLarge();
      // Built before the body is read: a malformed path is a 400 whatever the key.
      const event = toEvent(req, url, hit.route, hit.match!, null, requestId);
      if (hit.route.authenticated) {
        // The key is checked before the body is read: a request without a valid one costs no body.
        let principal: Principal;
        try {
          principal = await authorize(headerValues(req, 'authorization'));
        } catch (error) {
          // API Gateway answers a refused authorizer itself, with its UNAUTHORIZED gateway response.
          if (error instanceof ServiceError) return fail(error.status, error.code, error.message);
          throw error;
        }
        // What the AWS authorizer passes on as context (lambdas/http/request-authorizer.ts).
        event.requestContext.authorizer = { principalId: principal.keyId, keyId: principal.keyId, tier: principal.tier };
      }
      const body = await readBody(req);
      if (body === TOO_LARGE) return tooLarge();
      event.body = body;
      answer(await hit.route.handler(event));
    } catch (error) {
      // Gone mid-body: no one is left to answer.
      if (error instanceof ClientGone) return void res.destroy();
      // Malformed percent-encoding is the client's fault; anything else is ours.
      if (error instanceof URIError) return fail(400, 'INVALID_PARAMETER', 'Malformed percent-encoding in the path');
      fail(500, 'INTERNAL', 'Internal error');
    }
  });
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => answerUnparsableRequest(error, socket, corsOrigins));
  // Node hands CONNECT to this event and, without a listener, drops the connection unanswered: no route has that method.
  server.on('connect', (req: IncomingMessage, socket: Duplex) =>
    endWithError(socket, 404, 'NOT_FOUND', `No route for ${req.method} ${req.url}`, corsResponseHeaders(corsOrigins, originOf(req))),
  );
  applyLimits(server, limits);
  return server;
}

export async function listen(server: Server, port: number, host = '127.0.0.1'): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: actual } = server.address() as AddressInfo;
  return `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${actual}${BASE_PATH}`;
}

/**
 * On SIGINT or SIGTERM: stop taking requests, close what the server runs on (`close`), and exit.
 * A second signal while that runs (Ctrl-C again) exits at once.
 */
export function closeOnSignals(server: Server, close: () => Promise<void>): void {
  let stopping = false;
  const shutdown = async () => {
    if (stopping) process.exit(1);
    stopping = true;
    server.close();
    await close();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
