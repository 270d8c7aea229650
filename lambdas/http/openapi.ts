import * as z from 'zod/mini';
import { MatchRequestSchema } from '../core/matching/match-request';
import { LIMITS, LIST_PARAMS } from '../core/query/list-query';
import { SEMANTIC_SEARCH_LIMITS, SEMANTIC_SEARCH_TYPES } from '../core/query/semantic-search-request';
import { NON_BLANK_PATTERN } from '../core/query/wire-patterns';
import type { ResourceKind } from '../core/records';
import { type ApiEvent, type ApiResult, apiRoute, jsonResult } from './api-gateway';
import { commonResponses, errorResponse, okResponse, REQUEST_ID_HEADERS, ref } from './openapi-components';
import { CSV_EXPORT_HEADERS, csvDescription, csvExample } from './openapi-csv';
import { listExamples, RECORD_EXAMPLES, SEMANTIC_SEARCH_EXAMPLE } from './openapi-examples';
import { openApiIntroduction } from './openapi-introduction';
import { matchGrantsOperation } from './openapi-match';
import { listParameter } from './openapi-parameters';
import { componentSchemas, exactRecord } from './openapi-schemas';
import { webhooksSection } from './openapi-webhooks';

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas and parameter specs the handlers
 * validate with. docs/openapi.json is this output; a test fails when the committed copy is stale,
 * and every response the integration suite gets is validated against it (test/support).
 */

const RESOURCES: { kind: ResourceKind; path: string; schema: string; plural: string; total: number }[] = [
  { kind: 'grant', path: '/grants-api', schema: 'Grant', plural: 'grants', total: 804 },
  { kind: 'contract', path: '/contracts-api', schema: 'Contract', plural: 'contracts', total: 29 },
  { kind: 'funder', path: '/funders-api', schema: 'Funder', plural: 'funders', total: 347 },
];

const LIST_SEARCH_UNAVAILABLE =
  'SEARCH_UNAVAILABLE: the search index is unreachable, or search_mode=semantic while the embedding model is, or while the overloaded search service sheds semantic work (with Retry-After). Hybrid search then answers 200 with the keyword matches alone and meta.degraded; keyword search and get-by-id keep working';

function listOperation(kind: ResourceKind, schema: string, plural: string, total: number) {
  return {
    operationId: `list${schema}s`,
    summary: `List ${plural} with filters, sorting, keyword, semantic or hybrid search, and offset or cursor pagination`,
    tags: [plural],
    parameters: LIST_PARAMS[kind].map(listParameter),
    responses: {
      200: okResponse(
        `A page of ${plural}, or only the total when count_only=true, or with format=csv (or Accept: text/csv) a CSV export`,
        {
          'application/json': {
            schema: { oneOf: [ref(`${schema}Page`), ref('CountEnvelope')] },
            examples: listExamples(kind, total),
          },
          'text/csv': { schema: { type: 'string', description: csvDescription(kind) }, example: csvExample(kind) },
        },
        CSV_EXPORT_HEADERS,
      ),
      ...commonResponses({
        400: 'A parameter is malformed; error.details names each field (a cursor that is malformed, altered, expired, made for another query, or sent with an offset names cursor)',
        503: LIST_SEARCH_UNAVAILABLE,
      }),
    },
  };
}

