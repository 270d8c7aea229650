import * as z from 'zod/mini';
import { apiRoute, jsonResult, type ApiEvent, type ApiResult } from './api-gateway';
import { ERROR_CODES } from '../core/errors';
import { MATCH_LIMITS, MatchRequestSchema } from '../core/matching/match-request';
import { LIMITS, LIST_PARAMS } from '../core/query/list-query';
import { SEMANTIC_SEARCH_LIMITS, SEMANTIC_SEARCH_TYPES } from '../core/query/semantic-search-request';
import { paramJsonSchema } from '../core/query/params';
import { ContractSchema, FunderSchema, GrantSchema, type ResourceKind } from '../core/records';

/**
 * The OpenAPI 3.1 document, generated from the same zod schemas and parameter specs the handlers
 * validate with. docs/openapi.json is this output; a test fails when the committed copy is stale.
 */

const RESOURCES: { kind: ResourceKind; path: string; schema: string; plural: string }[] = [
  { kind: 'grant', path: '/grants-api', schema: 'Grant', plural: 'grants' },
  { kind: 'contract', path: '/contracts-api', schema: 'Contract', plural: 'contracts' },
  { kind: 'funder', path: '/funders-api', schema: 'Funder', plural: 'funders' },
];

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ref('Error') } },
});

/** On every answer to an authenticated key (DESIGN.md section 3). */
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Daily request quota of the key\'s tier; -1 means unlimited', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left until 00:00 UTC; -1 means unlimited', schema: { type: 'integer' } },
} as const;

/** The answers of the authorizer and the quota, shared by every data route. */
const ACCESS_RESPONSES = {
  401: errorResponse('Missing, malformed, unknown, revoked or rotated-out API key (UNAUTHORIZED)'),
  403: errorResponse('The key\'s tier has no API access (FORBIDDEN)'),
  429: {
    ...errorResponse('Daily quota exceeded (RATE_LIMITED); Retry-After gives the seconds until 00:00 UTC'),
    headers: { ...RATE_LIMIT_HEADERS, 'Retry-After': { description: 'Seconds until the quota resets at 00:00 UTC', schema: { type: 'integer' } } },
  },
};

/** In semantic and hybrid modes (DESIGN.md section 3). */
const RELEVANCE = {
  type: 'number',
  minimum: 0,
  maximum: 1,
  description: 'Only in semantic and hybrid modes. semantic: the cosine similarity of the query and the record on the embedder\'s calibrated scale: 0.5 at the minimum-relevance floor (nothing under it is returned), 1 at the embedder\'s upper reference (a match as close as catalogue records get), linear between, so 0.9 is a very close match. hybrid: 0.7 x the semantic relevance (0 when the record is not a semantic match) + 0.3 x the record\'s BM25 relative to the query\'s best keyword match (0 when the words do not match it): 1 is the best keyword match at the top of the semantic scale, 0.9 a very close match in meaning that holds the words about as well as any record, and a record only the words find scores at most 0.3.',
} as const;

const withRelevance = (schema: string) => ({ allOf: [ref(schema), { type: 'object', properties: { relevance: RELEVANCE } }] });

const SEARCH_UNAVAILABLE = errorResponse('SEARCH_UNAVAILABLE: the search index is unreachable, or a semantic search or a match while the embedding model is; get-by-id keeps working, and keyword search while only the model is down');
const LIST_SEARCH_UNAVAILABLE = errorResponse('SEARCH_UNAVAILABLE: the search index is unreachable, or search_mode=semantic while the embedding model is. Hybrid search then answers 200 with the keyword matches alone and meta.degraded; keyword search and get-by-id keep working');

