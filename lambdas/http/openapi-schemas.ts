import * as z from 'zod/mini';
import { ERROR_CODES } from '../core/errors';
import { LIMITS } from '../core/query/list-query';
import { ContractSchema, FunderSchema, GrantSchema } from '../core/records';
import { NO_RESULTS_REASONS } from '../core/search/no-results';
import { ref } from './openapi-components';
import { FACETS_SCHEMA } from './openapi-facets';
import { MATCH_RESPONSE } from './openapi-match';

/**
 * The component schemas of the OpenAPI document. Records are open objects (their fields, no
 * additionalProperties) so that a response can extend them with allOf (relevance, type) and close
 * the whole with unevaluatedProperties: false, which, unlike additionalProperties, sees the
 * properties every allOf branch evaluates. Envelopes are closed, and a page (results required) and
 * a count (results forbidden) can never both match, so a oneOf of them picks exactly one.
 */

type JsonSchema = Record<string, unknown>;

/** In semantic and hybrid modes (DESIGN.md section 3). */
export const RELEVANCE = {
  type: 'number',
  minimum: 0,
  maximum: 1,
  description:
    "Only in semantic and hybrid modes. semantic: the cosine similarity of the query and the record on the embedder's calibrated scale: 0.5 at the minimum-relevance floor (nothing under it is returned), 1 at the embedder's upper reference (a match as close as catalogue records get), linear between, so 0.9 is a very close match. hybrid: 0.7 x the semantic relevance (0 when the record is not a semantic match) + 0.3 x the record's BM25 relative to the query's best keyword match (0 when the words do not match it): 1 is the best keyword match at the top of the semantic scale, 0.9 a very close match in meaning that holds the words about as well as any record, and a record only the words find scores at most 0.3.",
} as const;

/** A record schema extended by `extra` and closed: no property either does not name. */
export const closed = (...parts: JsonSchema[]): JsonSchema => ({ allOf: parts, unevaluatedProperties: false });

/** The record with nothing added (GET by id). */
export const exactRecord = (schema: string): JsonSchema => closed(ref(schema));

/** A list result: the record, plus relevance in semantic and hybrid modes. */
export const listedRecord = (schema: string): JsonSchema => closed(ref(schema), { type: 'object', properties: { relevance: RELEVANCE } });

const openRecord = (schema: z.ZodMiniType, description: string): JsonSchema => {
  const { $schema: _omit, additionalProperties: _closedHere, ...fields } = z.toJSONSchema(schema, { target: 'draft-2020-12' }) as JsonSchema;
  return { ...fields, description };
};

const LIST_META = {
  type: 'object',
  required: ['response_time_ms', 'sort_by', 'order'],
  additionalProperties: false,
  properties: {
    response_time_ms: { type: 'number' },
    sort_by: { type: 'string', description: 'The sort applied; relevance when a search term ranks the results' },
    order: { type: 'string', enum: ['asc', 'desc'] },
    degraded: {
      type: 'boolean',
      const: true,
      description:
        'Present only when the answer is degraded: a hybrid search answered with the keyword matches alone (relevance at most 0.3), because the embedding model could not embed its query or the search service is overloaded and sheds semantic work for a while',
    },
    degraded_reason: { type: 'string', description: 'Why the answer is degraded, for people; present with degraded' },
    no_results: {
      type: 'object',
      required: ['reason', 'message'],
      additionalProperties: false,
      description: 'Present only when nothing was found: why',
      properties: {
        reason: {
          type: 'string',
          enum: [...NO_RESULTS_REASONS],
          description:
            'no_terms: the search text has nothing to search (stop words, punctuation); no_match: nothing matches it, filters aside; below_floor: no record reaches the minimum-relevance floor (semantic and hybrid: the query looks off-topic); filtered_out: records match the text, but the filters exclude them all',
        },
        message: { type: 'string', description: 'The reason in words, for people' },
        matches_without_filters: {
          type: 'integer',
          minimum: 1,
          description: 'With filtered_out: how many records the search text matches with no filter at all',
        },
      },
    },
  },
};

const TOTAL_RELATION = {
  type: 'string',
  enum: ['eq', 'gte'],
  description:
    'eq: total is exact. gte: total is a lower bound; semantic and hybrid search rank a bounded window of nearest candidates, and every one of them reached the floor, so more records may match (narrow the query with filters for an exact count). Lists and keyword search are always eq',
};

