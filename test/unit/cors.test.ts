import { describe, expect, it } from 'vitest';
import {
  ANY_ORIGIN,
  allowedMethods,
  allowedOriginFor,
  CORS_EXPOSED_HEADERS,
  checkCorsOrigins,
  corsResponseHeaders,
  originHeaderOf,
  parseCorsOrigins,
  preflightHeaders,
  withCorsHeaders,
} from '../../lambdas/http/cors';
import { originInRawRequest } from '../../local/http-server';

const LIST = ['https://app.example.org', 'http://localhost:5173'] as const;

describe('CORS decisions', () => {
  it('allows any origin with *, and a request without Origin too', () => {
    expect(allowedOriginFor(ANY_ORIGIN, 'https://anything.example')).toBe('*');
    expect(allowedOriginFor(ANY_ORIGIN, undefined)).toBe('*');
    expect(corsResponseHeaders(ANY_ORIGIN, undefined)).toEqual({
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers':
        'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After, Content-Disposition, X-Total-Count, X-Export-Rows, X-Export-Complete, X-Export-Next-Offset, X-Export-Next-Cursor, X-Export-Degraded',
    });
  });

  it('echoes a listed origin exactly, with Vary: Origin, and gives any other origin no CORS header', () => {
    expect(allowedOriginFor(LIST, 'http://localhost:5173')).toBe('http://localhost:5173');
    expect(corsResponseHeaders(LIST, 'https://app.example.org')).toEqual({
      'Access-Control-Allow-Origin': 'https://app.example.org',
      'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', '),
      Vary: 'Origin',
    });
    for (const other of [
      'https://evil.example',
      'https://app.example.org.evil.example',
      'https://APP.example.org',
      'https://app.example.org/',
      'null',
      '',
      undefined,
    ]) {
      expect(allowedOriginFor(LIST, other), String(other)).toBeNull();
      expect(corsResponseHeaders(LIST, other), String(other)).toEqual({ Vary: 'Origin' });
      expect(preflightHeaders(LIST, other, ['GET']), String(other)).toEqual({ Vary: 'Origin' });
    }
  });

  it('answers a preflight with the resource methods plus OPTIONS, the request headers clients send, and a max age', () => {
    expect(preflightHeaders(LIST, 'https://app.example.org', ['POST'])).toEqual({
      'Access-Control-Allow-Origin': 'https://app.example.org',
      'Access-Control-Allow-Methods': 'POST, OPTIONS',
      'Access-Control-Allow-Headers': 'Authorization, Content-Type, Accept, Accept-Language, X-Requested-With, Idempotency-Key',
      'Access-Control-Max-Age': '7200',
      Vary: 'Origin',
    });
    expect(allowedMethods(['get', 'GET', 'POST'])).toEqual(['GET', 'POST', 'OPTIONS']);
    expect(preflightHeaders(ANY_ORIGIN, undefined, ['GET'])['Access-Control-Allow-Origin']).toBe('*');
  });

  it('reads the Origin header whatever its case, and merges Vary instead of replacing it', () => {
    expect(originHeaderOf({ origin: 'https://a.example' })).toBe('https://a.example');
    expect(originHeaderOf({ ORIGIN: 'https://a.example' })).toBe('https://a.example');
    expect(originHeaderOf(null)).toBeUndefined();
    expect(withCorsHeaders({ Vary: 'Accept', 'access-control-allow-origin': 'x' }, LIST, 'https://app.example.org')).toEqual({
      Vary: 'Accept, Origin',
      'Access-Control-Allow-Origin': 'https://app.example.org',
      'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', '),
    });
    expect(withCorsHeaders({ Vary: 'Origin' }, LIST, 'https://app.example.org').Vary).toBe('Origin');
  });

  it('finds the Origin of a request Node could not parse in its raw bytes, when it is there', () => {
    expect(originInRawRequest(Buffer.from('GET /a\u0001 HTTP/1.1\r\nHost: x\r\nOrigin: https://app.example.org\r\n\r\n', 'latin1'))).toBe(
      'https://app.example.org',
    );
    expect(originInRawRequest(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'))).toBeUndefined();
    expect(originInRawRequest(undefined)).toBeUndefined();
  });
});

describe('the allowed origins', () => {
  it('parse from a JSON array or a comma-separated list, and default to any origin', () => {
    expect(parseCorsOrigins(undefined, 'x')).toEqual(['*']);
    expect(parseCorsOrigins('  ', 'x')).toEqual(['*']);
    expect(parseCorsOrigins('*', 'x')).toEqual(['*']);
    expect(parseCorsOrigins('["https://a.example","http://127.0.0.1:8080"]', 'x')).toEqual(['https://a.example', 'http://127.0.0.1:8080']);
    expect(parseCorsOrigins('https://a.example, https://b.example:8443', 'x')).toEqual(['https://a.example', 'https://b.example:8443']);
    expect(parseCorsOrigins('https://a.example,https://a.example', 'x')).toEqual(['https://a.example']);
  });

  it('refuse what a browser never sends as an Origin, naming where the value came from', () => {
    expect(() => parseCorsOrigins('https://a.example/', '--cors-origins')).toThrow(/--cors-origins: "https:\/\/a.example\/" is not an origin/);
    expect(() => parseCorsOrigins('https://a.example/app', 'x')).toThrow(/not an origin/);
    expect(() => parseCorsOrigins('https://*.example.org', 'x')).toThrow(/not an origin/);
    expect(() => parseCorsOrigins('a.example', 'x')).toThrow(/not an origin/);
    expect(() => parseCorsOrigins('*,https://a.example', 'x')).toThrow(/cannot be combined/);
    expect(() => parseCorsOrigins('[1]', 'x')).toThrow(/not an origin/);
    expect(() => parseCorsOrigins('["https://a.example"', 'x')).toThrow(/not a JSON array/);
    expect(() => checkCorsOrigins([], 'Api: corsOrigins')).toThrow(/Api: corsOrigins: list at least one origin/);
  });
});
