import type { HttpMethod } from './constructs/api';

/**
 * A data dependency a route's function is bound to (env var + least-privilege grant); `cursors`: the
 * list cursors' signing key; `docsAssets`: the CloudFront origin of the docs page's script.
 */
export type RouteBinding = 'records' | 'search' | 'embeddings' | 'usage' | 'cursors' | 'docsAssets' | 'accounts';

export interface ApiRouteDefinition {
  readonly method: HttpMethod;
  /** Relative to the version root (`/functions/v1`). */
  readonly path: string;
  /** Handler entry relative to the project root; it exports `handler`. */
  readonly entry: string;
  readonly bindings: readonly RouteBinding[];
  /** Served without an API key (the OpenAPI document and the docs page); every other route needs one. */
  readonly public?: boolean;
}

/**
 * The v1 routes, one function each. Single records are read from the table (the system of
 * record); lists, filters, counts and searches come from the search index, which holds the full
 * record, with query vectors from the embedding model.
 */
export const API_ROUTES: readonly ApiRouteDefinition[] = [
  { method: 'GET', path: '/grants-api', entry: 'lambdas/handlers/list-grants.ts', bindings: ['search', 'embeddings', 'usage', 'cursors'] },
  { method: 'GET', path: '/grants-api/{id}', entry: 'lambdas/handlers/get-grant.ts', bindings: ['records', 'usage'] },
  { method: 'GET', path: '/contracts-api', entry: 'lambdas/handlers/list-contracts.ts', bindings: ['search', 'embeddings', 'usage', 'cursors'] },
  { method: 'GET', path: '/contracts-api/{id}', entry: 'lambdas/handlers/get-contract.ts', bindings: ['records', 'usage'] },
  { method: 'GET', path: '/funders-api', entry: 'lambdas/handlers/list-funders.ts', bindings: ['search', 'embeddings', 'usage', 'cursors'] },
  { method: 'POST', path: '/semantic-search', entry: 'lambdas/handlers/semantic-search.ts', bindings: ['search', 'embeddings', 'usage'] },
  { method: 'POST', path: '/match-grants-api', entry: 'lambdas/handlers/match-grants.ts', bindings: ['search', 'embeddings', 'usage'] },
  { method: 'GET', path: '/funders-api/{id}', entry: 'lambdas/handlers/get-funder.ts', bindings: ['records', 'usage'] },
  { method: 'GET', path: '/openapi.json', entry: 'lambdas/handlers/openapi.ts', bindings: [], public: true },
  // The interactive reference (lambdas/http/docs-page.ts). The multi-megabyte bundle it loads is no
  // route: CloudFront serves it from S3 (lib/constructs/docs-assets.ts); locally, local/api-routes.ts.
  { method: 'GET', path: '/docs', entry: 'lambdas/handlers/docs-page.ts', bindings: ['docsAssets'], public: true },
];

/** `lambdas/handlers/get-grant.ts` -> `GetGrant`: a stable construct id per route. */
export function routeConstructId(route: ApiRouteDefinition): string {
  const baseName = route.entry.replace(/^.*\//, '').replace(/\.[cm]?[jt]s$/, '');
  return baseName
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/**
 * The account API's routes (the developer dashboard's, issue 43): paths under `/account`, each
 * with its own function like API_ROUTES, behind the dashboard's Cognito authorizer (the ID token as
 * Bearer) instead of an API key; their functions also get ACCOUNT_TOKEN_ISSUER and
 * ACCOUNT_TOKEN_AUDIENCE (lambdas/composition/function-env.ts).
 */
const ACCOUNT_API_ENTRY = 'lambdas/handlers/account-api.ts';

export const ACCOUNT_ROUTES: readonly ApiRouteDefinition[] = [
  // One function serves them all (lambdas/http/account-router.ts routes by path): a dashboard
  // session's many small calls then meet one warm function, and a new operation needs no new route.
  { method: 'GET', path: '/account', entry: ACCOUNT_API_ENTRY, bindings: ['accounts'] },
  { method: 'GET', path: '/account/{proxy+}', entry: ACCOUNT_API_ENTRY, bindings: ['accounts'] },
  { method: 'POST', path: '/account/{proxy+}', entry: ACCOUNT_API_ENTRY, bindings: ['accounts'] },
  { method: 'PATCH', path: '/account/{proxy+}', entry: ACCOUNT_API_ENTRY, bindings: ['accounts'] },
];

/** The account API's resource under the version root. */
export const ACCOUNT_API_PATH = '/account';