function semanticSearchOperation() {
  const types = Object.keys(SEMANTIC_SEARCH_TYPES);
  return {
    operationId: 'semanticSearch',
    summary: 'The open grants and contracts closest in meaning to a plain-language query',
    description:
      "Embeds the query once and returns the best semantic matches above the minimum-relevance floor, across grants and contracts unless type names one. Awarded records are left out, as in the list endpoints' default. A query with nothing above the floor returns results: [] and count 0.",
    tags: ['search'],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['query'],
            properties: {
              query: {
                type: 'string',
                minLength: 1,
                maxLength: LIMITS.searchMaxLength,
                pattern: NON_BLANK_PATTERN,
                description: 'What to look for, in plain language',
              },
              type: { type: ['string', 'null'], enum: [...types, null], description: 'Search only this kind; both when omitted or null' },
              limit: {
                type: ['integer', 'null'],
                minimum: 1,
                maximum: SEMANTIC_SEARCH_LIMITS.max,
                default: SEMANTIC_SEARCH_LIMITS.default,
                description: 'The default when omitted or null',
              },
            },
            additionalProperties: false,
          },
          examples: {
            both: { value: { query: 'mental health support for first responders' } },
            contracts: { value: { query: 'janitorial services', type: 'contracts', limit: 20 } },
          },
        },
      },
    },
    responses: {
      200: okResponse('The matches, best first (ties by id)', {
        'application/json': { schema: ref('SemanticSearchResponse'), examples: { grants: { value: SEMANTIC_SEARCH_EXAMPLE } } },
      }),
      ...commonResponses({ 400: 'The body is not JSON, or a field is missing, of the wrong type or out of range; error.details names it' }),
    },
  };
}

function getOperation(kind: ResourceKind, schema: string, plural: string) {
  return {
    operationId: `get${schema}`,
    summary: `One ${schema.toLowerCase()} by id (the record itself, no envelope)`,
    tags: [plural],
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' }, example: RECORD_EXAMPLES[kind].id }],
    responses: {
      200: okResponse(`The ${schema.toLowerCase()}`, {
        'application/json': { schema: exactRecord(schema), examples: { record: { value: RECORD_EXAMPLES[kind] } } },
      }),
      ...commonResponses({
        400: 'The id is not a UUID',
        404: `NOT_FOUND: no ${schema.toLowerCase()} has this id`,
        503: 'SEARCH_UNAVAILABLE is never sent here: get-by-id reads the record store, not the search index',
      }),
    },
  };
}

function openApiOperation() {
  return {
    operationId: 'getOpenApiDocument',
    summary: 'This document (public, no key)',
    tags: ['reference'],
    security: [],
    responses: {
      200: {
        description: 'The OpenAPI 3.1 document',
        headers: REQUEST_ID_HEADERS,
        content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'paths'] } } },
      },
      // Public: no key, so no 401, 403 or quota; only the stage-wide throttle and the function itself can refuse it.
      429: errorResponse('RATE_LIMITED: the stage-wide request rate was exceeded (API Gateway throttling); retry shortly', ['RATE_LIMITED']),
      500: errorResponse('INTERNAL: an unexpected error, logged with the request id', ['INTERNAL']),
    },
  };
}

export function buildOpenApiDocument(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const { kind, path, schema, plural, total } of RESOURCES) {
    paths[path] = { get: listOperation(kind, schema, plural, total) };
    paths[`${path}/{id}`] = { get: getOperation(kind, schema, plural) };
  }
  paths['/semantic-search'] = { post: semanticSearchOperation() };
  const strip = ({ $schema: _omit, ...rest }: Record<string, unknown>) => rest;
  paths['/match-grants-api'] = { post: matchGrantsOperation(strip(z.toJSONSchema(MatchRequestSchema, { target: 'draft-2020-12', io: 'input' }))) };
  paths['/openapi.json'] = { get: openApiOperation() };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Grants, Contracts and Funders Data Service',
      version: '1.0.0',
      description: openApiIntroduction(),
    },
    servers: [{ url: '/functions/v1' }],
    security: [{ bearerAuth: [] }],
    paths,
    webhooks: webhooksSection(),
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' } },
      schemas: componentSchemas(),
    },
  };
}

/** GET /openapi.json (public): the document, built once per cold start. */
export function openApiRoute(): (event: ApiEvent) => Promise<ApiResult> {
  let document: Record<string, unknown> | undefined;
  return apiRoute(async () => {
    document ??= buildOpenApiDocument();
    return jsonResult(200, document);
  });
}
