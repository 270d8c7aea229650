/**
 * Cross-origin access for browser apps (CORS): which origins may read the API's answers, and the
 * headers that say so. Pure decisions, no I/O: the Lambda wrapper (lambda-handler.ts), the local
 * server (local/http-server.ts) and the CDK API (lib/constructs/api.ts) all take them from here.
 *
 * The allowed origins are either `['*']` (any site: the API authenticates with a key in the
 * Authorization header, never with cookies, so no site can act with a visitor's credentials) or
 * a list of exact origins (`https://app.example.org`), for an operator who wants to keep other
 * sites' pages from calling the API with a key they were given.
 */

import { type HeaderMap, headerOf } from './headers';

/** The environment variable that carries the allowed origins to the API functions (a JSON array). */
export const CORS_ORIGINS_ENV = 'CORS_ALLOWED_ORIGINS';

/** `['*']`, or exact origins. */
export type CorsOrigins = readonly string[];

export const ANY_ORIGIN: CorsOrigins = ['*'];

/** Request headers a browser app may send: the key (or the dashboard's ID token), a JSON body's type, content negotiation, and the account API's Idempotency-Key. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Accept', 'Accept-Language', 'X-Requested-With', 'Idempotency-Key'] as const;

/**
 * Response headers a browser app may read beyond the CORS-safelisted ones: the request id to quote,
 * the quota headers, Retry-After on a 429, and a CSV export's file name and how to continue it.
 */
export const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'Retry-After',
  'Content-Disposition',
  'X-Total-Count',
  'X-Export-Rows',
  'X-Export-Complete',
  'X-Export-Next-Offset',
  'X-Export-Next-Cursor',
  'X-Export-Degraded',
] as const;

/** How long a browser may reuse a preflight answer (Chromium caps it at 2 hours, Firefox at 24). */
export const CORS_MAX_AGE_SECONDS = 7200;

// scheme://host[:port], nothing after: what a browser sends as Origin.
const ORIGIN_PATTERN = /^https?:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(:\d{1,5})?$/;

/**
 * Checks a configured list: `['*']` alone, or one or more exact origins (no path, no trailing
 * slash, no wildcard inside). Throws an Error that names `where` and the bad entry.
 */
export function checkCorsOrigins(origins: readonly unknown[], where: string): CorsOrigins {
  if (origins.length === 0) throw new Error(`${where}: list at least one origin, or "*" for any`);
  if (origins.includes('*')) {
    if (origins.length > 1) throw new Error(`${where}: "*" allows every origin and cannot be combined with others`);
    return ANY_ORIGIN;
  }
  for (const origin of origins) {
    if (typeof origin !== 'string' || !ORIGIN_PATTERN.test(origin)) {
      throw new Error(
        `${where}: ${JSON.stringify(origin)} is not an origin; write scheme://host[:port], e.g. https://app.example.org, without a path or trailing slash`,
      );
    }
  }
  return [...new Set(origins as string[])];
}

/**
 * The allowed origins from their textual form: a JSON array (`["https://a.example"]`, as the CDK
 * sets the environment variable) or a comma-separated list (`https://a.example,https://b.example`,
 * as a person types `--cors-origins`). Unset or empty: any origin.
 */
export function parseCorsOrigins(value: string | undefined, where: string): CorsOrigins {
  const text = value?.trim() ?? '';
  if (text === '') return ANY_ORIGIN;
  let list: unknown;
  if (text.startsWith('[')) {
    try {
      list = JSON.parse(text);
    } catch {
      throw new Error(`${where}: not a JSON array of origins: ${text}`);
    }
    if (!Array.isArray(list)) throw new Error(`${where}: not a JSON array of origins: ${text}`);
  } else {
    list = text
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part.length > 0);
  }
  return checkCorsOrigins(list as unknown[], where);
}

/** `Vary: Origin` when the answer depends on the Origin (a listed configuration). */
function varyOf(origins: CorsOrigins): Record<string, string> {
  return allowsAnyOrigin(origins) ? {} : { Vary: 'Origin' };
}

/** Whether `origins` is the wildcard. */
export function allowsAnyOrigin(origins: CorsOrigins): boolean {
  return origins.length === 1 && origins[0] === '*';
}

/**
 * The Access-Control-Allow-Origin value for a request from `requestOrigin` (its Origin header,
 * undefined when it sent none): `*` when any origin is allowed, the origin itself when it is
 * listed, or null (no CORS headers at all) when it is not.
 */
export function allowedOriginFor(origins: CorsOrigins, requestOrigin: string | undefined): string | null {
  if (allowsAnyOrigin(origins)) return '*';
  return requestOrigin !== undefined && origins.includes(requestOrigin) ? requestOrigin : null;
}

/**
 * The CORS headers of an actual answer (any status): the allowed origin and the readable headers,
 * and `Vary: Origin` whenever the answer depends on the Origin (a listed configuration), so a
 * cache never hands one origin's answer to another. Empty for an origin that is not allowed.
 */
export function corsResponseHeaders(origins: CorsOrigins, requestOrigin: string | undefined): Record<string, string> {
  const vary = varyOf(origins);
  const allowed = allowedOriginFor(origins, requestOrigin);
  if (allowed === null) return vary;
  return { 'Access-Control-Allow-Origin': allowed, 'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', '), ...vary };
}

/**
 * The headers of a preflight answer (204 to OPTIONS) for a resource served with `methods`: the
 * allowed origin, those methods and OPTIONS, the request headers a client may send, and how long
 * the browser may keep the answer. Only `Vary` for an origin that is not allowed: the browser then
 * refuses the actual request.
 */
export function preflightHeaders(origins: CorsOrigins, requestOrigin: string | undefined, methods: readonly string[]): Record<string, string> {
  const vary = varyOf(origins);
  const allowed = allowedOriginFor(origins, requestOrigin);
  if (allowed === null) return vary;
  return {
    'Access-Control-Allow-Origin': allowed,
    'Access-Control-Allow-Methods': allowedMethods(methods).join(', '),
    'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
    'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
    ...vary,
  };
}

/** A resource's methods for Access-Control-Allow-Methods: each once, in order, then OPTIONS. */
export function allowedMethods(methods: readonly string[]): string[] {
  return [...new Set([...methods.map((m) => m.toUpperCase()), 'OPTIONS'])];
}

/** The Origin header of a request, whatever its case (undefined when absent). */
export function originHeaderOf(headers: HeaderMap | null | undefined): string | undefined {
  return headerOf(headers, 'origin');
}

/** `headers` with the CORS headers of an answer to `requestOrigin` merged in (Vary joined, not replaced). */
export function withCorsHeaders<T extends Record<string, string | number | boolean>>(
  headers: T | undefined,
  origins: CorsOrigins,
  requestOrigin: string | undefined,
): Record<string, string | number | boolean> {
  const cors = corsResponseHeaders(origins, requestOrigin);
  const merged: Record<string, string | number | boolean> = { ...headers };
  for (const [name, value] of Object.entries(cors)) {
    const existing = Object.keys(merged).find((key) => key.toLowerCase() === name.toLowerCase());
    if (existing && name === 'Vary') {
      const values = String(merged[existing])
        .split(',')
        .map((v) => v.trim());
      merged[existing] = values.some((v) => v.toLowerCase() === 'origin' || v === '*') ? merged[existing]! : `${merged[existing]}, Origin`;
    } else {
      if (existing) delete merged[existing];
      merged[name] = value;
    }
  }
  return merged;
}
