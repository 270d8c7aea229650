import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIERS, type TierName } from '../../lambdas/core/auth/tiers';
import { CONTRACT_CATEGORY_NAMES, GRANT_CATEGORY_NAMES } from '../../lambdas/core/categories';
import { ERROR_CODES } from '../../lambdas/core/errors';
import { US_STATE_CODES } from '../../lambdas/core/geo';
import { LIST_PARAMS } from '../../lambdas/core/query/list-query';
import type { ParamKind } from '../../lambdas/core/query/params';
import { APPLICANT_TYPES, RESOURCE_KINDS, type ResourceKind } from '../../lambdas/core/records';
import { createKey, revokeKey, rotateKey } from '../../lambdas/core/use-cases/manage-keys';
import { BASE_PATH } from '../../local/http-server';
import { seededRecords, startTestApi, type TestApi } from '../support/api-server';
import { type RawHttpResponse, rawHttp } from '../support/raw-http';
import { type FuzzCatalogue, listAnswerProblem } from './list-answer-oracle';

/**
 * Property-based fuzzing of every endpoint over real HTTP, on the embedded stack. Requests mix
 * valid-looking and hostile query strings, JSON bodies, paths, methods and Authorization headers;
 * what node:http refuses to send goes out byte for byte on a raw socket. For every response:
 *
 * - never a 5xx (and never a dropped connection);
 * - every 4xx carries the JSON error body {"error": {"code", "message", ...}} (DESIGN.md section 3);
 * - a request that authenticated (a valid key, on a route behind the authorizer) carries
 *   X-RateLimit-Limit and X-RateLimit-Remaining, 4xx answers included; a 429 adds Retry-After;
 * - a request that did not authenticate never gets a 2xx from a protected route;
 * - a 200 from the grant or contract list holds the records, total and order the test oracle
 *   states for its filters (list-answer-oracle.ts): a status class alone let a wrong answer pass;
 * - the catalogue, the search index and the keys are the same afterwards.
 *
 * About 16,700 requests per run (the last test prints the count per property and status, and
 * fails under 10,000). fast-check picks the seed and prints it, with the path and the shrunk
 * counterexample, when a property fails; FUZZ_SEED and FUZZ_PATH replay it (see REPLAY).
 * Run: npx vitest run test/fuzz/endpoints.fuzz.test.ts
 */

const SEED_CATALOGUE = { funders: 20, grants: 200, contracts: 80, awardedGrants: 20, awardedContracts: 10 } as const;
/** The basic tier's daily quota during the run: low enough that its key meets 429s. */
const BASIC_QUOTA = 40;
const MAX_BODY_BYTES = 1024 * 1024;
const BATCH = 8;
const PROPERTY_TIMEOUT_MS = 180_000;
const MIN_REQUESTS = 10_000;
/** A run judges enough list answers for the oracle's check to mean something. */
const MIN_JUDGED_ANSWERS = 300;

/** Replays a reported failure: FUZZ_SEED=<seed> FUZZ_PATH=<path> npx vitest run test/fuzz/endpoints.fuzz.test.ts -t '<property>'. */
const REPLAY: Partial<fc.Parameters<unknown>> = process.env.FUZZ_SEED
  ? { seed: Number(process.env.FUZZ_SEED), ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}), endOnFailure: true }
  : {};

const LIST_PATHS: Record<ResourceKind, string> = { grant: '/grants-api', contract: '/contracts-api', funder: '/funders-api' };

let api: TestApi;
let agent: http.Agent;
let requestCount = 0;
const countsByProperty: Record<string, number> = {};
const statusCounts: Record<string, Record<number, number>> = {};
let startedAt = 0;
const realIds: Record<ResourceKind, string[]> = { grant: [], contract: [], funder: [] };
let catalogue: FuzzCatalogue;
/** List answers the oracle judged (and found right). */
let answersJudged = 0;
/** Authorization cases whose keys exist only at run time; filled in beforeAll. */
const KEYS: Record<'developer' | 'pro' | 'basic' | 'free' | 'revoked' | 'rotatedOut' | 'unknown', string> = {
  developer: '',
  pro: '',
  basic: '',
  free: '',
  revoked: '',
  rotatedOut: '',
  unknown: '',
};
let before: Fingerprint;

// ---------------------------------------------------------------------------------------------
// Requests and how they are sent
// ---------------------------------------------------------------------------------------------

interface AuthCase {
  label: string;
  /** Header lines it adds. */
  lines: [string, string][];
}

interface FuzzRequest {
  method: string;
  target: string;
  headers: [string, string][];
  body?: string | Buffer;
  auth: AuthCase;
  /** Send it on a raw socket even if node:http could. */
  forceRaw?: boolean;
  /** Also sent as Transfer-Encoding: chunked (node:http only). */
  chunked?: boolean;
  /** An extra check for this request (e.g. a known id must come back). */
  expect?: (res: RawHttpResponse, tier: TierName | null) => void;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Header values HTTP/1.1 allows: tab, visible ASCII, obs-text (what node:http also accepts). */
const FIELD_VALUE = /^[\t\u0020-\u007e\u0080-\u00ff]*$/;
/** Request targets node:http writes as they are (it refuses anything outside 0x21-0xff). */
const SENDABLE_TARGET = /^[\u0021-\u00ff]+$/;
const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'upgrade', 'expect', 'te', 'trailer', 'keep-alive']);

function sendableByNodeHttp(req: FuzzRequest): boolean {
  if (req.forceRaw || !TOKEN.test(req.method) || req.method.toUpperCase() === 'CONNECT') return false;
  if (!SENDABLE_TARGET.test(req.target) || !req.target.startsWith('/')) return false;
  const all = [...req.auth.lines, ...req.headers];
  return all.every(([name, value]) => TOKEN.test(name) && FIELD_VALUE.test(value) && !HOP_BY_HOP.has(name.toLowerCase()));
}

/**
 * Whether the request is well-formed HTTP/1.1 (so the server's parser hands it to the routes),
 * malformed (the parser must refuse it, with the JSON error body), or either (framing headers of
 * our own, non-ASCII targets, methods Node's parser does not know): then only the general
 * invariants apply.
 */
function httpShape(req: FuzzRequest): 'good' | 'bad' | 'unknown' {
  const all = [...req.auth.lines, ...req.headers];
  if (!TOKEN.test(req.method)) return 'bad';
  // A line break ends the request line early: what follows is read as headers (Node's parser takes
  // "GET /path" alone as a request line), so the request is another one, well-formed or not.
  if (/[\r\n]/.test(req.target)) return 'unknown';
  // Node's parser tolerates spaces between the target and the version; anywhere else a space or a control character is malformed.
  const target = req.target.replace(/ +$/, '');
  if (/[\u0000-\u0020\u007f]/.test(target) || target === '') return 'bad';
  if (target !== req.target) return 'unknown';
  // A colon in a name only moves the boundary between name and value: another well-formed header.
  if (all.some(([name]) => !TOKEN.test(name) && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:/.test(name))) return 'bad';
  if (all.some(([, value]) => /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(value))) return 'bad';
  // Node's 16 KiB limit counts the request line too.
  const headerBytes = all.reduce(
    (n, [name, value]) => n + Buffer.byteLength(name) + Buffer.byteLength(value) + 4,
    Buffer.byteLength(req.target) + req.method.length + 12,
  );
  if (headerBytes > 17 * 1024) return 'bad';
  if (headerBytes > 12 * 1024) return 'unknown';
  if (!http.METHODS.includes(req.method) || req.method === 'CONNECT') return 'unknown';
  if (/[^\u0021-\u007e]/.test(req.target) || !(req.target.startsWith('/') || /^https?:\/\//.test(req.target))) return 'unknown';
  if (
    all.some(
      ([name, value]) =>
        /[\r\n\u007f]/.test(value) || name.includes(':') || /^(host|content-length|transfer-encoding|connection|upgrade|expect|te|trailer)$/i.test(name),
    )
  )
    return 'unknown';
  return 'good';
}

/**
 * The tier the service must let the request through with, by DESIGN.md's rule (one Authorization
 * header, Bearer in any case, one space, a key; whitespace around the value is not part of it),
 * or null. The value is read as the server reads it: node:http writes Latin-1, the raw socket UTF-8,
 * and the server takes the bytes as Latin-1.
 */
function effectiveTier(req: FuzzRequest): TierName | null {
  const values = [...req.auth.lines, ...req.headers].filter(([name]) => name.toLowerCase() === 'authorization').map(([, value]) => value);
  if (values.length !== 1) return null;
  const value = (sendableByNodeHttp(req) ? values[0]! : Buffer.from(values[0]!, 'utf8').toString('latin1')).trim();
  const match = /^(\S+) (\S+)$/.exec(value);
  if (!match || match[1]!.toLowerCase() !== 'bearer') return null;
  const tiers = ['developer', 'pro', 'basic', 'free'] as const;
  return tiers.find((tier) => KEYS[tier] === match[2]) ?? null;
}

function nodeHttpRequest(baseUrl: URL, req: FuzzRequest, attempt = 0): Promise<RawHttpResponse> {
  const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
  const raw: string[] = ['Host', baseUrl.host];
  for (const [name, value] of [...req.auth.lines, ...req.headers]) raw.push(name, value);
  if (body !== undefined && !req.chunked) raw.push('Content-Length', String(body.length));
  return new Promise((resolve, reject) => {
    const request = http.request({ host: baseUrl.hostname, port: Number(baseUrl.port), method: req.method, path: req.target, headers: raw, agent });
    request.setTimeout(30_000, () => request.destroy(new Error('no response within 30 s')));
    request.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const headers: Record<string, string[]> = {};
        for (let i = 0; i < res.rawHeaders.length; i += 2) (headers[res.rawHeaders[i]!.toLowerCase()] ??= []).push(res.rawHeaders[i + 1]!);
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      error.message += ` (${request.reusedSocket ? 'reused' : 'new'} connection)`;
      // A kept-alive socket the server closed just as it was reused: the request never arrived.
      if (request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE') && attempt === 0) {
        nodeHttpRequest(baseUrl, req, 1).then(resolve, reject);
      } else reject(error);
    });
    if (body !== undefined && body.length > 0) request.write(body);
    request.end();
  });
}

