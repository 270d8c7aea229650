import { type FieldIssue, invalidParameters } from '../errors';
import { jsonObjectBody } from '../json-body';
import type { ResourceKind } from '../records';
import { LIMITS } from './list-query';
import { unknownNameIssues } from './unknown-names';

export const SEMANTIC_SEARCH_TYPES = { grants: 'grant', contracts: 'contract' } as const satisfies Record<string, ResourceKind>;
export type SemanticSearchType = keyof typeof SEMANTIC_SEARCH_TYPES;
export const SEMANTIC_SEARCH_LIMITS = { default: 10, max: 50 } as const;

export interface SemanticSearchRequest {
  query: string;
  /** The kinds searched: the one asked for, or both. */
  kinds: ('grant' | 'contract')[];
  limit: number;
}

/** The fields the body takes. */
export const SEMANTIC_SEARCH_FIELDS = ['query', 'type', 'limit'] as const;

/**
 * The body of POST /semantic-search: {query, type?, limit?}. An unknown field, or a known one of
 * the wrong type or out of range, is a 400 naming it.
 */
export function parseSemanticSearchRequest(body: string | null): SemanticSearchRequest {
  const parsed = jsonObjectBody(body, '{"query": "...", "type": "grants" | "contracts", "limit": 1-50}');

  const issues: FieldIssue[] = unknownNameIssues(Object.keys(parsed), SEMANTIC_SEARCH_FIELDS, 'a field of the request body');
  let query = '';
  if (parsed.query === undefined || parsed.query === null) issues.push({ field: 'query', issue: 'is required' });
  else if (typeof parsed.query !== 'string') issues.push({ field: 'query', issue: 'must be a string' });
  else {
    // Control characters carry no meaning for a search and can upset the engines' parsers.
    query = parsed.query.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
    if (query === '') issues.push({ field: 'query', issue: 'must not be empty' });
    else if (query.length > LIMITS.searchMaxLength) issues.push({ field: 'query', issue: `must be at most ${LIMITS.searchMaxLength} characters` });
  }

  let kinds: SemanticSearchRequest['kinds'] = ['grant', 'contract'];
  if (parsed.type !== undefined && parsed.type !== null) {
    const type = parsed.type;
    if (typeof type === 'string' && Object.hasOwn(SEMANTIC_SEARCH_TYPES, type)) kinds = [SEMANTIC_SEARCH_TYPES[type as SemanticSearchType]];
    else issues.push({ field: 'type', issue: `must be one of: ${Object.keys(SEMANTIC_SEARCH_TYPES).join(', ')} (omit it to search both)` });
  }

  let limit: number = SEMANTIC_SEARCH_LIMITS.default;
  if (parsed.limit !== undefined && parsed.limit !== null) {
    if (typeof parsed.limit === 'number' && Number.isInteger(parsed.limit) && parsed.limit >= 1 && parsed.limit <= SEMANTIC_SEARCH_LIMITS.max)
      limit = parsed.limit;
    else issues.push({ field: 'limit', issue: `must be an integer from 1 to ${SEMANTIC_SEARCH_LIMITS.max}` });
  }

  if (issues.length > 0) throw invalidParameters(issues);
  return { query, kinds, limit };
}
