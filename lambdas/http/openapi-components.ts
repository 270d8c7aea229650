import { ERROR_EXAMPLES } from './openapi-examples';

/** Pieces of the OpenAPI document that several operations share (openapi.ts builds the document). */

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** On every answer of ours; API Gateway's own (the authorizer's 401 and 403, the usage plan's 429) carry x-amzn-RequestId and the id in the body. */
export const REQUEST_ID_HEADERS = {
  'X-Request-Id': {
    description: "The request's id (also error.request_id in an error body): quote it when asking about a request",
    schema: { type: 'string' },
  },
} as const;

/** On every answer to an authenticated key (DESIGN.md section 3). */
export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: "Daily request quota of the key's tier; -1 means unlimited", schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left until 00:00 UTC; -1 means unlimited', schema: { type: 'integer' } },
} as const;

type ErrorExample = keyof typeof ERROR_EXAMPLES;

export const errorResponse = (description: string, examples: readonly ErrorExample[], headers: Record<string, unknown> = {}) => ({
  description,
  headers: { ...REQUEST_ID_HEADERS, ...headers },
  content: {
    'application/json': {
      schema: ref('Error'),
      examples: Object.fromEntries(examples.map((code) => [code, { value: ERROR_EXAMPLES[code] }])),
    },
  },
});

/** A 200 with the request id and quota headers, then `headers`. */
export const okResponse = (description: string, content: Record<string, unknown>, headers: Record<string, unknown> = {}) => ({
  description,
  headers: { ...REQUEST_ID_HEADERS, ...RATE_LIMIT_HEADERS, ...headers },
  content,
});

export const SEARCH_UNAVAILABLE_DESCRIPTION =
  'SEARCH_UNAVAILABLE: the search index is unreachable, or a semantic search or a match while the embedding model is; get-by-id keeps working, and keyword search while only the model is down';

/**
 * The answers every data operation can give besides its 200: the authorizer's and the quota's,
 * a 404 for an unknown record or route, the internal error and the search outage. Operations
 * override the entries whose meaning is theirs (a 400's cause, a 404's record).
 */
export function commonResponses(overrides: { 400: string; 404?: string; 503?: string; 403?: string }) {
  return {
    400: errorResponse(overrides[400], ['INVALID_PARAMETER']),
    401: errorResponse('Missing, malformed, unknown, revoked or rotated-out API key (UNAUTHORIZED)', ['UNAUTHORIZED']),
    403: errorResponse(
      overrides[403] ?? "The key's tier has no API access (FORBIDDEN)",
      overrides[403] ? ['NO_API_ACCESS'] : ['FORBIDDEN'],
      RATE_LIMIT_HEADERS,
    ),
    404: errorResponse(overrides[404] ?? 'NOT_FOUND: the path names no route of the API', ['NOT_FOUND']),
    429: errorResponse("Daily quota or the tier's request rate exceeded (RATE_LIMITED); Retry-After gives the seconds until it resets", ['RATE_LIMITED'], {
      ...RATE_LIMIT_HEADERS,
      'Retry-After': { description: "Seconds until the quota resets at 00:00 UTC, or until the key's rate window ends", schema: { type: 'integer' } },
    }),
    500: errorResponse('INTERNAL: an unexpected error, logged with the request id; no detail of it is sent', ['INTERNAL']),
    503: errorResponse(overrides[503] ?? SEARCH_UNAVAILABLE_DESCRIPTION, ['SEARCH_UNAVAILABLE']),
  };
}
