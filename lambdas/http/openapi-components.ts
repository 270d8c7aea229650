/** Pieces of the OpenAPI document that several operations share (openapi.ts builds the document). */

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ref('Error') } },
});

/** On every answer to an authenticated key (DESIGN.md section 3). */
export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: 'Daily request quota of the key\'s tier; -1 means unlimited', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left until 00:00 UTC; -1 means unlimited', schema: { type: 'integer' } },
} as const;

/** The answers of the authorizer and the quota, shared by every data route. */
export const ACCESS_RESPONSES = {
  401: errorResponse('Missing, malformed, unknown, revoked or rotated-out API key (UNAUTHORIZED)'),
  403: errorResponse('The key\'s tier has no API access (FORBIDDEN)'),
  429: {
    ...errorResponse('Daily quota exceeded (RATE_LIMITED); Retry-After gives the seconds until 00:00 UTC'),
    headers: { ...RATE_LIMIT_HEADERS, 'Retry-After': { description: 'Seconds until the quota resets at 00:00 UTC', schema: { type: 'integer' } } },
  },
};

export const SEARCH_UNAVAILABLE = errorResponse('SEARCH_UNAVAILABLE: the search index is unreachable, or a semantic search or a match while the embedding model is; get-by-id keeps working, and keyword search while only the model is down');
