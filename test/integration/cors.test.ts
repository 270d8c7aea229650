import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { utcDayOf } from '../../lambdas/core/auth/quota';
import { createKey } from '../../lambdas/core/use-cases/manage-keys';
import type { SearchIndex } from '../../lambdas/ports/search-index';
import { localRoutes } from '../../local/api-routes';
import { type ServedApi, serveOverHttp, startTestApi, type TestApi } from '../support/api-server';
import { rawHttp } from '../support/raw-http';

/**
 * CORS over real HTTP on the local server, as API Gateway and the functions answer it: the
 * preflight (OPTIONS) of every route without a key, and the CORS headers on every answer, from a
 * 200 to the server's own 404s and parser errors, with the default (any origin) and with a list
 * of origins, where an origin not on it gets no CORS header and is still served as usual.
 */

const ALLOWED = 'https://app.example.org';
const ALSO_ALLOWED = 'http://localhost:5173';
const DISALLOWED = 'https://elsewhere.example';
const EXPOSED =
  'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After, Content-Disposition, X-Total-Count, X-Export-Rows, X-Export-Complete, X-Export-Next-Offset, X-Export-Next-Cursor, X-Export-Degraded';
const SOME_ID = '00000000-0000-4000-8000-000000000000';

let api: TestApi;
let listed: ServedApi;
let broken: ServedApi;
/** Every route the local server has (lib/api-routes.ts's too), as a path to call. */
let routes: { method: string; path: string }[];

beforeAll(async () => {
  api = await startTestApi({ seed: { funders: 5, grants: 20, contracts: 5, awardedGrants: 2, awardedContracts: 1 } });
  listed = await serveOverHttp(api.stack.services, api.stack.services, { corsOrigins: [ALLOWED, ALSO_ALLOWED] });
  // A search index that fails every call: the list routes answer 5xx.
  const failing = new Proxy(api.stack.services.index, {
    get: (target, name) =>
      typeof target[name as keyof SearchIndex] === 'function'
        ? async () => {
            throw new Error('index exploded');
          }
        : target[name as keyof SearchIndex],
  });
  broken = await serveOverHttp({ ...api.stack.services, index: failing }, api.stack.services, { corsOrigins: [ALLOWED, ALSO_ALLOWED] });
  routes = localRoutes(api.stack.services).map((route) => ({ method: route.method, path: route.resource.replace('{id}', SOME_ID) }));
});
afterAll(async () => {
  await broken?.close();
  await listed?.close();
  await api?.close();
});