async function send(req: FuzzRequest, property: string): Promise<RawHttpResponse> {
  requestCount++;
  countsByProperty[property] = (countsByProperty[property] ?? 0) + 1;
  const baseUrl = new URL(api.baseUrl);
  let res: RawHttpResponse;
  try {
    res = sendableByNodeHttp(req)
      ? await nodeHttpRequest(baseUrl, req)
      : await rawHttp(`${baseUrl.protocol}//${baseUrl.host}`, {
          method: req.method,
          target: req.target,
          headers: [...req.auth.lines, ...req.headers],
          body: req.body,
          timeoutMs: 30_000,
        });
  } catch (error) {
    throw new Error(`no response: ${(error as Error).message}\n${describeRequest(req)}`);
  }
  const byStatus = (statusCounts[property] ??= {});
  byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
  return res;
}

function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

function describeRequest(req: FuzzRequest): string {
  const body = req.body === undefined ? '' : Buffer.isBuffer(req.body) ? `<${req.body.length} bytes>` : clip(JSON.stringify(req.body));
  const headers = [...req.auth.lines, ...req.headers].map(([n, v]) => `${JSON.stringify(n)}: ${clip(JSON.stringify(v), 120)}`).join(', ');
  return `${JSON.stringify(req.method)} ${clip(JSON.stringify(req.target))} auth=${req.auth.label} headers=[${headers}] body=${body}`;
}

// ---------------------------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------------------------

interface RouteInfo {
  authenticated: boolean;
  /** The path parameter could not be percent-decoded: the gateway refuses it before the authorizer. */
  undecodable: boolean;
}

const ROUTES: { method: string; pattern: RegExp; authenticated: boolean }[] = [
  { method: 'GET', pattern: /^\/(grants|contracts|funders)-api\/?$/, authenticated: true },
  { method: 'GET', pattern: /^\/(grants|contracts|funders)-api\/([^/]+)\/?$/, authenticated: true },
  { method: 'POST', pattern: /^\/semantic-search\/?$/, authenticated: true },
  { method: 'POST', pattern: /^\/match-grants-api\/?$/, authenticated: true },
  { method: 'GET', pattern: /^\/openapi\.json\/?$/, authenticated: false },
];

/** The route API Gateway would pick for the request (the resources of interface section 4), or null. */
/** Whether some route serves the request's path, with whatever method. */
function pathHasRoutes(req: FuzzRequest): boolean {
  return ROUTES.some((route) => routeOf({ ...req, method: route.method }) !== null);
}

function routeOf(req: FuzzRequest): RouteInfo | null {
  // An origin-form target is a path, "//" and all (RFC 9112 section 3.2.1); an absolute-form one a whole URL.
  let pathname: string;
  try {
    pathname = new URL(req.target.startsWith('/') ? `http://localhost${req.target}` : req.target).pathname;
  } catch {
    return null;
  }
  if (!pathname.startsWith(`${BASE_PATH}/`)) return null;
  const rest = pathname.slice(BASE_PATH.length);
  for (const route of ROUTES) {
    const match = rest.match(route.pattern);
    if (!match || route.method !== req.method) continue;
    let undecodable = false;
    if (match[2] !== undefined) {
      try {
        decodeURIComponent(match[2]);
      } catch {
        undecodable = true;
      }
    }
    return { authenticated: route.authenticated, undecodable };
  }
  return null;
}

/** Whether some route (of any method) serves the request's path: an OPTIONS there is its CORS preflight. */
function hasRouteAtPath(req: FuzzRequest): boolean {
  return ROUTES.some((route) => routeOf({ ...req, method: route.method }) !== null);
}

function bodyBytes(req: FuzzRequest): number {
  return req.body === undefined ? 0 : Buffer.isBuffer(req.body) ? req.body.length : Buffer.byteLength(req.body, 'utf8');
}

const INTEGER = /^-?\d+$/;

/** Every invariant of the file header, for one request and its response. */
function checkResponse(req: FuzzRequest, res: RawHttpResponse): void {
  const where = () => `\n${describeRequest(req)}\n→ ${res.status} ${clip(JSON.stringify(res.headers), 400)} ${clip(res.body, 400)}`;
  const fail = (message: string) => {
    throw new Error(`${message}${where()}`);
  };
  if (res.status >= 500) fail(`5xx answer`);
  if (res.status < 200) fail(`no final status`);
  // CORS (any origin, the default): on every answer, the server's own parser errors and 404s included.
  if (res.headers['access-control-allow-origin']?.[0] !== '*') fail('answer without Access-Control-Allow-Origin: *');
  if (req.method === 'OPTIONS' && httpShape(req) === 'good' && hasRouteAtPath(req)) {
    // A preflight, answered before any key check as API Gateway's mock OPTIONS methods are (lambdas/http/cors.ts).
    if (res.status !== 204 || res.body !== '') fail('a preflight was not 204 with no body');
    if (!/^(GET|POST), OPTIONS$/.test(res.headers['access-control-allow-methods']?.[0] ?? '')) fail('a preflight without Access-Control-Allow-Methods');
    return;
  }
  const head = req.method === 'HEAD';
  // A CSV export (format=csv, or an Accept header preferring it) is the one 2xx that is not JSON.
  const csvExport =
    res.status === 200 &&
    /^text\/csv; charset=utf-8$/.test(res.headers['content-type']?.[0] ?? '') &&
    /^\/functions\/v1\/(grants|contracts|funders)-api\/?(\?|$)/.test(req.target);
  if (csvExport && !res.body.startsWith('id,')) fail('a CSV export without its header row');
  let json: any;
  if (!head && !csvExport) {
    try {
      json = JSON.parse(res.body);
    } catch {
      fail('body is not JSON');
    }
    if (!/^application\/json/.test(res.headers['content-type']?.[0] ?? '')) fail('Content-Type is not application/json');
  }
  if (res.status >= 400 && !head) {
    const error = json?.error;
    if (typeof error !== 'object' || error === null || typeof error.code !== 'string' || typeof error.message !== 'string')
      fail('4xx without the {"error": {code, message}} body');
    if (!(ERROR_CODES as readonly string[]).includes(error.code)) fail(`unknown error code ${error.code}`);
    if (
      error.details !== undefined &&
      !(Array.isArray(error.details) && error.details.every((d: any) => typeof d?.field === 'string' && typeof d?.issue === 'string'))
    ) {
      fail('error.details is not [{field, issue}]');
    }
  }

  const tier = effectiveTier(req);
  const shape = httpShape(req);
  if (shape === 'bad' && res.status < 400) fail('malformed HTTP accepted');
  const route = shape === 'bad' ? null : routeOf(req);
  const pathServed = shape === 'good' && route === null && pathHasRoutes(req);
  if (pathServed && res.status !== 405) fail('a known path with a method it does not serve, yet not 405');
  if (shape === 'good' && route === null && !pathServed && res.status !== 404) fail('no route, yet not 404');
  // Only a well-formed request is known to reach the authorizer; of the others, those the routes answered (2xx).
  const reachedAuthorizer = route?.authenticated && !route.undecodable && bodyBytes(req) <= MAX_BODY_BYTES && (shape === 'good' || res.status < 300);
  if (route?.authenticated && tier === null && res.status < 400) fail('a protected route answered without a valid key');
  if (reachedAuthorizer && tier === null && res.status !== 401) fail('an invalid key was not answered with 401');
  if (reachedAuthorizer && tier === null && !head && json?.error?.code !== 'UNAUTHORIZED') fail('401 without code UNAUTHORIZED');
  if (shape === 'good' && bodyBytes(req) > MAX_BODY_BYTES && route !== null && res.status !== 413) fail('an oversized body was not answered with 413');

  if (reachedAuthorizer && tier !== null) {
    const limit = res.headers['x-ratelimit-limit'];
    const remaining = res.headers['x-ratelimit-remaining'];
    if (limit?.length !== 1 || remaining?.length !== 1 || !INTEGER.test(limit[0]!) || !INTEGER.test(remaining[0]!))
      fail('authenticated answer without one integer X-RateLimit-Limit and X-RateLimit-Remaining');
    const quota = api.stack.services.tiers?.[tier].dailyQuota ?? TIERS[tier].dailyQuota;
    const expectedLimit = quota === null ? -1 : quota;
    if (Number(limit![0]) !== expectedLimit) fail(`X-RateLimit-Limit is not ${expectedLimit}`);
    if (quota === null ? Number(remaining![0]) !== -1 : Number(remaining![0]) < 0 || Number(remaining![0]) > quota) fail('X-RateLimit-Remaining out of range');
    if (res.status === 429) {
      if (!head && json?.error?.code !== 'RATE_LIMITED') fail('429 without code RATE_LIMITED');
      if (!INTEGER.test(res.headers['retry-after']?.[0] ?? '')) fail('429 without Retry-After');
    }
    if (tier === 'free' && res.status !== 403) fail('the free tier was let through');
    if (res.status === 401) fail('a valid key was refused');
  }
  req.expect?.(res, tier);
}

