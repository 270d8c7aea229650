import * as z from 'zod/mini';
import { apiRoute, jsonResult, type ApiEvent, type ApiResult } from './api-gateway';
import { ERROR_CODES } from '../core/errors';
import { MatchRequestSchema } from '../core/matching/match-request';
import { LIMITS, LIST_PARAMS } from '../core/query/list-query';
import { SEMANTIC_SEARCH_LIMITS, SEMANTIC_SEARCH_TYPES } from '../core/query/semantic-search-request';
import { paramJsonSchema } from '../core/query/params';
import { ContractSchema, FunderSchema, GrantSchema, type ResourceKind } from '../core/records';
import { ACCESS_RESPONSES, errorResponse, RATE_LIMIT_HEADERS, ref, SEARCH_UNAVAILABLE } from './openapi-components';
import { MATCH_RESPONSE, matchGrantsOperation } from './openapi-match';

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas and parameter specs the handlers
 * validate with. docs/openapi.json is this output; a test fails when the committed copy is stale.
 */

const RESOURCES: { kind: ResourceKind; path: string; schema: string; plural: string }[] = [
  { kind: 'grant', path: '/grants-api', schema: 'Grant', plural: 'grants' },
  { kind: 'contract', path: '/contracts-api', schema: 'Contract', plural: 'contracts' },
  { kind: 'funder', path: '/funders-api', schema: 'Funder', plural: 'funders' },
];

/** In semantic and hybrid modes (DESIGN.md section 3). */
const RELEVANCE = {
  type: 'number',
  minimum: 0,
  maximum: 1,
  description: 'Only in semantic and hybrid modes. semantic: the cosine similarity of the query and the record on the embedder\'s calibrated scale: 0.5 at the minimum-relevance floor (nothing under it is returned), 1 at the embedder\'s upper reference (a match as close as catalogue records get), linear between, so 0.9 is a very close match. hybrid: 0.7 x the semantic relevance (0 when the record is not a semantic match) + 0.3 x the record\'s BM25 relative to the query\'s best keyword match (0 when the words do not match it): 1 is the best keyword match at the top of the semantic scale, 0.9 a very close match in meaning that holds the words about as well as any record, and a record only the words find scores at most 0.3.',
} as const;

/** Deep paging (issue 22 item 8): the cursor a list page links the next one with. */
const NEXT_CURSOR = {
  type: 'string',
  description: 'Present when more results follow this page (absent on the last page): pass it as cursor, with the same parameters (limit may change) and no offset, for the page right after this one, in the same order and with no offset cap. Opaque and signed; valid for 24 hours. On a page reached by cursor, offset is the number of results the walk returned before it',
};

const withRelevance = (schema: string) => ({ allOf: [ref(schema), { type: 'object', properties: { relevance: RELEVANCE } }] });

const LIST_SEARCH_UNAVAILABLE = errorResponse('SEARCH_UNAVAILABLE: the search index is unreachable, or search_mode=semantic while the embedding model is. Hybrid search then answers 200 with the keyword matches alone and meta.degraded; keyword search and get-by-id keep working');

function listOperation(kind: ResourceKind, schema: string, plural: string) {
  return {
    operationId: `list${schema}s`,
    summary: `List ${plural} with filters, sorting, keyword, semantic or hybrid search, and offset or cursor pagination`,
    tags: [plural],
    parameters: LIST_PARAMS[kind].map((spec) => ({
      name: spec.name,
      in: 'query',
      required: false,
      description: spec.description,
      ...(spec.deprecated ? { deprecated: true } : {}),
      schema: { ...paramJsonSchema(spec.kind), ...(spec.default !== undefined ? { default: spec.default } : {}) },
    })),
    responses: {
      200: {
        description: `A page of ${plural}, or only the total when count_only=true`,
        headers: RATE_LIMIT_HEADERS,
        content: {
          'application/json': {
            schema: { oneOf: [{ ...ref('ListEnvelope'), properties: { results: { type: 'array', items: withRelevance(schema) } } }, ref('CountEnvelope')] },
          },
        },
      },
      400: errorResponse('A parameter is malformed; error.details names each field (a cursor that is malformed, altered, expired, made for another query, or sent with an offset names cursor)'),
      ...ACCESS_RESPONSES,
      500: errorResponse('Internal error'),
      503: LIST_SEARCH_UNAVAILABLE,
    },
  };
}

function semanticSearchOperation() {
  const types = Object.keys(SEMANTIC_SEARCH_TYPES);
  return {
    operationId: 'semanticSearch',
    summary: 'The open grants and contracts closest in meaning to a plain-language query',
    description: 'Embeds the query once and returns the best semantic matches above the minimum-relevance floor, across grants and contracts unless type names one. Awarded records are left out, as in the list endpoints\' default. A query with nothing above the floor returns results: [] and count 0.',
    tags: ['search'],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['query'],
            properties: {
              query: { type: 'string', minLength: 1, maxLength: LIMITS.searchMaxLength, description: 'What to look for, in plain language' },
              type: { type: 'string', enum: types, description: 'Search only this kind; both when omitted' },
              limit: { type: 'integer', minimum: 1, maximum: SEMANTIC_SEARCH_LIMITS.max, default: SEMANTIC_SEARCH_LIMITS.default },
            },
          },
          examples: { both: { value: { query: 'mental health support for first responders' } }, contracts: { value: { query: 'janitorial services', type: 'contracts', limit: 20 } } },
        },
      },
    },
    responses: {
      200: {
        description: 'The matches, best first (ties by id)',
        headers: RATE_LIMIT_HEADERS,
        content: { 'application/json': { schema: ref('SemanticSearchResponse') } },
      },
      400: errorResponse('The body is not JSON, or a field is missing, of the wrong type or out of range; error.details names it'),
      ...ACCESS_RESPONSES,
      500: errorResponse('Internal error'),
      503: SEARCH_UNAVAILABLE,
    },
  };
}

