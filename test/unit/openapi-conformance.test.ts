import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../lambdas/http/openapi';
import { CONTRACT_EXAMPLE, GRANT_EXAMPLE } from '../../lambdas/http/openapi-examples';
import { OpenApiConformance } from '../support/openapi-conformance';

const json = new Headers({ 'content-type': 'application/json; charset=utf-8' });
const conformance = new OpenApiConformance(buildOpenApiDocument() as never);
const problems = (method: string, path: string, status: number, body: unknown) => conformance.problems(method, path, status, json, body);

const meta = { response_time_ms: 1.5, sort_by: 'relevance', order: 'desc' };
const page = (results: unknown[]) => ({
  results,
  pagination: { total: results.length, total_relation: 'eq' as const, limit: 20, offset: 0, returned: results.length },
  meta,
});

describe('the OpenAPI document validates what the service sends', () => {
  it('a list result with relevance, and a count envelope, each match exactly one branch', () => {
    expect(problems('GET', '/functions/v1/grants-api?search=x', 200, page([{ ...GRANT_EXAMPLE, relevance: 0.8 }]))).toEqual([]);
    expect(problems('GET', '/functions/v1/grants-api?count_only=true', 200, { pagination: { total: 3, total_relation: 'gte' }, meta })).toEqual([]);
  });

  it('refuses a field no schema names, in a record, an envelope or an error', () => {
    expect(problems('GET', '/functions/v1/grants-api', 200, page([{ ...GRANT_EXAMPLE, score: 1 }])).join()).toMatch(/does not match the schema/);
    expect(problems('GET', '/functions/v1/grants-api', 200, { ...page([]), total: 0 }).join()).toMatch(/does not match the schema/);
    expect(problems('GET', '/functions/v1/grants-api', 200, { ...page([]), pagination: { ...page([]).pagination, total_relation: 'approx' } }).join()).toMatch(
      /does not match the schema/,
    );
    expect(problems('GET', '/functions/v1/grants-api/06ac5267-9605-5c94-9f2b-d47a37b0b098', 200, { ...GRANT_EXAMPLE, relevance: 0.8 }).join()).toMatch(
      /does not match the schema/,
    );
    expect(problems('GET', '/functions/v1/grants-api', 400, { error: { code: 'INVALID_PARAMETER', message: 'x', stack: 'at' } }).join()).toMatch(
      /does not match the schema/,
    );
  });

  it('refuses a count envelope that carries results, and a page without them', () => {
    expect(problems('GET', '/functions/v1/grants-api', 200, { results: [], pagination: { total: 0 }, meta }).join()).toMatch(/does not match the schema/);
    expect(problems('GET', '/functions/v1/grants-api', 200, { pagination: { total: 0, limit: 20, offset: 0, returned: 0 }, meta }).join()).toMatch(
      /does not match the schema/,
    );
  });

  it('refuses a record of the wrong kind and a semantic result without its type', () => {
    expect(problems('GET', '/functions/v1/grants-api', 200, page([CONTRACT_EXAMPLE])).join()).toMatch(/does not match the schema/);
    const search = (item: unknown) => ({ results: [item], count: 1, meta: { response_time_ms: 1, types: ['grant'], limit: 10, min_relevance: 0.5 } });
    expect(problems('POST', '/functions/v1/semantic-search', 200, search({ ...GRANT_EXAMPLE, type: 'grant', relevance: 0.7 }))).toEqual([]);
    expect(problems('POST', '/functions/v1/semantic-search', 200, search({ ...GRANT_EXAMPLE, relevance: 0.7 })).join()).toMatch(/does not match the schema/);
    expect(problems('POST', '/functions/v1/semantic-search', 200, search({ ...GRANT_EXAMPLE, type: 'contract', relevance: 0.7 })).join()).toMatch(
      /does not match the schema/,
    );
  });

  it('names an undocumented status or content type', () => {
    expect(problems('GET', '/functions/v1/grants-api', 418, {}).join()).toMatch(/status 418 is not documented/);
    expect(conformance.problems('GET', '/functions/v1/grants-api', 200, new Headers({ 'content-type': 'text/plain' }), 'x').join()).toMatch(
      /content type text\/plain is not documented/,
    );
  });
});

describe('every example in the document', () => {
  const document = buildOpenApiDocument() as {
    paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: unknown }> }> }> }>>;
  };
  const cases = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, operation]) =>
      Object.entries(operation.responses).flatMap(([status, response]) =>
        Object.entries(response.content?.['application/json']?.examples ?? {}).map(([name, example]) => ({
          path,
          method,
          status: Number(status),
          name,
          value: example.value,
        })),
      ),
    ),
  );

  it("exists for every operation's 200 and every error it documents", () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (path === '/openapi.json' && status === '200') continue; // the document itself
          expect(Object.keys(response.content?.['application/json']?.examples ?? {}), `${method} ${path} ${status}`).not.toEqual([]);
        }
      }
    }
  });

  it.each(cases)('validates: $method $path $status $name', ({ path, method, status, value }) => {
    const concrete = path.replace('{id}', '06ac5267-9605-5c94-9f2b-d47a37b0b098');
    expect(conformance.problems(method, `/functions/v1${concrete}`, status, json, value)).toEqual([]);
  });
});
