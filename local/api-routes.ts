import { handler as openApiHandler } from '../lambdas/handlers/openapi';
import type { ApiEvent, ApiResult } from '../lambdas/http/api-gateway';
import { getRoute, listRoute } from '../lambdas/http/routes';
import type { Services } from '../lambdas/ports/services';

export interface LocalRoute {
  method: 'GET' | 'POST';
  /** API Gateway resource path under /functions/v1, e.g. /grants-api/{id}. */
  resource: string;
  handler: (event: ApiEvent) => Promise<ApiResult>;
}

/** The routes API Gateway serves, bound to the embedded services: the same handler code as in Lambda. */
export function localRoutes(services: Services): LocalRoute[] {
  const provider = () => services;
  return [
    { method: 'GET', resource: '/grants-api', handler: listRoute('grant', provider) },
    { method: 'GET', resource: '/grants-api/{id}', handler: getRoute('grant', provider) },
    { method: 'GET', resource: '/contracts-api', handler: listRoute('contract', provider) },
    { method: 'GET', resource: '/contracts-api/{id}', handler: getRoute('contract', provider) },
    { method: 'GET', resource: '/funders-api', handler: listRoute('funder', provider) },
    { method: 'GET', resource: '/funders-api/{id}', handler: getRoute('funder', provider) },
    { method: 'GET', resource: '/openapi.json', handler: openApiHandler },
  ];
}