function getOperation(schema: string, plural: string) {
  return {
    operationId: `get${schema}`,
    summary: `One ${schema.toLowerCase()} by id (the record itself, no envelope)`,
    tags: [plural],
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
    responses: {
      200: { description: `The ${schema.toLowerCase()}`, headers: RATE_LIMIT_HEADERS, content: { 'application/json': { schema: ref(schema) } } },
      400: errorResponse('The id is not a UUID'),
      ...ACCESS_RESPONSES,
      404: errorResponse(`No ${schema.toLowerCase()} has this id`),
    },
  };
}

const meta = {
  type: 'object',
  required: ['response_time_ms', 'sort_by', 'order'],
  properties: {
    response_time_ms: { type: 'number' },
    sort_by: { type: 'string', description: 'The sort applied; relevance when a search term ranks the results' },
    order: { type: 'string', enum: ['asc', 'desc'] },
    degraded: {
      type: 'boolean',
      const: true,
      description: 'Present only when the answer is degraded: a hybrid search whose query the embedding model could not embed, answered with the keyword matches alone (relevance at most 0.3)',
    },
    degraded_reason: { type: 'string', description: 'Why the answer is degraded, for people; present with degraded' },
  },
};

export function buildOpenApiDocument(): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const { kind, path, schema, plural } of RESOURCES) {
    paths[path] = { get: listOperation(kind, schema, plural) };
    paths[`${path}/{id}`] = { get: getOperation(schema, plural) };
  }
  paths['/semantic-search'] = { post: semanticSearchOperation() };
  const toSchema = (s: z.ZodMiniType) => z.toJSONSchema(s, { target: 'draft-2020-12' });
  const strip = ({ $schema: _omit, ...rest }: Record<string, unknown>) => rest;
  paths['/match-grants-api'] = { post: matchGrantsOperation(strip(z.toJSONSchema(MatchRequestSchema, { target: 'draft-2020-12', io: 'input' }))) };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Grants, Contracts and Funders Data Service',
      version: '1.0.0',
      description: 'JSON API over grants, government contracts and funders. Errors use one body: {"error": {"code", "message", "details"}}.',
    },
    servers: [{ url: '/functions/v1' }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' } },
      schemas: {
        Grant: strip(toSchema(GrantSchema)),
        Contract: strip(toSchema(ContractSchema)),
        Funder: strip(toSchema(FunderSchema)),
        ListEnvelope: {
          type: 'object',
          required: ['results', 'pagination', 'meta'],
          properties: {
            results: { type: 'array' },
            pagination: {
              type: 'object',
              required: ['total', 'limit', 'offset', 'returned'],
              properties: {
                total: { type: 'integer' },
                limit: { type: 'integer', minimum: 1, maximum: LIMITS.pageMax },
                offset: { type: 'integer', minimum: 0 },
                returned: { type: 'integer' },
                // Deep paging (issue 22 item 8): lambdas/core/query/list-cursor.ts.
                next_cursor: NEXT_CURSOR,
              },
            },
            meta,
          },
        },
        SemanticSearchResponse: {
          type: 'object',
          required: ['results', 'count', 'meta'],
          properties: {
            results: {
              type: 'array',
              items: {
                oneOf: [
                  { allOf: [ref('Grant'), { type: 'object', required: ['type', 'relevance'], properties: { type: { const: 'grant' }, relevance: RELEVANCE } }] },
                  { allOf: [ref('Contract'), { type: 'object', required: ['type', 'relevance'], properties: { type: { const: 'contract' }, relevance: RELEVANCE } }] },
                ],
              },
            },
            count: { type: 'integer', description: 'Number of results returned' },
            meta: {
              type: 'object',
              required: ['response_time_ms', 'types', 'limit', 'min_relevance'],
              properties: {
                response_time_ms: { type: 'number' },
                types: { type: 'array', items: { type: 'string', enum: ['grant', 'contract'] }, description: 'The kinds searched' },
                limit: { type: 'integer' },
                min_relevance: { type: 'number', description: 'The relevance of the minimum-relevance floor (0.5 for every embedder): no result has a lower relevance' },
              },
            },
          },
        },
        MatchResponse: MATCH_RESPONSE,
        CountEnvelope: {
          type: 'object',
          required: ['pagination', 'meta'],
          properties: { pagination: { type: 'object', required: ['total'], properties: { total: { type: 'integer' } } }, meta },
        },
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string', enum: [...ERROR_CODES] },
                message: { type: 'string' },
                details: {
                  type: 'array',
                  items: { type: 'object', required: ['field', 'issue'], properties: { field: { type: 'string' }, issue: { type: 'string' } } },
                },
                request_id: { type: 'string', description: 'The request\'s id, also sent as the X-Request-Id header: quote it when asking about a failed request.' },
              },
            },
          },
        },
      },
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