// ---------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------

const FTS5_SYNTAX = [
  'NEAR(',
  'NEAR(a b, 2)',
  'NEAR("a" "b")',
  '"',
  '""',
  '"unbalanced',
  'a"b',
  '*',
  'a*',
  '*a',
  '^',
  '^title',
  '^a*',
  'AND',
  'OR',
  'NOT',
  'a AND b',
  'a OR NOT b',
  'NOT NOT',
  'AND OR NOT',
  'title:x',
  'description:"x y"',
  'name:x',
  '{a b}',
  '{title description}: x',
  '- title:x',
  '(',
  ')',
  '()',
  '((a)',
  'a) OR (b',
  '+',
  '-',
  ':',
  'x:',
  ':x',
  'a-b',
  '"a" + "b"',
  'rowid',
  'rank',
  'bm25(',
  'MATCH',
  'grants_fts',
  'health*',
  '"health care"*',
];
const LUCENE_SYNTAX = [
  'field:value',
  'title:grant~2',
  'grant~',
  'grant~0.5',
  'a\\b',
  '\\',
  '\\\\',
  '/regex/',
  '/.*/',
  '/[a-z]+/',
  '[a TO b]',
  '{a TO z}',
  'amount_max:[0 TO *]',
  '?',
  'te?t',
  '&&',
  '||',
  '!',
  'a^2',
  '_exists_:title',
  '*:*',
  '\\"',
  'title:(a OR b)',
  '+a -b',
  '"a b"~3',
  '<',
  '>',
  '=',
  'a AND (b OR',
  'script:doc',
  '_id:1',
  '#',
  '@',
  '$',
];
const INJECTIONS = [
  "' OR '1'='1",
  "'; DROP TABLE grants; --",
  '1; SELECT * FROM sqlite_master',
  '" OR ""="',
  "') OR 1=1--",
  "' UNION SELECT sql FROM sqlite_master --",
  "x'); DELETE FROM records; --",
  '{"$gt":""}',
  '{"$ne":null}',
  '$where',
  '{"$regex":".*"}',
  '{"match_all":{}}',
  '{"script":{"source":"1"}}',
  '../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e/%2e%2e/',
  '..\\..\\windows\\win.ini',
  '/etc/passwd\u0000.json',
  'file:///etc/passwd',
  '\r\nSet-Cookie: x=1',
  '%0d%0aX-Injected: 1',
  '\r\n\r\nHTTP/1.1 200 OK',
  '<script>alert(1)</script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as text on purpose
  '${jndi:ldap://x/a}',
  '{{7*7}}',
  '#{7*7}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
];
const NUMBERISH = [
  '1e308',
  '1e309',
  '-1e308',
  '-1e309',
  '9999999999999999999999',
  '-9999999999999999999999',
  '-0',
  '0',
  '-1',
  '1',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '0b1',
  '0o7',
  '1_000',
  '1e2',
  '.5',
  '5.',
  '+5',
  ' 5 ',
  '00005',
  '4.0',
  '2.5',
  '100',
  '101',
  '10000',
  '10001',
  '9007199254740993',
  '1e13',
  '1e14',
  '5e-324',
  '1e-400',
  '1,5',
  '1.5.5',
  '٣',
  '５',
  '1 2',
];
const CONTROLS = [
  '\u0000',
  '\u0001',
  '\u001f',
  '\u007f',
  '\t',
  '\r',
  '\n',
  '\r\n',
  '\u0085',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\u200b',
  '\ufffd',
  '\uffff',
  '\u0000'.repeat(10),
];
const UNICODE = ['日本語', '🙂', '👩‍👩‍👧‍👦', 'e\u0301', 'ＡＢＣ', 'ß', 'İ', 'ﬁ', 'Ω', '\u202e', 'ﷺ', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', 'Zalgơ̸̡͓̟', 'عربى', 'ש'];
const WORDS = [
  'health',
  'community',
  'education',
  'rural',
  'research',
  'housing',
  'water',
  'energy',
  'arts',
  'youth',
  'veterans',
  'software',
  'construction',
  'climate',
  'grant',
  'the',
  'a',
  'of',
];
const PERCENT_FRAGMENTS = ['%', '%%', '%0', '%zz', '%E0%A4%A', '%ED%A0%80', '%C0%AF', '%FF', '%00', '%2F', '%25', '%u0041', '%%32%35'];

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const fragment = fc.oneof(
  fc.constantFrom(...FTS5_SYNTAX, ...LUCENE_SYNTAX, ...INJECTIONS, ...NUMBERISH, ...CONTROLS, ...UNICODE, ...WORDS),
  loneSurrogate,
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
);
/** Text from hostile to harmless: query syntax, injections, odd numbers, control characters, unicode, long runs. */
const hostileText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fragment, weight: 4 },
  { arbitrary: fc.array(fragment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(' ')), weight: 4 },
  { arbitrary: fc.array(fragment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('')), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }), weight: 2 },
  {
    arbitrary: fc.constantFrom('', ' ', '  \t ', 'a'.repeat(499), 'a'.repeat(500), 'a'.repeat(501), 'x '.repeat(300), 'word '.repeat(1000), '🙂'.repeat(300)),
    weight: 1,
  },
  { arbitrary: fc.double().map(String), weight: 1 },
  { arbitrary: fc.bigInt().map(String), weight: 1 },
);
const searchText = fc.oneof(
  { arbitrary: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }).map((w) => w.join(' ')), weight: 3 },
  { arbitrary: hostileText, weight: 3 },
);

