import { ServiceError, searchUnavailable } from '../../core/errors';
import type { ResourceKind } from '../../core/records';
import { VectorSpaceMismatch } from '../../core/search/vector-space';
import type { Aggregations } from './opensearch-facets';

/** What the search domain answers, and what its failures mean to the API. */

export interface SearchHit {
  _id: string;
  _score?: number | null;
  _source?: Record<string, unknown>;
  fields?: Record<string, unknown[]>;
  sort?: unknown[];
}
export interface SearchResponse {
  hits: { total?: number | { value: number }; hits: SearchHit[] };
  aggregations?: Aggregations;
}
export interface MsearchItem extends Partial<SearchResponse> {
  status?: number;
  error?: { type?: string; reason?: string };
}

/** A query given up at its deadline (named as the clients name their timeouts, so it maps to 503 like them). */
export class QueryTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** A failed item of an `_msearch`, which answers 200 with an error per failed search. */
export class SearchItemError extends Error {
  constructor(
    readonly statusCode: number,
    readonly type: string | undefined,
    reason: string | undefined,
  ) {
    super(`${type ?? 'error'} ${reason ?? ''}`.trim());
    this.name = 'SearchItemError';
  }
}

export function statusOf(error: unknown): number | undefined {
  const meta = (error as { meta?: { statusCode?: number } } | undefined)?.meta;
  return (error as { statusCode?: number } | undefined)?.statusCode ?? meta?.statusCode;
}

function errorOf(error: unknown): { type?: string; reason?: string } | undefined {
  if (error instanceof SearchItemError) return { type: error.type, reason: error.message };
  return (error as { meta?: { body?: { error?: { type?: string; reason?: string } } } } | undefined)?.meta?.body?.error;
}

export function errorTypeOf(error: unknown): string | undefined {
  return errorOf(error)?.type;
}

const UNREACHABLE = new Set(['ConnectionError', 'TimeoutError', 'NoLivingConnectionsError', 'RequestAbortedError']);

export function unavailable(message: string, cause: unknown): ServiceError {
  return Object.assign(searchUnavailable(message), { cause });
}

/**
 * A failed query as the API reports it: an unreachable, overloaded or failing domain is a 503
 * SEARCH_UNAVAILABLE with a message for the caller (no endpoint, no stack); anything else (a query
 * the domain refuses) is an internal error, logged by the route.
 */
export function queryFailure(error: unknown, kind: ResourceKind): unknown {
  if (error instanceof ServiceError) return error;
  // The operator's message (both spaces, the rebuild command) goes to the log as the cause.
  if (error instanceof VectorSpaceMismatch) {
    return unavailable(
      `Semantic search is unavailable: the ${kind} index was built with another embedding model and must be rebuilt; keyword search still works`,
      error,
    );
  }
  const name = (error as Error | undefined)?.name ?? '';
  if (UNREACHABLE.has(name)) return unavailable('The search service cannot be reached right now; try again shortly', error);
  const status = statusOf(error);
  if (status !== undefined && (status >= 500 || status === 429)) {
    return unavailable('The search service is unavailable or overloaded right now; try again shortly', error);
  }
  if (status === 404 && errorTypeOf(error) === 'index_not_found_exception') {
    return unavailable(`The ${kind} search index is not available; it is created when the service is deployed`, error);
  }
  if (status !== undefined) {
    const refusal = errorOf(error);
    return new Error(`OpenSearch refused the ${kind} query (${status}): ${refusal?.type ?? 'error'} ${refusal?.reason ?? ''}`.trim(), { cause: error });
  }
  return error;
}

export function totalOf(response: SearchResponse): number {
  const total = response.hits.total;
  return typeof total === 'number' ? total : (total?.value ?? 0);
}

/** One answer of an `_msearch` (which answers 200 with an error per failed search), or its failure thrown. */
export function answeredItem(item: MsearchItem | undefined): SearchResponse {
  if (!item || item.error || !item.hits) throw new SearchItemError(item?.status ?? 500, item?.error?.type, item?.error?.reason);
  return item as SearchResponse;
}
