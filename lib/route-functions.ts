import { join } from 'node:path';
import type { Stack } from 'aws-cdk-lib';
import { FUNCTION_ENV } from '../lambdas/composition/function-env';
import { ACCOUNT_API_PATH, type ApiRouteDefinition, type RouteBinding, routeConstructId } from './api-routes';
import type { StageConfig } from './config';
import type { AccountAccess } from './constructs/account-access';
import type { ServiceApi } from './constructs/api';
import type { ApiAccess } from './constructs/api-access';
import type { SearchIndexBootstrap } from './constructs/search-index-bootstrap';
import { ServiceFunction } from './constructs/service-function';
import type { MonitoredRoute } from './constructs/service-metrics';

export interface RouteFunctionsProps {
  /** The public API's routes (API keys) and the account API's (ID tokens, `accountAccess`). */
  readonly routes: readonly ApiRouteDefinition[];
  readonly accountRoutes: readonly ApiRouteDefinition[];
  /** The Cognito authorizer; present whenever there are account routes. */
  readonly accountAccess: AccountAccess | undefined;
  readonly access: ApiAccess;
  readonly api: ServiceApi;
  readonly searchBootstrap: SearchIndexBootstrap;
  /** What each route binding grants and sets on a function (the stack knows the tables and domains). */
  readonly bind: Record<RouteBinding, (fn: ServiceFunction) => void>;
  readonly config: StageConfig;
  readonly projectRoot: string;
}

export interface RouteFunctions {
  /** Each function by its construct id. */
  functions: Map<string, ServiceFunction>;
  searchFunctions: Set<ServiceFunction>;
  monitoredRoutes: MonitoredRoute[];
}

/**
 * A function per route, in the stack's own scope (so logical ids do not depend on this helper),
 * wired to the API with its authorizer. The account API's routes share one function; any other
 * sharing of a handler name is a mistake and fails synthesis.
 */
export function addRouteFunctions(stack: Stack, props: RouteFunctionsProps): RouteFunctions {
  const { accountRoutes, accountAccess, config } = props;
  for (const route of accountRoutes) {
    if (!route.path.startsWith(ACCOUNT_API_PATH)) throw new Error(`Account route ${route.method} ${route.path} must be under ${ACCOUNT_API_PATH}`);
  }
  const isAccountRoute = (route: ApiRouteDefinition) => accountRoutes.includes(route);
  const methodOptionsOf = (route: ApiRouteDefinition) =>
    isAccountRoute(route) ? accountAccess!.methodOptions : route.public ? props.access.publicMethodOptions : props.access.protectedMethodOptions;
  const newRouteFunction = (constructId: string, route: ApiRouteDefinition) => {
    const fn = new ServiceFunction(stack, constructId, {
      entry: join(props.projectRoot, route.entry),
      description: `${route.method} /v1${route.path} (${route.entry})`,
      serviceName: config.serviceName,
      memorySizeMb: config.functions.memorySizeMb,
      timeout: config.functions.timeout,
      logRetention: config.functions.logRetention,
      logRemovalPolicy: config.statefulRemovalPolicy,
      projectRoot: props.projectRoot,
    });
    for (const binding of route.bindings) {
      props.bind[binding](fn);
    }
    // The origins whose answers carry CORS headers, as the preflights and gateway responses name them.
    fn.lambdaFunction.addEnvironment(FUNCTION_ENV.corsAllowedOrigins, JSON.stringify(config.api.corsOrigins));
    if (isAccountRoute(route)) accountAccess!.bindAccountToken(fn);
    return fn;
  };

  const functions = new Map<string, ServiceFunction>();
  const searchFunctions = new Set<ServiceFunction>();
  const monitoredRoutes: MonitoredRoute[] = [];
  const firstRouteOf = new Map<string, ApiRouteDefinition>();
  for (const route of [...props.routes, ...accountRoutes]) {
    const constructId = routeConstructId(route);
    const earlier = firstRouteOf.get(constructId);
    // The account API's routes share one function (its handler routes by path); any other sharing is a mistake.
    const shared =
      earlier !== undefined &&
      isAccountRoute(route) &&
      isAccountRoute(earlier) &&
      earlier.entry === route.entry &&
      earlier.bindings.join() === route.bindings.join();
    if (earlier && !shared) {
      throw new Error(`Two routes share the handler name ${constructId}; every route needs its own entry`);
    }
    firstRouteOf.set(constructId, earlier ?? route);
    const fn = shared ? functions.get(constructId)! : newRouteFunction(constructId, route);
    props.api.addRoute({ method: route.method, path: route.path, handler: fn.lambdaFunction, methodOptions: methodOptionsOf(route) });
    // Searches need the indices in the configured vector space: the bootstrap checks that first.
    if (route.bindings.includes('search')) {
      fn.lambdaFunction.node.addDependency(props.searchBootstrap.resource);
      searchFunctions.add(fn);
    }
    functions.set(constructId, fn);
    monitoredRoutes.push({
      method: route.method,
      path: route.path,
      resourcePath: route.path === '/' ? props.api.versionRoot.path : `${props.api.versionRoot.path}${route.path}`,
    });
  }
  return { functions, searchFunctions, monitoredRoutes };
}
