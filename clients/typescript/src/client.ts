import createFetchClient, { type Client } from 'openapi-fetch';
import type { paths } from './api-types.js';
import { apiErrorFrom } from './errors.js';
import { listItems, listPages } from './paging.js';
import { type RetryOptions, retryAfterMs, retryingFetch } from './retry.js';
import {
  type CountQuery,
  LIST_PATHS,
  type ListItem,
  type ListPage,
  type ListQuery,
  type ListResource,
  type MatchRequest,
  type MatchResponse,
  type PagingQuery,
  RECORD_PATHS,
  type RecordType,
  type SemanticSearchRequest,
  type SemanticSearchResponse,
} from './types.js';

export interface ClientOptions {
  /** The API's root, stage path included: `https://<api>/functions/v1`, or `http://127.0.0.1:3000/functions/v1` for `npm start`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** The fetch to send requests with (default globalThis.fetch). */
  fetch?: (request: Request) => Promise<Response>;
  /** Retries of idempotent requests (GETs, semantic search, grant matching); false sends every request once. */
  retry?: RetryOptions | false;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

export interface DataServiceClient {
  /**
   * The openapi-fetch client typed by the generated paths, with the key and retries: `raw.GET('/grants-api', { params: { query } })`
   * returns `{ data, error, response }` and never throws for an error status.
   */
  readonly raw: Client<paths>;
  /** One page of a list. */
  list<R extends ListResource>(resource: R, query?: ListQuery<R>): Promise<ListPage<R>>;
  listGrants(query?: ListQuery<'grants'>): Promise<ListPage<'grants'>>;
  listContracts(query?: ListQuery<'contracts'>): Promise<ListPage<'contracts'>>;
  listFunders(query?: ListQuery<'funders'>): Promise<ListPage<'funders'>>;
  /** How many records a list's filters match (`count_only=true`). */
  count<R extends ListResource>(resource: R, query?: CountQuery<R>): Promise<number>;
  /** Every result of a list with these filters and sort, fetched page by page (paging.ts: cursors when the service gives them). */
  paginate<R extends ListResource>(resource: R, query?: PagingQuery<R>): AsyncGenerator<ListItem<R>, void, undefined>;
  /** The same walk, a page at a time. */
  pages<R extends ListResource>(resource: R, query?: PagingQuery<R>): AsyncGenerator<ListPage<R>, void, undefined>;
  get<R extends ListResource>(resource: R, id: string): Promise<RecordType<R>>;
  getGrant(id: string): Promise<RecordType<'grants'>>;
  getContract(id: string): Promise<RecordType<'contracts'>>;
  getFunder(id: string): Promise<RecordType<'funders'>>;
  semanticSearch(body: SemanticSearchRequest): Promise<SemanticSearchResponse>;
  matchGrants(body: MatchRequest): Promise<MatchResponse>;
}

/** openapi-fetch's answer: the data of a 2xx, or an ApiError thrown for anything else. */
function dataOrThrow<T>(result: { data?: T; error?: unknown; response: Response }, now: () => number): T {
  const { response } = result;
  if (response.ok) return result.data as T;
  const waitMs = retryAfterMs(response.headers.get('retry-after'), now());
  throw apiErrorFrom(response, result.error, waitMs === undefined ? undefined : Math.ceil(waitMs / 1000));
}

/**
 * A client of the data service. Methods return the response body and throw ApiError for an
 * error status; `raw` is the openapi-fetch surface for anything else.
 */
export function createClient(options: ClientOptions): DataServiceClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const now = (options.retry ? options.retry.now : undefined) ?? Date.now;
  const raw = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, Authorization: `Bearer ${options.apiKey}` },
    fetch: options.retry === false ? baseFetch : retryingFetch(baseFetch, options.retry),
  });

  // The typed path unions make openapi-fetch's overloads too wide to resolve generically; the
  // public signatures above carry the types, these calls the values.
  const untyped = raw as unknown as {
    GET(path: string, init: { params: { query?: object; path?: object } }): Promise<{ data?: unknown; error?: unknown; response: Response }>;
    POST(path: string, init: { body: unknown }): Promise<{ data?: unknown; error?: unknown; response: Response }>;
  };

  const list = async <R extends ListResource>(resource: R, query: ListQuery<R> = {} as ListQuery<R>) =>
    dataOrThrow(await untyped.GET(LIST_PATHS[resource], { params: { query } }), now) as ListPage<R>;
  const get = async <R extends ListResource>(resource: R, id: string) =>
    dataOrThrow(await untyped.GET(RECORD_PATHS[resource], { params: { path: { id } } }), now) as RecordType<R>;

  return {
    raw,
    list,
    listGrants: (query) => list('grants', query),
    listContracts: (query) => list('contracts', query),
    listFunders: (query) => list('funders', query),
    async count(resource, query) {
      const body = dataOrThrow(await untyped.GET(LIST_PATHS[resource], { params: { query: { ...query, count_only: true } } }), now);
      return (body as { pagination: { total: number } }).pagination.total;
    },
    paginate: (resource, query) => listItems(list, resource, query),
    pages: (resource, query) => listPages(list, resource, query),
    get,
    getGrant: (id) => get('grants', id),
    getContract: (id) => get('contracts', id),
    getFunder: (id) => get('funders', id),
    semanticSearch: async (body) => dataOrThrow(await untyped.POST('/semantic-search', { body }), now) as SemanticSearchResponse,
    matchGrants: async (body) => dataOrThrow(await untyped.POST('/match-grants-api', { body }), now) as MatchResponse,
  };
}
