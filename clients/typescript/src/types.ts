// Types the client's methods take and return, derived from the generated document (api-types.ts)
// so that they follow it when it is regenerated.
import type { components, paths } from './api-types.js';

type Schemas = components['schemas'];

export type Grant = Schemas['Grant'];
export type Contract = Schemas['Contract'];
export type Funder = Schemas['Funder'];
/** The body of every error response: `{ error: { code, message, details?, request_id? } }`. */
export type ErrorBody = Schemas['Error'];
export type ErrorCode = ErrorBody['error']['code'];
export type ErrorDetail = NonNullable<ErrorBody['error']['details']>[number];

/** The list endpoints, by the name the client uses for them. */
export const LIST_PATHS = { grants: '/grants-api', contracts: '/contracts-api', funders: '/funders-api' } as const;
export type ListResource = keyof typeof LIST_PATHS;
type ListPath<R extends ListResource> = (typeof LIST_PATHS)[R];

export const RECORD_PATHS = { grants: '/grants-api/{id}', contracts: '/contracts-api/{id}', funders: '/funders-api/{id}' } as const;

type JsonOk<Operation> = Operation extends { responses: { 200: { content: { 'application/json': infer Body } } } } ? Body : never;
type ListResponse<R extends ListResource> = JsonOk<paths[ListPath<R>]['get']>;
/** The list branch of a list endpoint's answer (the other is count_only's). */
type ListBody<R extends ListResource> = Extract<ListResponse<R>, { results: unknown }>;

/** One result of a list: the record, with `relevance` in semantic and hybrid modes. */
export type ListItem<R extends ListResource> = ListBody<R>['results'][number];

/**
 * One page of a list endpoint. Deep paging: `pagination.next_cursor` is there when more results
 * follow, and ListQuery's `cursor` continues from it.
 */
export type ListPage<R extends ListResource> = ListBody<R>;

type DocumentedQuery<R extends ListResource> = NonNullable<paths[ListPath<R>]['get']['parameters']['query']>;

/**
 * A list's filters, sort and page parameters. `count_only` has its own method (count), and a
 * `format` other than JSON is not this client's to parse.
 */
export type ListQuery<R extends ListResource> = Omit<DocumentedQuery<R>, 'count_only' | 'format'>;

/** The filters and sort of a walk through a whole list; the iterator sets the page parameters itself. */
export type PagingQuery<R extends ListResource> = Omit<ListQuery<R>, 'offset' | 'cursor'>;

export type CountQuery<R extends ListResource> = Omit<ListQuery<R>, 'limit' | 'offset' | 'cursor' | 'sort_by' | 'order'>;

type JsonRequest<Operation> = Operation extends { requestBody?: { content: { 'application/json': infer Body } } } ? Body : never;

export type SemanticSearchRequest = JsonRequest<paths['/semantic-search']['post']>;
export type SemanticSearchResponse = JsonOk<paths['/semantic-search']['post']>;
export type MatchRequest = JsonRequest<paths['/match-grants-api']['post']>;
export type MatchResponse = JsonOk<paths['/match-grants-api']['post']>;

export type RecordResource = ListResource;
export type RecordType<R extends RecordResource> = JsonOk<paths[(typeof RECORD_PATHS)[R]]['get']>;
