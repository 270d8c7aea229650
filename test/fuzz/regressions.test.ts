import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseListQuery } from '../../lambdas/core/query/list-query';
import { type ApiEvent, queryParams } from '../../lambdas/http/api-gateway';
import { requestUrl } from '../../local/http-server';
import { startTestApi, type TestApi } from '../support/api-server';
import { type RawHttpRequest, rawHttp } from '../support/raw-http';

/**
 * One test per failure the endpoint fuzzer (test/fuzz/endpoints.fuzz.test.ts) found, each fixed
 * in the service: they pin the fix with the smallest request that showed it.
 */

let api: TestApi;
let origin: string;
beforeAll(async () => {
  api = await startTestApi({ seed: { funders: 10, grants: 40, contracts: 20, awardedGrants: 5, awardedContracts: 5 } });
  origin = new URL(api.baseUrl).origin;
});
afterAll(async () => api?.close());

const send = (request: Omit<RawHttpRequest, 'headers'> & { headers?: RawHttpRequest['headers'] }) => rawHttp(origin, { headers: [], ...request });
const withKey = (): [string, string] => ['Authorization', `Bearer ${api.keys.developer}`];

function expectJsonError(res: { status: number; headers: Record<string, string[]>; body: string }, status: number, code: string): void {
  expect(res.status, res.body).toBe(status);
  expect(res.headers['content-type']?.[0]).toMatch(/^application\/json/);
  const body = JSON.parse(res.body);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
}

describe("requests Node's HTTP parser refuses get the JSON error body (it used to answer a bare 400 with no body)", () => {
  it.each<[string, Partial<RawHttpRequest>, number]>([
    ['a control character in a header value', { headers: [['X-Odd', 'a\u0001b']] }, 400],
    ['a NUL in the Authorization header', { headers: [['Authorization', 'Bearer\u0000x']] }, 400],
    ['a space in the request target', { target: '/functions/v1/grants-api?search=a b' }, 400],
    ['a non-ASCII byte in the request target', { target: '/functions/v1/🙂' }, 400],
    ['a method Node does not know', { method: 'FOO' }, 400],
    ['a lower-case method', { method: 'get' }, 400],
    ['a header name with a space', { headers: [['X Y', 'z']] }, 400],
    ['headers over 16 KiB', { headers: [['X-Long', 'v'.repeat(20_000)]] }, 431],
  ])('%s', async (_name, request, status) => {
    const res = await send({ method: 'GET', target: '/functions/v1/grants-api', ...request, headers: [withKey(), ...(request.headers ?? [])] });
    expectJsonError(res, status, 'INVALID_PARAMETER');
  });

  it('answers a malformed HEAD request with the headers only, which an HTTP client can read', async () => {
    const res = await send({ method: 'HEAD', target: '/functions/v1/\u0085', headers: [withKey()] });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']?.[0]).toMatch(/^application\/json/);
    expect(res.body).toBe('');
    // node:http writes the target as Latin-1 (one 0x85 byte); before the fix it failed with "Data after Connection: close".
    const { host, port } = new URL(origin);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: host.split(':')[0],
          port: Number(port),
          method: 'HEAD',
          path: '/functions/v1/\u0085',
          headers: { Authorization: `Bearer ${api.keys.developer}` },
        },
        (r) => {
          r.resume();
          r.on('end', () => resolve(r.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
  });
});

it('answers CONNECT with a JSON 404 (Node used to drop the connection unanswered)', async () => {
  const res = await send({ method: 'CONNECT', target: '/functions/v1/grants-api', headers: [withKey()] });
  expectJsonError(res, 404, 'NOT_FOUND');
});

describe('names of Object.prototype members are ordinary parameter and header names (they used to cause a 500)', () => {
  it.each([
    ['hasOwnProperty=0', ['hasOwnProperty']],
    ['constructor=1', ['constructor']],
    ['__proto__=2', ['__proto__']],
    ['toString=&valueOf=', ['toString', 'valueOf']],
    ['hasOwnProperty=0&hasOwnProperty=1', ['hasOwnProperty']],
  ])('GET /grants-api?%s is a 400 naming them as unknown parameters', async (query, names) => {
    const res = await send({ method: 'GET', target: `/functions/v1/grants-api?${query}&limit=2`, headers: [withKey()] });
    expectJsonError(res, 400, 'INVALID_PARAMETER');
    expect(JSON.parse(res.body).error.details).toEqual(
      names.map((field) => ({ field, issue: expect.stringMatching(/^is not a parameter of the grant list/) })),
    );
    expect(res.headers['x-ratelimit-limit']).toEqual(['-1']);
  });

  it('POST /match-grants-api?hasOwnProperty= is validated as usual', async () => {
    const res = await send({
      method: 'POST',
      target: '/functions/v1/match-grants-api?hasOwnProperty=',
      headers: [withKey(), ['Content-Type', 'application/json']],
      body: '{}',
    });
    expectJsonError(res, 400, 'INVALID_PARAMETER');
    expect(res.headers['x-ratelimit-remaining']).toEqual(['-1']);
  });

  it('headers named __proto__, constructor and hasOwnProperty', async () => {
    const res = await send({
      method: 'GET',
      target: '/functions/v1/funders-api?limit=1',
      headers: [withKey(), ['__proto__', 'x'], ['constructor', 'y'], ['hasOwnProperty', 'z']],
    });
    expect(res.status, res.body).toBe(200);
  });

  it('queryParams keeps them as own entries and leaves the prototype alone', () => {
    const multi = JSON.parse('{"__proto__": ["a"], "constructor": ["b"], "limit": ["5"]}') as Record<string, string[]>;
    const params = queryParams({ multiValueQueryStringParameters: multi, queryStringParameters: { hasOwnProperty: 'c' } } as unknown as ApiEvent);
    expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
    expect(Object.hasOwn(params, '__proto__')).toBe(true);
    expect(params.constructor).toEqual(['b']);
    expect(params.hasOwnProperty).toEqual(['c']);
    expect(() => parseListQuery('grant', params, '2026-01-01')).toThrow(
      expect.objectContaining({
        details: ['__proto__', 'constructor', 'hasOwnProperty'].map((field) => ({
          field,
          issue: expect.stringMatching(/^is not a parameter of the grant list/),
        })),
      }),
    );
  });
});

describe('a request target starting with "//" is a path (resolved against a base it used to throw: a 500)', () => {
  it('resolves "//" and "//host/..." as paths', () => {
    expect(requestUrl('//')?.pathname).toBe('//');
    expect(requestUrl('//localhost/functions/v1/grants-api')?.pathname).toBe('//localhost/functions/v1/grants-api');
    expect(requestUrl('http://example.com/functions/v1/grants-api?limit=1')?.pathname).toBe('/functions/v1/grants-api');
    expect(requestUrl('*')).toBeNull();
  });

  it.each(['//', '//x', '//functions/v1/grants-api', `//${'a'.repeat(300)}`])('GET %s is a JSON 404', async (target) => {
    const res = await send({ method: 'GET', target, headers: [withKey()] });
    expectJsonError(res, 404, 'NOT_FOUND');
  });
});