const PAGINATION = {
  type: 'object',
  required: ['total', 'total_relation', 'limit', 'offset', 'returned'],
  additionalProperties: false,
  properties: {
    total: { type: 'integer', minimum: 0, description: 'Every record the query matches, not only this page (a lower bound when total_relation is gte)' },
    total_relation: ref('TotalRelation'),
    limit: { type: 'integer', minimum: 1, maximum: LIMITS.pageMax },
    offset: {
      type: 'integer',
      minimum: 0,
      description: 'Results before this page: the offset asked, or on a page reached by cursor, what the walk returned before it',
    },
    returned: { type: 'integer', minimum: 0, description: 'Results on this page' },
    next_cursor: {
      type: 'string',
      description:
        'Present when more results follow this page (absent on the last page): pass it as cursor, with the same parameters (limit may change) and no offset, for the page right after this one, in the same order and with no offset cap. Opaque and signed; valid for 24 hours. On a page reached by cursor, offset is the number of results the walk returned before it',
    },
  },
};

/** A page of one kind of record (GET /grants-api and alike without count_only). */
function listPage(schema: string): JsonSchema {
  return {
    type: 'object',
    required: ['results', 'pagination', 'meta'],
    additionalProperties: false,
    properties: {
      results: { type: 'array', items: listedRecord(schema) },
      pagination: ref('Pagination'),
      facets: ref('Facets'),
      meta: ref('ListMeta'),
    },
  };
}

const COUNT_ENVELOPE = {
  type: 'object',
  required: ['pagination', 'meta'],
  additionalProperties: false,
  description: 'count_only=true: the total, no results',
  properties: {
    pagination: {
      type: 'object',
      required: ['total', 'total_relation'],
      additionalProperties: false,
      properties: { total: { type: 'integer', minimum: 0 }, total_relation: ref('TotalRelation') },
    },
    facets: ref('Facets'),
    meta: ref('ListMeta'),
  },
};

const typedResult = (schema: string, type: string) =>
  closed(ref(schema), {
    type: 'object',
    required: ['type', 'relevance'],
    properties: { type: { const: type }, relevance: RELEVANCE },
  });

const SEMANTIC_SEARCH_RESPONSE = {
  type: 'object',
  required: ['results', 'count', 'meta'],
  additionalProperties: false,
  properties: {
    results: { type: 'array', items: { oneOf: [typedResult('Grant', 'grant'), typedResult('Contract', 'contract')] } },
    count: { type: 'integer', minimum: 0, description: 'Number of results returned' },
    meta: {
      type: 'object',
      required: ['response_time_ms', 'types', 'limit', 'min_relevance'],
      additionalProperties: false,
      properties: {
        response_time_ms: { type: 'number' },
        types: { type: 'array', items: { type: 'string', enum: ['grant', 'contract'] }, description: 'The kinds searched' },
        limit: { type: 'integer' },
        min_relevance: {
          type: 'number',
          description:
            "The relevance at this query's minimum-relevance floor: no result has a lower relevance. 0.5 when the model alone puts the query on topic; down to 0.25 when the query's own words confirm its topic (a one- or two-word query); 0.5 when the query has no semantic match at all",
        },
      },
    },
  },
};

const ERROR = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'request_id'],
      additionalProperties: false,
      properties: {
        code: { type: 'string', enum: [...ERROR_CODES] },
        message: { type: 'string' },
        details: {
          type: 'array',
          items: {
            type: 'object',
            required: ['field', 'issue'],
            additionalProperties: false,
            properties: { field: { type: 'string' }, issue: { type: 'string' } },
          },
        },
        request_id: { type: 'string', description: "The request's id, also sent as the X-Request-Id header: quote it when asking about a failed request." },
      },
    },
  },
};

export function componentSchemas(): Record<string, unknown> {
  return {
    Grant: openRecord(
      GrantSchema,
      'A grant: every field is always present (null when the source does not give it). Responses send exactly these fields, plus relevance in semantic and hybrid list results.',
    ),
    Contract: openRecord(
      ContractSchema,
      'A contract opportunity: every field is always present (null when the source does not give it). Responses send exactly these fields, plus relevance in semantic and hybrid list results.',
    ),
    Funder: openRecord(
      FunderSchema,
      'A funder: every field is always present (null when the source does not give it). Responses send exactly these fields, plus relevance in semantic and hybrid list results.',
    ),
    GrantPage: listPage('Grant'),
    ContractPage: listPage('Contract'),
    FunderPage: listPage('Funder'),
    CountEnvelope: COUNT_ENVELOPE,
    Facets: FACETS_SCHEMA,
    Pagination: PAGINATION,
    TotalRelation: TOTAL_RELATION,
    ListMeta: LIST_META,
    SemanticSearchResponse: SEMANTIC_SEARCH_RESPONSE,
    MatchResponse: MATCH_RESPONSE,
    Error: ERROR,
  };
}
