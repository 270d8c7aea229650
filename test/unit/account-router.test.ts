import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildAccountOpenApiDocument } from '../../lambdas/http/account-openapi';
import { CreateKeyBody, RotateKeyBody, UsageQuerySchema } from '../../lambdas/http/account-operations';
import { parseBody, parseQuery } from '../../lambdas/http/account-request';
import { accountPathOf, authorizationValues, matchAccountOperation } from '../../lambdas/http/account-router';
import type { ApiEvent } from '../../lambdas/http/api-gateway';
import { compilePathTemplate } from '../../lambdas/http/path-template';
import { serviceErrorOf } from '../support/service-errors';

const event = (fields: Partial<ApiEvent>): ApiEvent => ({ headers: {}, multiValueHeaders: {}, body: null, isBase64Encoded: false, ...fields }) as ApiEvent;

describe('accountPathOf', () => {
  it('reads the path from /account on, behind any base path, or from the proxy parameter', () => {
    expect(accountPathOf({ path: '/functions/v1/account/keys', pathParameters: null })).toBe('/account/keys');
    expect(accountPathOf({ path: '/account', pathParameters: null })).toBe('/account');
    expect(accountPathOf({ path: '/v1/account/keys/k/rotate', pathParameters: { proxy: 'keys/k/rotate' } })).toBe('/account/keys/k/rotate');
    expect(accountPathOf({ path: '/functions/v1/accounts', pathParameters: null })).toBeNull();
  });
});

describe('compilePathTemplate', () => {
  it('matches one segment per placeholder and literal pieces only as themselves', () => {
    const { pattern, paramNames } = compilePathTemplate('/account/keys/{key_id}/requests');
    expect(paramNames).toEqual(['key_id']);
    expect('/account/keys/k1/requests/'.match(pattern)?.[1]).toBe('k1');
    expect(pattern.test('/account/keys/a/b/requests')).toBe(false);
    expect(compilePathTemplate('/openapi.json').pattern.test('/openapiXjson')).toBe(false);
  });
});

describe('matchAccountOperation', () => {
  it('finds the operation and its path parameters, decoded', () => {
    const { operation, params } = matchAccountOperation('POST', '/account/keys/key_a%2Db/rotate');
    expect(operation.operationId).toBe('rotateKey');
    expect(params).toEqual({ key_id: 'key_a-b' });
    expect(matchAccountOperation('GET', '/account/keys/').operation.operationId).toBe('listKeys');
  });

  it('answers 404 for an unknown path and 405, with Allow, for a known one with another method', () => {
    expect(serviceErrorOf(() => matchAccountOperation('GET', '/account/keys/k')).status).toBe(404);
    expect(serviceErrorOf(() => matchAccountOperation('GET', null)).status).toBe(404);
    const wrong = serviceErrorOf(() => matchAccountOperation('DELETE', '/account/keys'));
    expect(wrong.status).toBe(405);
    expect(wrong.headers).toEqual({ Allow: 'GET, POST, OPTIONS' });
  });
});

describe('authorizationValues', () => {
  it('keeps every value of the header, whatever its case', () => {
    expect(authorizationValues({ headers: {}, multiValueHeaders: { authorization: ['Bearer a', 'Bearer b'] } })).toEqual(['Bearer a', 'Bearer b']);
    expect(authorizationValues({ headers: { AUTHORIZATION: 'Bearer c' }, multiValueHeaders: {} })).toEqual(['Bearer c']);
    expect(authorizationValues({ headers: {}, multiValueHeaders: {} })).toBeUndefined();
  });
});

describe('parseBody', () => {
  it('trims a label and names unknown fields with a suggestion', () => {
    expect(parseBody(event({ body: '{"label":"  ci  "}' }), CreateKeyBody, '{}')).toEqual({ label: 'ci' });
    const unknown = serviceErrorOf(() => parseBody(event({ body: '{"label":"ci","lable":"x"}' }), CreateKeyBody, '{}'));
    expect(unknown.details).toEqual([{ field: 'lable', issue: 'is not a field of the request body; did you mean label?' }]);
    expect(serviceErrorOf(() => parseBody(event({ body: '{}' }), CreateKeyBody, '{}')).details).toEqual([{ field: 'label', issue: 'is required' }]);
  });

  it('takes a missing body for an all-optional schema, and refuses a body where none is taken', () => {
    expect(parseBody(event({ body: null }), RotateKeyBody, '{}')).toEqual({});
    expect(parseBody(event({ body: '{"grace_hours":0}' }), RotateKeyBody, '{}')).toEqual({ grace_hours: 0 });
    expect(serviceErrorOf(() => parseBody(event({ body: '{"grace_hours":"2"}' }), RotateKeyBody, '{}')).details).toEqual([
      { field: 'grace_hours', issue: 'must be an integer' },
    ]);
    expect(serviceErrorOf(() => parseBody(event({ body: '{"x":1}' }), undefined, '{}')).details?.[0]?.field).toBe('x');
    expect(parseBody(event({ body: '' }), undefined, '{}')).toEqual({});
  });
});

describe('parseQuery', () => {
  it('refuses repeated and unknown parameters and bad enum values', () => {
    const repeated = serviceErrorOf(() => parseQuery(event({ multiValueQueryStringParameters: { days: ['1', '2'] } }), UsageQuerySchema));
    expect(repeated.details).toEqual([{ field: 'days', issue: 'is given more than once' }]);
    const unknown = serviceErrorOf(() => parseQuery(event({ queryStringParameters: { granularty: 'day' } }), UsageQuerySchema));
    expect(unknown.details?.[0]).toEqual({ field: 'granularty', issue: 'is not a parameter of this endpoint; did you mean granularity?' });
    expect(serviceErrorOf(() => parseQuery(event({ queryStringParameters: { granularity: 'week' } }), UsageQuerySchema)).details).toEqual([
      { field: 'granularity', issue: 'must be day or hour' },
    ]);
    expect(parseQuery(event({ queryStringParameters: { granularity: 'hour', days: '3' } }), UsageQuerySchema)).toEqual({ granularity: 'hour', days: '3' });
    expect(serviceErrorOf(() => parseQuery(event({ queryStringParameters: { a: '1' } }), undefined)).details?.[0]?.field).toBe('a');
  });
});

describe('docs/account-api.json', () => {
  it('is the document the operations make now (run `npm run openapi:account` after changing them)', () => {
    const committed = JSON.parse(readFileSync(new URL('../../docs/account-api.json', import.meta.url), 'utf8'));
    expect(committed).toEqual(buildAccountOpenApiDocument());
  });

  it('names the ID token as the bearer scheme and is apart from the public document', () => {
    const document = buildAccountOpenApiDocument() as { components: { securitySchemes: Record<string, unknown> }; paths: Record<string, unknown> };
    expect(document.components.securitySchemes.idToken).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    const publicDocument = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, unknown> };
    expect(Object.keys(publicDocument.paths).filter((path) => path.startsWith('/account'))).toEqual([]);
    expect(Object.keys(document.paths)).toContain('/account/keys/{key_id}/requests');
  });
});