const isoDate = fc
  .date({ min: new Date('1899-01-01T00:00:00Z'), max: new Date('2101-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

/** A valid-looking value for a declared parameter, drawn from its spec (near and past the bounds too). */
function validishValue(kind: ParamKind, name: string): fc.Arbitrary<string> {
  switch (kind.type) {
    case 'integer':
      return fc.oneof(fc.integer({ min: kind.min - 3, max: Math.min(kind.max + 3, 200) }), fc.integer({ min: kind.min, max: kind.max + 10 })).map(String);
    case 'number':
      return fc.oneof(
        fc.integer({ min: 0, max: 2_000_000 }).map(String),
        fc.double({ min: -1, max: 2e13, noNaN: true }).map(String),
        fc.constantFrom('1e13', '10000000000001', '0.01'),
      );
    case 'boolean':
      return fc.mixedCase(fc.constantFrom('true', 'false', '1', '0', 'yes', 'no', 'on'));
    case 'date':
      return fc.oneof(
        isoDate,
        fc.constantFrom('2026-02-29', '2024-02-29', '2026-13-01', '2026-00-10', '2026-1-1', '20260101', '2026-01-01T00:00:00Z', '0000-00-00', '9999-12-31'),
      );
    case 'enum':
      return fc.oneof(
        fc.mixedCase(fc.constantFrom(...kind.values)),
        fc.constantFrom(...kind.values).map((v) => ` ${v} `),
      );
    case 'enumList':
      return fc
        .subarray([...kind.values], { minLength: 1 })
        .chain((values) => fc.constantFrom(values.join(','), values.join(', '), `${values.join(',')},`, values.map((v) => v.toLowerCase()).join(',')));
    case 'stateList':
      return fc.oneof(
        fc.uniqueArray(fc.constantFrom(...US_STATE_CODES), { minLength: 1, maxLength: 5 }).map((codes) => codes.join(',')),
        fc.constantFrom('ca', 'CA,ny', 'XX', 'CA,,NY', 'C', 'CAL', 'US', Array(61).fill('CA').join(',')),
      );
    case 'patternList':
      // Funder ids the catalogue holds, so the filter keeps records as well as none.
      if (name === 'funder_id')
        return fc.oneof(
          fc.subarray(realIds.funder, { minLength: 1, maxLength: 3 }).map((ids) => ids.join(',')),
          fc.constantFrom(kind.example, kind.example.toUpperCase(), `${kind.example},`),
        );
      return fc.oneof(
        fc.array(fc.stringMatching(kind.pattern), { minLength: 1, maxLength: 4 }).map((c) => c.join(',')),
        fc.constantFrom(kind.example, `${kind.example},`, kind.example.toUpperCase(), kind.example.slice(1), '1', '1234567', '54a'),
      );
    case 'text':
      if (name === 'category') return fc.constantFrom(...Object.values(GRANT_CATEGORY_NAMES), ...CONTRACT_CATEGORY_NAMES, 'health', 'HEALTH');
      if (name === 'geography')
        return fc.constantFrom('national', 'state', 'local', 'international', 'Texas', 'rural Kansas', 'Austin, TX', 'nationwide', 'USA', 'Mars');
      return searchText;
  }
}

const ODD_NAMES = [
  '',
  ' ',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'toString',
  'q',
  'page',
  'per_page',
  'api_key',
  'key',
  'fields',
  'sort',
  'filter[status]',
  'limit[]',
  'LIMIT',
  'Limit',
  'search ',
  ' search',
  'search\u0000',
  'sEarch',
  '$where',
  'limit.max',
];

/**
 * Query parameters: a valid-looking set (each declared parameter at most once, values from its
 * spec, near and past its bounds), then up to three hostile ones (any value, repeated names,
 * names that are not parameters).
 */
function queryPairs(kind: ResourceKind): fc.Arbitrary<[string, string][]> {
  const specs = LIST_PARAMS[kind];
  const validish = fc
    .uniqueArray(fc.constantFrom(...specs), { maxLength: 5, selector: (spec) => spec.name })
    .chain((chosen) => fc.tuple(...chosen.map((spec) => fc.tuple(fc.constant(spec.name), validishValue(spec.kind, spec.name)))));
  const hostile = fc.oneof(
    // Search text reaches the FTS5 query and the embedder: most hostile values go there.
    { arbitrary: fc.tuple(fc.constant('search'), hostileText), weight: 4 },
    { arbitrary: fc.tuple(fc.constantFrom(...specs.map((spec) => spec.name)), fc.oneof(hostileText, fc.constantFrom(...NUMBERISH))), weight: 4 },
    { arbitrary: fc.tuple(fc.oneof(fc.constantFrom(...ODD_NAMES), fc.string({ unit: 'binary', maxLength: 10 })), hostileText), weight: 2 },
  );
  const bad = fc.oneof(
    { arbitrary: fc.constant<[string, string][]>([]), weight: 1 },
    { arbitrary: fc.array(hostile, { minLength: 1, maxLength: 3 }), weight: 1 },
  );
  return fc.tuple(validish, bad).map(([valid, odd]) => [...valid, ...odd] as [string, string][]);
}

/** Percent-encodes the UTF-8 bytes of the text (a lone surrogate goes out as U+FFFD, as any client would send it). */
function encodeComponent(text: string, plusForSpace: boolean): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ' && plusForSpace) out += '+';
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A query string from pairs: properly encoded, with + for spaces, or raw (unencoded, with stray % sequences and separators). */
const queryString = (pairs: fc.Arbitrary<[string, string][]>) =>
  fc
    .tuple(
      pairs,
      fc.constantFrom('encoded', 'encoded', 'encoded', 'plus', 'raw'),
      fc.array(fc.constantFrom(...PERCENT_FRAGMENTS, '&', '&&', '=', '==', '?', '#', ';', '+'), { maxLength: 2 }),
    )
    .map(([ps, style, extra]) => {
      const parts = ps.map(([n, v]) => (style === 'raw' ? `${n}=${v}` : `${encodeComponent(n, style === 'plus')}=${encodeComponent(v, style === 'plus')}`));
      if (style === 'raw') parts.push(...extra);
      return parts.join('&');
    });

// Authorization headers --------------------------------------------------------------------------

const BASE62 = fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz');

function authCases(): fc.Arbitrary<AuthCase> {
  const valid = (tier: 'developer' | 'pro' | 'basic' | 'free') =>
    fc
      .constantFrom<[string, string]>(
        ['Authorization', `Bearer ${KEYS[tier]}`],
        ['authorization', `bearer ${KEYS[tier]}`],
        ['AUTHORIZATION', `BEARER ${KEYS[tier]}`],
        ['Authorization', `  Bearer ${KEYS[tier]}  `],
        ['Authorization', `\tBearer ${KEYS[tier]}\t`],
      )
      .map((line): AuthCase => ({ label: `${tier} key`, lines: [line] }));
  const bad = (label: string, lines: fc.Arbitrary<[string, string][]>) => lines.map((l): AuthCase => ({ label, lines: l }));
  const key = (k: string) => fc.constant(k);
  const anyKey = fc.constantFrom(...(['developer', 'pro', 'basic', 'free'] as const)).map((t) => KEYS[t]);
  const cases: fc.Arbitrary<AuthCase> = fc.oneof(
    { arbitrary: valid('developer'), weight: 40 },
    { arbitrary: valid('pro'), weight: 6 },
    { arbitrary: valid('basic'), weight: 4 },
    { arbitrary: valid('free'), weight: 2 },
    { arbitrary: bad('missing', fc.constant([])), weight: 2 },
    {
      arbitrary: bad(
        'odd scheme or spacing',
        fc
          .tuple(
            anyKey,
            fc.constantFrom(
              'Bearer',
              'Bearer ',
              'Bearer    ',
              'Bearer  {k}',
              'Bearer{k}',
              'Bearer:{k}',
              'Bearer\t{k}',
              'Bearer {k} {k}',
              'Bearer "{k}"',
              "Bearer '{k}'",
              'Basic {k}',
              'Basic Z2NmOmtleQ==',
              'Token {k}',
              'Bearer {k};',
              'Bearer {k},',
              '{k}',
              'Bearer Bearer {k}',
              'Bearer\u0000{k}',
              'Bearer {k}\u0000',
              'Bearer \u00a0{k}',
              'Bearer {k}\u00a0',
              'Bearer\u3000{k}',
              'Beärer {k}',
              '',
            ),
          )
          .map(([k, template]): [string, string][] => [['Authorization', template.replaceAll('{k}', k)]]),
      ),
      weight: 8,
    },
    {
      arbitrary: fc.tuple(anyKey, anyKey, fc.constantFrom('Authorization', 'authorization', 'AUTHORIZATION')).map(
        ([a, b, name]): AuthCase => ({
          label: 'two Authorization headers',
          lines: [
            ['Authorization', `Bearer ${a}`],
            [name, `Bearer ${b}`],
          ],
        }),
      ),
      weight: 3,
    },
    {
      arbitrary: bad(
        'revoked key',
        key(KEYS.revoked).map((k): [string, string][] => [['Authorization', `Bearer ${k}`]]),
      ),
      weight: 2,
    },
    {
      arbitrary: bad(
        'rotated-out key',
        key(KEYS.rotatedOut).map((k): [string, string][] => [['Authorization', `Bearer ${k}`]]),
      ),
      weight: 2,
    },
    {
      arbitrary: bad(
        'unknown well-formed key',
        fc
          .oneof(
            key(KEYS.unknown),
            fc.array(BASE62, { minLength: 32, maxLength: 32 }).map((c) => `gcf_live_${c.join('')}`),
          )
          .map((k): [string, string][] => [['Authorization', `Bearer ${k}`]]),
      ),
      weight: 3,
    },
    {
      arbitrary: bad(
        'mangled key',
        fc
          .tuple(anyKey, fc.oneof(fragment, fc.constantFrom('🙂', '\u0000', '\u001f', '\u007f', 'é', 'A', '_')))
          .chain(([k, x]) =>
            fc.constantFrom(
              `${k}${x}`,
              `${x}${k}`,
              k.slice(0, -1),
              k.toUpperCase(),
              k.toLowerCase(),
              `${k.slice(0, 20)}${x}${k.slice(21)}`,
              k.replace('gcf_live_', 'gcf_test_'),
            ),
          )
          .map((k): [string, string][] => [['Authorization', `Bearer ${k}`]]),
      ),
      weight: 4,
    },
    {
      arbitrary: bad(
        'very long key',
        fc.constantFrom(1_000, 8_000, 20_000).map((n): [string, string][] => [['Authorization', `Bearer gcf_live_${'A'.repeat(n)}`]]),
      ),
      weight: 1,
    },
    {
      arbitrary: bad(
        'random value',
        fc.oneof(hostileText, fc.string({ unit: 'binary', maxLength: 60 })).map((v): [string, string][] => [['Authorization', v]]),
      ),
      weight: 3,
    },
    {
      arbitrary: bad(
        'key in another header or the query',
        anyKey.chain((k) =>
          fc.constantFrom<[string, string][]>(
            [['X-Api-Key', k]],
            [['Authorisation', `Bearer ${k}`]],
            [['Proxy-Authorization', `Bearer ${k}`]],
            [['Cookie', `Authorization=Bearer ${k}`]],
          ),
        ),
      ),
      weight: 1,
    },
  );
  // A line break in a value would end the header early and change the request's framing: kept out
  // of Authorization (the protocol property sends some). checkResponse works out the tier.
  return cases.map((c) => ({ label: c.label, lines: c.lines.map(([name, value]): [string, string] => [name, value.replace(/[\r\n]/g, ' ')]) }));
}

/** For the properties about inputs other than the key: mostly the developer key, some of every other case. */
function mostlyValidAuth(): fc.Arbitrary<AuthCase> {
  return fc.oneof(
    { arbitrary: fc.constant<AuthCase>({ label: 'developer key', lines: [['Authorization', `Bearer ${KEYS.developer}`]] }), weight: 4 },
    { arbitrary: authCases(), weight: 1 },
  );
}

// JSON bodies ----------------------------------------------------------------------------------

/** JSON text written as is: number literals JSON.stringify cannot write (1e309, -0), deep nesting. */
class JsonText {
  constructor(readonly text: string) {}
}
const raw = (text: string): JsonText => new JsonText(text);
type Tree = JsonText | null | boolean | number | string | Tree[] | { [key: string]: Tree };

function serialise(value: Tree): string {
  if (value instanceof JsonText) return value.text;
  if (Array.isArray(value)) return `[${value.map(serialise).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${serialise(v)}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

const JSON_NUMBER_LITERALS = [
  '1e308',
  '1e309',
  '-1e309',
  '9999999999999999999999',
  '-0',
  '-0.0',
  '0.0',
  '1E2',
  '1e-400',
  '5e-324',
  '2.5',
  '25.0000000000000001',
  '1.0',
  '10',
  '25',
  '26',
  '50',
  '51',
  '-1',
  '0',
];
const deepArray = (depth: number, inner = '1') => raw(`${'['.repeat(depth)}${inner}${']'.repeat(depth)}`);
const deepObject = (depth: number) => raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);

const wrongType: fc.Arbitrary<Tree> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double().filter(Number.isFinite),
  fc.constantFrom(...JSON_NUMBER_LITERALS).map(raw),
  hostileText,
  fc.array(fc.oneof(fc.integer(), hostileText), { maxLength: 4 }),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Tree>,
  fc.constantFrom<Tree>({ $gt: '' }, { $ne: null }, { $regex: '.*' }, [], {}, [[]], deepArray(1_000), deepObject(1_000), raw('{"__proto__":{"polluted":1}}')),
);

/** Where a mutation puts its value: a path into the body; "-" deletes, anything else replaces. */
type Mutation = { path: string[]; value: Tree | '-' };

/** A deep copy (arbitraries such as constantFrom hand out the same object every time: never mutate those). */
function cloneTree(value: Tree): Tree {
  if (value instanceof JsonText || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneTree);
  const out: { [key: string]: Tree } = {};
  for (const [key, item] of Object.entries(value))
    Object.defineProperty(out, key, { value: cloneTree(item), enumerable: true, writable: true, configurable: true });
  return out;
}

function mutate(body: Tree, mutations: Mutation[]): Tree {
  const copy = cloneTree(body) as Record<string, unknown>;
  for (const { path, value } of mutations) {
    let target: Record<string, unknown> = copy;
    for (const key of path.slice(0, -1)) {
      if (typeof target[key] !== 'object' || target[key] === null || target[key] instanceof JsonText) target[key] = {};
      target = target[key] as Record<string, unknown>;
    }
    const last = path[path.length - 1]!;
    if (value === '-') delete target[last];
    else Object.defineProperty(target, last, { value: cloneTree(value), enumerable: true, writable: true, configurable: true });
  }
  return copy as Tree;
}

/** A valid body with none, one or a few fields replaced by hostile or wrongly typed values (or removed), plus unknown fields. */
function mutated(valid: fc.Arbitrary<Tree>, paths: string[][]): fc.Arbitrary<Tree> {
  const mutation = fc.record({
    path: fc.oneof(
      { arbitrary: fc.constantFrom(...paths), weight: 5 },
      { arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', '$where', 'id', '', 'toString').map((k) => [k]), weight: 1 },
    ),
    value: fc.oneof(
      { arbitrary: wrongType, weight: 3 },
      { arbitrary: hostileText, weight: 2 },
      { arbitrary: fc.constantFrom(...JSON_NUMBER_LITERALS).map(raw), weight: 2 },
      { arbitrary: fc.constant<'-'>('-'), weight: 1 },
    ),
  });
  return fc
    .tuple(valid, fc.oneof({ arbitrary: fc.constant<Mutation[]>([]), weight: 2 }, { arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }), weight: 3 }))
    .map(([body, mutations]) => mutate(body, mutations));
}

const words = (max: number) => fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: max }).map((w) => w.join(' '));

const semanticBody: fc.Arbitrary<Tree> = mutated(
  fc.record(
    {
      query: fc.oneof({ arbitrary: words(5), weight: 3 }, { arbitrary: hostileText, weight: 1 }),
      type: fc.constantFrom('grants', 'contracts'),
      limit: fc.integer({ min: 1, max: 50 }),
    },
    { requiredKeys: ['query'] },
  ) as fc.Arbitrary<Tree>,
  [['query'], ['type'], ['limit']],
);

const matchBody: fc.Arbitrary<Tree> = mutated(
  fc.record(
    {
      profile: fc.record(
        {
          mission: fc.oneof({ arbitrary: words(12), weight: 3 }, { arbitrary: hostileText, weight: 1 }),
          sector: words(3),
          geography: fc.constantFrom('Texas', 'tx', 'Austin, TX', 'rural Kansas', 'nationwide', 'USA', 'Atlantis', 'CA'),
          applicant_type: fc.mixedCase(fc.constantFrom(...APPLICANT_TYPES, 'for-profit', 'for profit')),
          is_501c3: fc.boolean(),
          annual_budget_usd: fc.oneof(fc.integer({ min: 1, max: 50_000_000 }), fc.double({ min: 0.01, max: 1e13, noNaN: true })),
          naics_code: fc.stringMatching(/^\d{2,6}$/),
          certifications: fc.array(words(2), { maxLength: 3 }),
        },
        { requiredKeys: ['mission'] },
      ),
      focus_keywords: fc.array(
        fc.oneof(
          fc.constantFrom(...WORDS),
          hostileText.filter((t) => t.trim().length > 0 && t.length <= 60),
        ),
        { maxLength: 5 },
      ),
      limit: fc.integer({ min: 1, max: 25 }),
    },
    { requiredKeys: ['profile'] },
  ) as fc.Arbitrary<Tree>,
  [
    ['profile'],
    ['profile', 'mission'],
    ['profile', 'sector'],
    ['profile', 'geography'],
    ['profile', 'applicant_type'],
    ['profile', 'is_501c3'],
    ['profile', 'annual_budget_usd'],
    ['profile', 'naics_code'],
    ['profile', 'certifications'],
    ['focus_keywords'],
    ['focus_keywords', '0'],
    ['limit'],
  ],
);

/** Bodies that are not one well-formed JSON object, or are at the size limit. */
function brokenBody(valid: fc.Arbitrary<Tree>): fc.Arbitrary<string | Buffer> {
  const text = valid.map(serialise);
  return fc.oneof(
    { arbitrary: fc.tuple(text, fc.nat()).map(([t, n]) => t.slice(0, n % Math.max(1, t.length))), weight: 3 },
    { arbitrary: text.map((t) => t.replace(/}$/, ',}')), weight: 1 },
    { arbitrary: text.map((t) => `\ufeff${t}`), weight: 1 },
    { arbitrary: text.map((t) => `[${t}]`), weight: 1 },
    { arbitrary: text.map((t) => `${t}${t}`), weight: 1 },
    { arbitrary: text.map((t) => `${t} trailing`), weight: 1 },
    { arbitrary: text.map((t) => Buffer.from(t, 'utf16le')), weight: 1 },
    { arbitrary: text.map((t) => Buffer.concat([Buffer.from([0xff, 0xfe, 0xc0, 0x80]), Buffer.from(t)])), weight: 1 },
    {
      arbitrary: fc.constantFrom(
        '',
        ' ',
        '\n',
        'null',
        'true',
        '42',
        '-0',
        '"query"',
        '[]',
        '[{"query":"health"}]',
        '{',
        '}',
        '{"query":"health",}',
        "{'query':'health'}",
        '{query:"health"}',
        '{"query":"health" /* c */}',
        '{"query":NaN}',
        '{"query":"health","limit":Infinity}',
        '{"limit":-Infinity,"query":"x"}',
        '{"query":"health","limit":0x10}',
        '{"query":"health","limit":+1}',
        '{"query":"health","limit":.5}',
        '{"query":"health","limit":01}',
        '{"query":"\\ud800"}',
        '{"query":"\\u0000"}',
        '{"query":"\\uZZZZ"}',
        '{"query":"a\u0000b"}',
        '{"query":"health","query":1}',
        '{"__proto__":{"query":"health"}}',
        '{"constructor":{"prototype":{"query":"x"}}}',
        '{"profile":{"__proto__":{"mission":"x"}}}',
        '{"profile":{"mission":"health"}}garbage',
        '\u0000',
        'undefined',
        '{"query":"health"}\u0000',
      ),
      weight: 4,
    },
    { arbitrary: fc.constantFrom(10_000, 100_000).map((d) => serialise(deepArray(d))), weight: 1 },
    { arbitrary: fc.constantFrom(10_000).map((d) => serialise({ query: deepArray(d), profile: deepArray(d), limit: 1 } as Tree)), weight: 1 },
    { arbitrary: fc.constantFrom(10_000, 50_000).map((d) => serialise(deepObject(d))), weight: 1 },
    { arbitrary: fc.constantFrom(5_000).map((d) => `{"profile":${serialise(deepObject(d))},"query":${serialise(deepObject(d))}}`), weight: 1 },
    { arbitrary: fc.constantFrom(10_000).map((d) => '['.repeat(d)), weight: 1 },
  );
}

/** About a megabyte: just under the 1 MiB limit (valid JSON, too long to accept) and just over it. */
const hugeBody = fc
  .constantFrom(
    () => JSON.stringify({ query: 'a'.repeat(MAX_BODY_BYTES - 20) }),
    () => JSON.stringify({ profile: { mission: 'health '.repeat(140_000) } }),
    () => JSON.stringify({ query: 'health', junk: Array.from({ length: 90_000 }, (_, i) => i) }),
    () => JSON.stringify({ query: 'a'.repeat(MAX_BODY_BYTES + 10) }),
    () => `${'['.repeat(MAX_BODY_BYTES / 2 - 1)}${']'.repeat(MAX_BODY_BYTES / 2 - 1)}`,
    () => 'x'.repeat(MAX_BODY_BYTES + 1),
  )
  .map((make) => make());

// ---------------------------------------------------------------------------------------------
// Catalogue fingerprint
// ---------------------------------------------------------------------------------------------

interface Fingerprint {
  counts: Record<string, number>;
  totals: Record<string, number>;
  recordsSha256: string;
  apiSha256: string;
  keysSha256: string;
}

async function apiGet(path: string): Promise<any> {
  const res = await send(
    { method: 'GET', target: `${BASE_PATH}${path}`, headers: [], auth: { label: 'developer key', lines: [['Authorization', `Bearer ${KEYS.developer}`]] } },
    'fingerprint',
  );
  expect(res.status, `${path}: ${res.body.slice(0, 200)}`).toBe(200);
  return JSON.parse(res.body);
}

/** Every stored record, what the index answers, and the keys: a write anywhere changes one of them. */
async function fingerprint(): Promise<Fingerprint> {
  const { store, keys } = api.stack.services;
  const counts: Record<string, number> = {};
  const records = createHash('sha256');
  for (const kind of RESOURCE_KINDS) {
    const all: { id: string }[] = [];
    for await (const page of store.scan(kind)) all.push(...(page as { id: string }[]));
    all.sort((a, b) => a.id.localeCompare(b.id));
    counts[kind] = all.length;
    records.update(JSON.stringify(all));
  }
  const totals: Record<string, number> = {};
  const viaApi = createHash('sha256');
  for (const [name, path] of [
    ['grants', '/grants-api?opportunity_type=all&count_only=true'],
    ['contracts', '/contracts-api?opportunity_type=all&count_only=true'],
    ['funders', '/funders-api?count_only=true'],
    ['grants keyword', '/grants-api?opportunity_type=all&search=health&count_only=true'],
    ['contracts semantic', '/contracts-api?opportunity_type=all&search=software&search_mode=semantic&count_only=true'],
  ] as const)
    totals[name] = (await apiGet(path)).pagination.total;
  for (const path of [
    '/grants-api?opportunity_type=all&limit=100&sort_by=title&order=asc',
    '/contracts-api?opportunity_type=all&limit=100',
    '/funders-api?limit=100',
    '/grants-api?search=community%20health&search_mode=hybrid&limit=50',
  ]) {
    viaApi.update(JSON.stringify((await apiGet(path)).results));
  }
  for (const kind of RESOURCE_KINDS) for (const id of realIds[kind].slice(0, 5)) viaApi.update(JSON.stringify(await apiGet(`${LIST_PATHS[kind]}/${id}`)));
  const keyList = (await keys.list()).map((k) => ({ ...k })).sort((a, b) => a.key_id.localeCompare(b.key_id));
  return {
    counts,
    totals,
    recordsSha256: records.digest('hex'),
    apiSha256: viaApi.digest('hex'),
    keysSha256: createHash('sha256').update(JSON.stringify(keyList)).digest('hex'),
  };
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

/** Counterexamples print as one clipped line per request (a 20 kB key or a 1 MB body would drown the report). */
function printable(req: FuzzRequest): FuzzRequest {
  return Object.assign(req, { [fc.toStringMethod]: () => describeRequest(req) });
}

/** A batch of requests sent at once (the server sees concurrent callers). */
function batchOf(request: fc.Arbitrary<FuzzRequest>, size = BATCH): fc.Arbitrary<FuzzRequest[]> {
  return fc.array(request.map(printable), { minLength: size, maxLength: size });
}

async function runBatch(property: string, requests: FuzzRequest[]): Promise<void> {
  const responses = await Promise.all(requests.map((req) => send(req, property)));
  responses.forEach((res, i) => checkResponse(requests[i]!, res));
}

const kindArb = fc.constantFrom(...RESOURCE_KINDS);

/** A 200 list answer holds what the oracle says (list-answer-oracle.ts); a target with bytes beyond ASCII may be read otherwise by the server, so it is not judged. */
function expectListAnswer(target: string, res: RawHttpResponse): void {
  if (res.status !== 200 || !/^application\/json/.test(res.headers['content-type']?.[0] ?? '') || /[^\u0021-\u007e]/.test(target)) return;
  const problem = listAnswerProblem(target, res.body, catalogue);
  if (problem) throw new Error(`wrong answer: ${problem}\nGET ${clip(target)}`);
  answersJudged++;
}

beforeAll(async () => {
  startedAt = performance.now();
  agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  api = await startTestApi({ seed: SEED_CATALOGUE });
  // A stage may lower a tier's quota (tier-quotas.ts); here the basic key meets its limit mid-run.
  api.stack.services.tiers = { ...TIERS, basic: { ...TIERS.basic, dailyQuota: BASIC_QUOTA } };
  const { keys: store, clock } = api.stack.services;
  Object.assign(KEYS, { developer: api.keys.developer, pro: api.keys.pro, basic: api.keys.basic, free: api.keys.free });
  const revoked = await createKey(store, { tier: 'developer', owner: 'fuzz', label: 'revoked' }, randomBytes, clock.now());
  await revokeKey(store, revoked.record.key_id, clock.now());
  KEYS.revoked = revoked.key;
  const rotating = await createKey(store, { tier: 'developer', owner: 'fuzz', label: 'rotated' }, randomBytes, clock.now());
  await rotateKey(store, rotating.record.key_id, 0, randomBytes, clock.now());
  KEYS.rotatedOut = rotating.key;
  KEYS.unknown = `gcf_live_${'Zz9'.repeat(10)}Qq`;
  for (const kind of RESOURCE_KINDS) {
    const page = await apiGet(`${LIST_PATHS[kind]}?limit=100${kind === 'funder' ? '' : '&opportunity_type=all'}`);
    realIds[kind] = page.results.map((r: { id: string }) => r.id);
  }
  before = await fingerprint();
  const seeded = seededRecords(api.stack);
  catalogue = { today: seeded.today, grant: seeded.grants, contract: seeded.contracts };
}, 180_000);

afterAll(async () => {
  agent?.destroy();
  await api?.close();
});

describe('fuzzing every endpoint over HTTP', () => {
  it(
    'list endpoints: random and hostile query strings',
    async () => {
      const request = kindArb
        .chain((kind) =>
          fc.record({
            path: fc.constantFrom(LIST_PATHS[kind], `${LIST_PATHS[kind]}/`),
            qs: queryString(queryPairs(kind)),
            auth: mostlyValidAuth(),
            forceRaw: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
          }),
        )
        .map(({ path, qs, auth, forceRaw }): FuzzRequest => {
          const target = `${BASE_PATH}${path}${qs ? `?${qs}` : ''}`;
          return { method: 'GET', target, headers: [], auth, forceRaw, expect: (res) => expectListAnswer(target, res) };
        });
      await fc.assert(
        fc.asyncProperty(batchOf(request), (reqs) => runBatch('list', reqs)),
        { numRuns: 700, ...REPLAY },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'single records: real, unknown, malformed and hostile ids',
    async () => {
      const request = fc
        .record({
          kind: kindArb,
          idCase: fc.oneof(
            { arbitrary: fc.tuple(kindArb, fc.nat(), fc.constantFrom('as is', 'upper', 'slash')).map(([k, n, how]) => ({ k, n, how })), weight: 4 },
            { arbitrary: fc.uuid().map((id) => ({ k: null, n: 0, how: id })), weight: 2 },
            {
              arbitrary: fc
                .oneof(
                  hostileText,
                  fc.constantFrom(
                    ...PERCENT_FRAGMENTS,
                    '..',
                    '.',
                    '%2e%2e',
                    '..%2F..%2Fetc%2Fpasswd',
                    'f'.repeat(5_000),
                    '00000000-0000-0000-0000-000000000000',
                    'ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ',
                    '3f2b8c1e-6a4d-4c8e-9b1a-2d5e7f9a0b3c%00',
                    '3f2b8c1e6a4d4c8e9b1a2d5e7f9a0b3c',
                    '{id}',
                    'a/b',
                    'x?y=1',
                    '#x',
                  ),
                )
                .map((text) => ({ k: null, n: 0, how: `text:${text}` })),
              weight: 3,
            },
          ),
          encode: fc.constantFrom('encoded', 'raw'),
          auth: mostlyValidAuth(),
        })
        .map(({ kind, idCase, encode, auth }): FuzzRequest => {
          const { k, n, how } = idCase;
          let id: string;
          let known: string | null = null;
          if (k !== null) {
            const pool = realIds[k];
            known = pool[n % pool.length]!;
            id = how === 'upper' ? known.toUpperCase() : how === 'slash' ? `${known}/` : known;
            if (k !== kind) known = null;
          } else if (how.startsWith('text:')) {
            const text = how.slice(5);
            id = encode === 'encoded' ? encodeComponent(text, false) : text;
          } else id = how;
          const expectedId = known;
          return {
            method: 'GET',
            target: `${BASE_PATH}${LIST_PATHS[kind]}/${id}`,
            headers: [],
            auth,
            expect:
              expectedId === null
                ? undefined
                : (res, tier) => {
                    if (tier === 'developer' || tier === 'pro') {
                      expect(res.status, `GET ${kind} ${expectedId}`).toBe(200);
                      expect(JSON.parse(res.body).id).toBe(expectedId);
                    }
                  },
          };
        });
      await fc.assert(
        fc.asyncProperty(batchOf(request), (reqs) => runBatch('get', reqs)),
        { numRuns: 250, ...REPLAY },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'POST /semantic-search: well-typed, wrongly typed and hostile bodies',
    async () => {
      const request = fc
        .record({
          body: semanticBody,
          auth: mostlyValidAuth(),
          path: fc.constantFrom('/semantic-search', '/semantic-search', '/semantic-search/'),
          contentType: fc.constantFrom(
            'application/json',
            'application/json',
            'text/plain',
            'application/x-www-form-urlencoded',
            'application/json; charset=latin1',
            '',
          ),
          chunked: fc.boolean(),
        })
        .map(
          ({ body, auth, path, contentType, chunked }): FuzzRequest => ({
            method: 'POST',
            target: `${BASE_PATH}${path}`,
            headers: contentType ? [['Content-Type', contentType]] : [],
            body: serialise(body),
            auth,
            chunked,
          }),
        );
      await fc.assert(
        fc.asyncProperty(batchOf(request), (reqs) => runBatch('semantic', reqs)),
        { numRuns: 300, ...REPLAY },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'POST /match-grants-api: well-typed, wrongly typed and hostile bodies',
    async () => {
      const request = fc.record({ body: matchBody, auth: mostlyValidAuth(), query: fc.option(queryString(queryPairs('grant')), { freq: 5 }) }).map(
        ({ body, auth, query }): FuzzRequest => ({
          method: 'POST',
          target: `${BASE_PATH}/match-grants-api${query ? `?${query}` : ''}`,
          headers: [['Content-Type', 'application/json']],
          body: serialise(body),
          auth,
        }),
      );
      await fc.assert(
        fc.asyncProperty(batchOf(request), (reqs) => runBatch('match', reqs)),
        { numRuns: 300, ...REPLAY },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'POST bodies that are not JSON objects: truncated, BOM, top-level arrays, 10,000-deep nesting, ~1 MB',
    async () => {
      const semanticBroken = brokenBody(semanticBody);
      const matchBroken = brokenBody(matchBody);
      const request = fc
        .tuple(fc.constantFrom('/semantic-search', '/match-grants-api'), authCases())
        .chain(([path, auth]) =>
          fc.oneof(
            { arbitrary: (path === '/semantic-search' ? semanticBroken : matchBroken).map((body) => ({ path, auth, body, huge: false })), weight: 15 },
            { arbitrary: hugeBody.map((body) => ({ path, auth, body, huge: true })), weight: 1 },
          ),
        )
        .map(
          ({ path, auth, body, huge }): FuzzRequest => ({
            method: 'POST',
            target: `${BASE_PATH}${path}`,
            headers: [['Content-Type', 'application/json']],
            body,
            auth,
            // Over the limit the server may answer before it has read the body: a raw socket reads that answer whatever happens.
            forceRaw: huge,
          }),
        );
      await fc.assert(
        fc.asyncProperty(batchOf(request, 4), (reqs) => runBatch('broken bodies', reqs)),
        { numRuns: 150, ...REPLAY },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'Authorization headers of every shape, on every endpoint',
    async () => {
      const endpoint = fc.oneof(
        kindArb.map((k) => ({ method: 'GET', path: LIST_PATHS[k], body: undefined as string | undefined })),
        fc
          .tuple(kindArb, fc.nat())
          .map(([k, n]) => ({ method: 'GET', path: `${LIST_PATHS[k]}/${realIds[k][n % realIds[k].length]}`, body: undefined as string | undefined })),
        fc.constant({ method: 'POST', path: '/semantic-search', body: '{"query":"community health","limit":3}' as string | undefined }),
        fc.constant({ method: 'POST', path: '/match-grants-api', body: '{"profile":{"mission":"rural health clinics"},"limit":2}' as string | undefined }),
        fc.constant({ method: 'GET', path: '/openapi.json', body: undefined as string | undefined }),
      );
      const request = fc.record({ endpoint, auth: authCases() }).map(
        ({ endpoint: e, auth }): FuzzRequest => ({
          method: e.method,
          target: `${BASE_PATH}${e.path}`,
          headers: e.body ? [['Content-Type', 'application/json']] : [],
          body: e.body,
          auth,
        }),
      );
      await fc.assert(
        fc.asyncProperty(batchOf(request), (reqs) => runBatch('auth', reqs)),
        { numRuns: 200, ...REPLAY },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'unknown paths and methods, known paths with the wrong method',
    async () => {
      const known = ['/grants-api', '/contracts-api', '/funders-api', '/semantic-search', '/match-grants-api', '/openapi.json', '/grants-api/{id}'];
      const path = fc.oneof(
        fc.constantFrom(...known).map((p) => `${BASE_PATH}${p.replace('{id}', realIds.grant[0]!)}`),
        fc.webPath().map((p) => `${BASE_PATH}${p.startsWith('/') ? p : `/${p}`}`),
        fc.webPath().map((p) => (p.startsWith('/') ? p : `/${p}`)),
        fc.constantFrom(
          '/',
          '*',
          BASE_PATH,
          `${BASE_PATH}/`,
          '/functions',
          '/functions/v2/grants-api',
          `${BASE_PATH}/../../etc/passwd`,
          `${BASE_PATH}/%2e%2e/%2e%2e/etc/passwd`,
          `/${BASE_PATH}/grants-api`,
          `${BASE_PATH}//grants-api`,
          '/FUNCTIONS/V1/GRANTS-API',
          `${BASE_PATH}/GRANTS-API`,
          `${BASE_PATH}/grants-api/../contracts-api`,
          `${BASE_PATH}/grants-api;x`,
          `${BASE_PATH}/grants-api%2F`,
          `${BASE_PATH}/grants-api.json`,
          `${BASE_PATH}/openapi.json?x=1`,
          `${BASE_PATH}/openapi.json/x`,
          `http://example.com${BASE_PATH}/grants-api`,
          `${BASE_PATH}\\grants-api`,
          `${BASE_PATH}/grants-api\u0000`,
          `${BASE_PATH}/grants api`,
          `${BASE_PATH}/grants-api/a/b`,
          `${BASE_PATH}/grants-api//`,
          `${BASE_PATH}/semantic-search/x`,
          `${BASE_PATH}/match-grants-api/..`,
          `${BASE_PATH}/🙂`,
          `${BASE_PATH}/${'a'.repeat(10_000)}`,
          `${BASE_PATH}/grants-api?${'a=1&'.repeat(2_000)}`,
          `${BASE_PATH}/%`,
          `${BASE_PATH}/grants-api#frag`,
        ),
        fc.tuple(hostileText, fc.boolean()).map(([t, enc]) => `${BASE_PATH}/${enc ? encodeComponent(t, false) : t}`),
      );
      const method = fc.constantFrom(
        'GET',
        'POST',
        'PUT',
        'DELETE',
        'PATCH',
        'OPTIONS',
        'HEAD',
        'TRACE',
        'PROPFIND',
        'PURGE',
        'get',
        'post',
        'FOO',
        'G_ET',
        'CONNECT',
      );
      const request = fc
        .record({
          method,
          path,
          auth: authCases(),
          body: fc.option(fc.constantFrom('{"query":"health"}', '{"profile":{"mission":"health"}}', 'x'), { freq: 2 }),
        })
        .map(
          ({ method: m, path: p, auth, body }): FuzzRequest => ({
            method: m,
            target: p,
            headers: body ? [['Content-Type', 'application/json']] : [],
            body: body ?? undefined,
            auth,
          }),
        );
      await fc.assert(
        fc.asyncProperty(batchOf(request), (reqs) => runBatch('paths and methods', reqs)),
        { numRuns: 150, ...REPLAY },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'protocol oddities: repeated and odd headers, control characters, chunked bodies, Expect, Upgrade',
    async () => {
      const header = fc.oneof(
        fc.constantFrom<[string, string]>(
          ['Content-Type', 'application/json'],
          ['Content-Type', 'text/html'],
          ['Content-Type', 'application/json; charset=utf-16'],
          ['Content-Encoding', 'gzip'],
          ['Accept', 'application/xml'],
          ['Accept-Encoding', 'br, gzip, deflate'],
          ['X-Forwarded-For', '127.0.0.1, 10.0.0.1'],
          ['X-Forwarded-Host', 'evil.example'],
          ['X-HTTP-Method-Override', 'DELETE'],
          ['X-Amzn-Trace-Id', 'Root=1-00000000-000000000000000000000000'],
          ['Origin', 'https://evil.example'],
          ['Expect', '100-continue'],
          ['Upgrade', 'websocket'],
          ['Connection', 'Upgrade'],
          ['Connection', 'keep-alive'],
          ['TE', 'trailers'],
          ['Range', 'bytes=0-10'],
          ['If-None-Match', '*'],
          ['Cookie', 'a=b'],
          ['Host', 'evil.example'],
          ['Transfer-Encoding', 'chunked'],
          ['Content-Length', '5'],
          ['Content-Length', 'abc'],
          ['X-Api-Key', 'gcf_live_x'],
          ['x-ratelimit-limit', '-1'],
          ['X-Long', 'v'.repeat(20_000)],
          ['X-Many', 'a,'.repeat(3_000)],
        ),
        fc.tuple(
          fc.oneof(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/), fc.constantFrom('X Y', 'X:Y', 'Ä', '', 'X\u0000', '(x)')),
          fc.oneof(hostileText, fc.constantFrom(...CONTROLS)),
        ),
      );
      const request = fc
        .record({
          endpoint: fc.constantFrom(
            { method: 'GET', target: `${BASE_PATH}/grants-api?limit=2` },
            { method: 'GET', target: `${BASE_PATH}/funders-api?search=health` },
            { method: 'POST', target: `${BASE_PATH}/semantic-search`, body: '{"query":"water","limit":2}' },
            { method: 'POST', target: `${BASE_PATH}/match-grants-api`, body: '{"profile":{"mission":"youth arts"},"limit":1}' },
            { method: 'GET', target: `${BASE_PATH}/openapi.json` },
          ),
          headers: fc.array(header, { maxLength: 4 }),
          auth: authCases(),
        })
        .map(({ endpoint, headers: drawn, auth }): FuzzRequest => {
          // Line breaks only where placed on purpose (they would re-frame the request unpredictably).
          const headers = drawn.map(([n, v]): [string, string] => [n, v.replace(/[\r\n]/g, ' ')]);
          if (drawn.some(([, v]) => /[\r\n]/.test(v))) headers.push(['X-Split', 'a\r\nX-Injected: b']);
          const names = headers.map(([n]) => n.toLowerCase());
          const chunked = headers.some(([n, v]) => n.toLowerCase() === 'transfer-encoding' && v === 'chunked');
          let body: string | undefined = endpoint.body;
          // Framing headers of our own must be honoured, or the server rightly waits for the rest of the body.
          if (chunked) body = body === undefined ? '0\r\n\r\n' : `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
          const declared = headers.find(([n]) => n.toLowerCase() === 'content-length');
          if (declared && /^\d+$/.test(declared[1]) && (body === undefined || Buffer.byteLength(body) < Number(declared[1])))
            body = `${body ?? ''}${' '.repeat(Number(declared[1]) - Buffer.byteLength(body ?? ''))}`;
          if (names.includes('content-length') && body === undefined) body = '';
          return { method: endpoint.method, target: endpoint.target, headers, body, auth, forceRaw: true };
        });
      await fc.assert(
        fc.asyncProperty(batchOf(request, 6), (reqs) => runBatch('protocol', reqs)),
        { numRuns: 150, ...REPLAY },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    'leaves the catalogue, the search index and the keys as they were',
    async () => {
      const after = await fingerprint();
      expect(after).toEqual(before);
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(`sent at least ${MIN_REQUESTS} requests`, () => {
    const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
    console.log(`fuzz: ${requestCount} requests in ${seconds} s`);
    for (const [property, count] of Object.entries(countsByProperty))
      console.log(`  ${property}: ${count} requests, statuses ${JSON.stringify(statusCounts[property])}`);
    console.log(`  list answers judged by the oracle: ${answersJudged}`);
    expect(requestCount).toBeGreaterThanOrEqual(MIN_REQUESTS);
    expect(answersJudged).toBeGreaterThanOrEqual(MIN_JUDGED_ANSWERS);
  });
});