async function call(
  baseUrl: string,
  path: string,
  init: { method?: string; origin?: string; key?: string | null; headers?: Record<string, string>; body?: string } = {},
) {
  const key = init.key === undefined ? api.keys.developer : init.key;
  const response = await fetch(`${baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...(init.origin ? { Origin: init.origin } : {}), ...(key ? { Authorization: `Bearer ${key}` } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function corsHeadersOf(headers: Headers): Record<string, string> {
  return Object.fromEntries([...headers].filter(([name]) => name.startsWith('access-control-')));
}

describe('preflight (OPTIONS)', () => {
  it("answers 204 on every route without a key: any origin, the route's methods and OPTIONS, Authorization and Content-Type, a max age", async () => {
    expect(routes.length).toBeGreaterThanOrEqual(11);
    for (const route of routes) {
      const answer = await call(api.baseUrl, route.path, {
        method: 'OPTIONS',
        origin: DISALLOWED,
        key: null,
        headers: { 'Access-Control-Request-Method': route.method, 'Access-Control-Request-Headers': 'authorization,content-type' },
      });
      expect(answer.status, route.path).toBe(204);
      expect(answer.text, route.path).toBe('');
      const cors = corsHeadersOf(answer.headers);
      expect(cors['access-control-allow-origin'], route.path).toBe('*');
      expect(cors['access-control-allow-methods'], route.path).toBe(`${route.method}, OPTIONS`);
      expect(cors['access-control-allow-headers']?.split(', '), route.path).toEqual(expect.arrayContaining(['Authorization', 'Content-Type', 'Accept']));
      expect(cors['access-control-max-age'], route.path).toBe('7200');
      expect(answer.headers.get('vary'), route.path).toBeNull();
      expect(answer.headers.get('x-request-id'), route.path).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('with a list of origins: a listed origin is echoed with Vary: Origin; any other gets no CORS header', async () => {
    for (const route of routes) {
      for (const origin of [ALLOWED, ALSO_ALLOWED]) {
        const answer = await call(listed.baseUrl, route.path, {
          method: 'OPTIONS',
          origin,
          key: null,
          headers: { 'Access-Control-Request-Method': route.method },
        });
        expect(answer.status, route.path).toBe(204);
        expect(answer.headers.get('access-control-allow-origin'), route.path).toBe(origin);
        expect(answer.headers.get('access-control-allow-methods'), route.path).toBe(`${route.method}, OPTIONS`);
        expect(answer.headers.get('vary'), route.path).toBe('Origin');
      }
      const refused = await call(listed.baseUrl, route.path, {
        method: 'OPTIONS',
        origin: DISALLOWED,
        key: null,
        headers: { 'Access-Control-Request-Method': route.method },
      });
      expect(refused.status, route.path).toBe(204);
      expect(corsHeadersOf(refused.headers), route.path).toEqual({});
      expect(refused.headers.get('vary'), route.path).toBe('Origin');
    }
  });

  it('on a path no route has is the usual 404, with CORS headers', async () => {
    const answer = await call(api.baseUrl, '/no-such-route', { method: 'OPTIONS', origin: ALLOWED, key: null });
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text).error.code).toBe('NOT_FOUND');
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('CORS headers on every answer', () => {
  async function answersFrom(baseUrl: string, origin: string | undefined) {
    const { key: exhausted, record } = await createKey(
      api.stack.services.keys,
      { tier: 'basic', owner: 'test', label: `cors ${baseUrl} ${origin}` },
      randomBytes,
      new Date(),
    );
    const now = new Date();
    for (let used = 0; used < 1000; used += 100) {
      await Promise.all(Array.from({ length: 100 }, () => api.stack.services.meter.consume(record.key_id, utcDayOf(now), 1000, now)));
    }
    return {
      200: await call(baseUrl, '/grants-api?limit=1', { origin }),
      '200 public': await call(baseUrl, '/openapi.json', { origin, key: null }),
      '200 docs': await call(baseUrl, '/docs', { origin, key: null }),
      '200 POST': await call(baseUrl, '/semantic-search', {
        method: 'POST',
        origin,
        body: JSON.stringify({ query: 'arts education', limit: 2 }),
        headers: { 'Content-Type': 'application/json' },
      }),
      400: await call(baseUrl, '/grants-api?limit=0', { origin }),
      '400 body': await call(baseUrl, '/semantic-search', { method: 'POST', origin, body: '{"query":', headers: { 'Content-Type': 'application/json' } }),
      '400 encoding': await call(baseUrl, '/grants-api/%E0%A4%A', { origin }),
      401: await call(baseUrl, '/grants-api', { origin, key: null }),
      403: await call(baseUrl, '/grants-api', { origin, key: api.keys.free }),
      404: await call(baseUrl, `/grants-api/${SOME_ID}`, { origin }),
      '404 route': await call(baseUrl, '/no-such-route', { origin }),
      '404 outside': await call(baseUrl.replace(/\/functions\/v1$/, ''), '/elsewhere', { origin }),
      413: await call(baseUrl, '/semantic-search', { method: 'POST', origin, body: 'x'.repeat(1024 * 1024 + 1) }),
      429: await call(baseUrl, '/grants-api?limit=1', { origin, key: exhausted }),
    };
  }

  /** Vary without the Accept that list answers add (they also come as CSV): what CORS adds. */
  const varyOtherThanAccept = (headers: Headers) =>
    (headers.get('vary') ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v && v !== 'Accept')
      .join(', ') || null;

  it('with any origin allowed: * on 2xx, 4xx and 429, with the readable headers, with or without an Origin', async () => {
    for (const origin of [DISALLOWED, undefined]) {
      const answers = await answersFrom(api.baseUrl, origin);
      for (const [what, answer] of Object.entries(answers)) {
        expect(String(answer.status), `${what} ${origin}`).toBe(what.split(' ')[0]);
        expect(answer.headers.get('access-control-allow-origin'), `${what} ${origin}`).toBe('*');
        expect(answer.headers.get('access-control-expose-headers'), `${what} ${origin}`).toBe(EXPOSED);
        expect(varyOtherThanAccept(answer.headers), `${what} ${origin}`).toBeNull();
      }
      expect(answers[429].headers.get('retry-after')).toMatch(/^\d+$/);
    }
  });

  it('with a list: a listed origin is echoed on every answer; another origin is served as usual, without CORS headers', async () => {
    const allowed = await answersFrom(listed.baseUrl, ALSO_ALLOWED);
    const refused = await answersFrom(listed.baseUrl, DISALLOWED);
    const none = await answersFrom(listed.baseUrl, undefined);
    for (const [what, answer] of Object.entries(allowed)) {
      expect(String(answer.status), what).toBe(what.split(' ')[0]);
      expect(answer.headers.get('access-control-allow-origin'), what).toBe(ALSO_ALLOWED);
      expect(answer.headers.get('access-control-expose-headers'), what).toBe(EXPOSED);
      expect(varyOtherThanAccept(answer.headers), what).toBe('Origin');
    }
    for (const [what, answer] of [...Object.entries(refused), ...Object.entries(none)]) {
      // Served exactly as usual (never a 500), only without the CORS headers.
      expect(String(answer.status), what).toBe(what.split(' ')[0]);
      expect(corsHeadersOf(answer.headers), what).toEqual({});
      expect(varyOtherThanAccept(answer.headers), what).toBe('Origin');
    }
    expect(JSON.parse(refused[200].text).results).toHaveLength(1);
  });

  it("on a route's 5xx", async () => {
    const answer = await call(broken.baseUrl, '/grants-api?limit=1', { origin: ALLOWED });
    expect(answer.status).toBeGreaterThanOrEqual(500);
    expect(JSON.parse(answer.text).error.request_id).toBe(answer.headers.get('x-request-id'));
    expect(answer.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(answer.headers.get('access-control-expose-headers')).toBe(EXPOSED);
    const refused = await call(broken.baseUrl, '/grants-api?limit=1', { origin: DISALLOWED });
    expect(refused.status).toBe(answer.status);
    expect(corsHeadersOf(refused.headers)).toEqual({});
  });

  it("on the server's answer to a request Node cannot parse", async () => {
    for (const [baseUrl, origin, expected] of [
      [api.baseUrl, DISALLOWED, '*'],
      [listed.baseUrl, ALLOWED, ALLOWED],
      [listed.baseUrl, DISALLOWED, undefined],
    ] as const) {
      const answer = await rawHttp(baseUrl, {
        method: 'GET',
        target: '/functions/v1/grants-api?a=\u0001',
        headers: [
          ['Host', 'localhost'],
          ['Origin', origin],
        ],
      });
      expect(answer.status, `${baseUrl} ${origin}`).toBe(400);
      expect(JSON.parse(answer.body).error.code).toBe('INVALID_PARAMETER');
      expect(answer.headers['access-control-allow-origin'], `${baseUrl} ${origin}`).toEqual(expected === undefined ? undefined : [expected]);
    }
  });
});
