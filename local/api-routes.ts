import { authenticate } from '../lambdas/core/use-cases/authenticate';
import { ACCOUNT_OPERATIONS } from '../lambdas/http/account-operations';
import { accountApiRoute } from '../lambdas/http/account-router';
import type { ApiEvent, ApiResult } from '../lambdas/http/api-gateway';
import { DOCS_ASSET_PATH, docsAssetRoute, docsPageRoute } from '../lambdas/http/docs-page';
import { openApiRoute } from '../lambdas/http/openapi';
import { getRoute, listRoute, matchGrantsRoute, semanticSearchRoute } from '../lambdas/http/routes';
import type { AccountServices } from '../lambdas/ports/account-services';
import type { Services } from '../lambdas/ports/services';
import { readScalarStandalone } from '../lib/scalar-bundle';
import type { LocalAuthorizer } from './http-server';

export interface LocalRoute {
  method: 'GET' | 'POST' | 'PATCH';
  /** API Gateway resource path under /functions/v1, e.g. /grants-api/{id}. */
  resource: string;
  /** Whether the authorizer runs first (every data route; the OpenAPI document and the docs page are public). */
  authenticated: boolean;
  handler: (event: ApiEvent) => Promise<ApiResult>;
}

/** The local authorizer: the same decision the AWS authorizer Lambda makes, against the embedded key store. */
export function localAuthorizer(services: Services): LocalAuthorizer {
  return (authorization) => authenticate(authorization, services.keys, services.clock.now());
}

/**
 * GET /docs/scalar.js: the docs page's script, which on AWS CloudFront serves from S3
 * (lib/constructs/docs-assets.ts) and the local server serves itself, on the page's own origin.
 */
export function localDocsAssetRoute(): LocalRoute {
  return { method: 'GET', resource: DOCS_ASSET_PATH, authenticated: false, handler: docsAssetRoute(readScalarStandalone) };
}

/**
 * The routes API Gateway serves, bound to the embedded services: the same handler code as in
 * Lambda; and the docs page's script, CloudFront's on AWS.
 */
export function localRoutes(services: Services): LocalRoute[] {
  const provider = () => services;
  return [
    { method: 'GET', resource: '/grants-api', authenticated: true, handler: listRoute('grant', provider) },
    { method: 'GET', resource: '/grants-api/{id}', authenticated: true, handler: getRoute('grant', provider) },
    { method: 'GET', resource: '/contracts-api', authenticated: true, handler: listRoute('contract', provider) },
    { method: 'GET', resource: '/contracts-api/{id}', authenticated: true, handler: getRoute('contract', provider) },
    { method: 'GET', resource: '/funders-api', authenticated: true, handler: listRoute('funder', provider) },
    { method: 'GET', resource: '/funders-api/{id}', authenticated: true, handler: getRoute('funder', provider) },
    { method: 'POST', resource: '/semantic-search', authenticated: true, handler: semanticSearchRoute(provider) },
    { method: 'POST', resource: '/match-grants-api', authenticated: true, handler: matchGrantsRoute(provider) },
    { method: 'GET', resource: '/openapi.json', authenticated: false, handler: openApiRoute() },
    { method: 'GET', resource: '/docs', authenticated: false, handler: docsPageRoute() },
    localDocsAssetRoute(),
  ];
}

/**
 * The account API (the developer dashboard's) on the same port: one resource per operation, all
 * served by the one handler AWS runs for /account/{proxy+}. Not behind the API-key authorizer:
 * the handler checks the ID token itself, as it does behind Cognito's authorizer.
 */
export function localAccountRoutes(services: AccountServices): LocalRoute[] {
  const handler = accountApiRoute(() => services);
  return ACCOUNT_OPERATIONS.map((operation) => ({ method: operation.method, resource: operation.path, authenticated: false, handler }));
}