function listOperation(kind: ResourceKind, schema: string, plural: string) {
  return {
    operationId: `list${schema}s`,
    summary: `List ${plural} with filters, sorting, keyword, semantic or hybrid search, and offset pagination`,
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
      400: errorResponse('A parameter is malformed; error.details names each field'),
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

function matchGrantsOperation(requestSchema: Record<string, unknown>) {
  return {
    operationId: 'matchGrants',
    summary: 'The open grants an organisation should apply for, each with a 0-100 match score and a plain-English reason',
    description: [
      'Pro and developer tiers only (others: 403 NO_API_ACCESS). Only open grants (posted, deadline today or later, or none) that the profile may apply for are returned:',
      'a grant whose listed applicant types exclude profile.applicant_type, one for 501(c)(3) nonprofits when is_501c3 is false, and a state-specific grant for another state',
      '(or any state-specific grant for a national applicant) are never returned. The score weighs topic (semantic similarity of the grant to mission, sector and focus keywords, plus shared key terms),',
      'eligibility confidence, award size against annual_budget_usd, and time to the deadline; docs/matching.md gives every weight and curve.',
      'why_it_fits states the facts behind the score. A geography naming no US state is treated as unknown (meta.profile.location.resolved_as) and lowers confidence.',
      'Unknown fields are ignored; naics_code and certifications are accepted and do not affect scoring. The same catalogue and request give the same answer.',
    ].join(' '),
    tags: ['matching'],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: requestSchema,
          examples: {
            ruralHealth: {
              value: {
                profile: { mission: 'We run community health clinics and telehealth for farm families in western Kansas.', sector: 'community health', geography: 'rural Kansas', applicant_type: 'nonprofit', is_501c3: true, annual_budget_usd: 850000 },
                focus_keywords: ['rural health', 'telehealth'],
                limit: 10,
              },
            },
          },
        },
      },
    },
    responses: {
      200: { description: 'The matches, highest score first (ties by id)', headers: RATE_LIMIT_HEADERS, content: { 'application/json': { schema: ref('MatchResponse') } } },
      400: errorResponse('The body is not a JSON object, or a field is missing, of the wrong type or out of range; error.details names it'),
      ...ACCESS_RESPONSES,
      403: errorResponse('The key\'s tier has no API access (FORBIDDEN), or no grant matching: basic (NO_API_ACCESS)'),
      500: errorResponse('Internal error'),
      503: SEARCH_UNAVAILABLE,
    },
  };
}

const MATCH_RESPONSE = {
  type: 'object',
  required: ['count', 'matches', 'meta'],
  properties: {
    count: { type: 'integer', description: 'Number of matches returned' },
    matches: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'title', 'funder', 'funder_id', 'match_score', 'why_it_fits', 'deadline', 'url', 'amount_min', 'amount_max', 'confidence', 'score_components'],
        properties: {
          id: { type: 'string', format: 'uuid', description: 'The grant (GET /grants-api/{id})' },
          title: { type: 'string' },
          funder: { type: 'string', description: 'The funder\'s name' },
          funder_id: { type: 'string', format: 'uuid' },
          match_score: { type: 'integer', minimum: 0, maximum: 100 },
          why_it_fits: { type: 'string', description: 'Plain English, blockers first: any eligibility caveat to check ("Check your eligibility first: ..."), then the profile\'s words and focus keywords the grant also uses (in the grant\'s own words), who may apply and where as the listing says, award size against the budget, and the deadline. Every claim is true of the listing' },
          deadline: { type: ['string', 'null'], format: 'date' },
          url: { type: ['string', 'null'], format: 'uri', description: 'The listing' },
          amount_min: { type: ['number', 'null'] },
          amount_max: { type: ['number', 'null'] },
          confidence: { type: 'string', enum: ['high', 'medium', 'low'], description: 'high: the listing names your applicant type and your location is known; each unknown (types not listed, 501(c)(3) status not given, location not resolved) lowers it one step' },
          score_components: {
            type: 'object',
            required: ['topic', 'eligibility', 'award_size', 'deadline'],
            description: 'Each component of the score, 0 to 100, before weighting (docs/matching.md)',
            properties: Object.fromEntries(['topic', 'eligibility', 'award_size', 'deadline'].map((name) => [name, { type: 'integer', minimum: 0, maximum: 100 }])),
          },
        },
      },
    },
    meta: {
      type: 'object',
      required: ['response_time_ms', 'limit', 'profile', 'candidates'],
      properties: {
        response_time_ms: { type: 'number' },
        limit: { type: 'integer', minimum: 1, maximum: MATCH_LIMITS.max },
        profile: {
          type: 'object',
          description: 'What the profile was understood as',
          properties: {
            applicant_type: { type: ['string', 'null'], description: 'The type scored with; nonprofit when only is_501c3: true was given' },
            location: {
              type: 'object',
              properties: {
                resolved_as: { type: 'string', enum: ['states', 'national', 'unknown'] },
                states: { type: 'array', items: { type: 'string' } },
              },
            },
          },
        },
        candidates: { type: 'integer', description: 'Open grants the profile may apply for that were close enough in meaning to be scored (at most 300)' },
        note: { type: 'string', description: 'Present when fewer than limit matches are returned: no strong matches (count 0), or only these; candidates whose topic fit is under the calibrated minimum are never returned (docs/matching.md, "The cut-off")' },
      },
    },
  },
};

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
