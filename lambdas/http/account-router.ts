import { randomBytes } from 'node:crypto';
import { ServiceError } from '../core/errors';
import { accountForSignIn } from '../core/use-cases/manage-accounts';
import type { AccountServicesProvider } from '../ports/account-services';
import { ACCOUNT_OPERATIONS, type AccountOperation } from './account-operations';
import { parseBody, parseQuery } from './account-request';
import { type ApiEvent, type ApiResult, apiRoute, jsonResult } from './api-gateway';
import { allowedMethods } from './cors';
import { compilePathTemplate } from './path-template';

/**
 * The account API's one handler: a small router over ACCOUNT_OPERATIONS. It serves every path
 * under /account, whether API Gateway sends them through one proxy resource (AWS) or the local
 * server through one resource per path, so it matches on the request path itself.
 */

interface CompiledOperation {
  operation: AccountOperation;
  pattern: RegExp;
  paramNames: string[];
}

function compile(operation: AccountOperation): CompiledOperation {
  return { operation, ...compilePathTemplate(operation.path) };
}

/**
 * The path from /account on: API Gateway's proxy parameter when there is one, else the request
 * path with whatever comes before /account (the stage, a base path such as /functions/v1) cut off.
 */
export function accountPathOf(event: Pick<ApiEvent, 'path' | 'pathParameters'>): string | null {
  const proxy = event.pathParameters?.proxy;
  if (proxy !== undefined) return `/account/${proxy}`;
  const path = event.path ?? '';
  const at = path.search(/\/account(?:\/|$)/);
  return at >= 0 ? path.slice(at) : null;
}

export interface RouteMatch {
  operation: AccountOperation;
  params: Record<string, string>;
}

/** The operation a method and path reach; a ServiceError 404 (no such path) or 405 (another method's path). */
export function matchAccountOperation(method: string, path: string | null, operations: readonly AccountOperation[] = ACCOUNT_OPERATIONS): RouteMatch {
  const compiled = operations.map(compile);
  const matching = path === null ? [] : compiled.map((c) => ({ c, match: path.match(c.pattern) })).filter((m) => m.match !== null);
  if (matching.length === 0) throw new ServiceError(404, 'NOT_FOUND', `No account API route for ${method} ${path ?? ''}`);
  const hit = matching.find((m) => m.c.operation.method === method);
  if (!hit) {
    const allowed = allowedMethods(matching.map((m) => m.c.operation.method)).join(', ');
    throw new ServiceError(405, 'METHOD_NOT_ALLOWED', `${method} is not served here; this path serves ${allowed}`, undefined, { Allow: allowed });
  }
  const params: Record<string, string> = {};
  hit.c.paramNames.forEach((name, i) => {
    params[name] = decodeURIComponent(hit.match![i + 1]!);
  });
  return { operation: hit.c.operation, params };
}

/** Every Authorization header value, whatever its case (two are refused by the verifier, not merged). */
export function authorizationValues(event: Pick<ApiEvent, 'headers' | 'multiValueHeaders'>): string[] | undefined {
  const values: string[] = [];
  for (const [name, list] of Object.entries(event.multiValueHeaders ?? {})) if (name.toLowerCase() === 'authorization' && list) values.push(...list);
  if (values.length === 0)
    for (const [name, value] of Object.entries(event.headers ?? {})) if (name.toLowerCase() === 'authorization' && value) values.push(value);
  return values.length > 0 ? values : undefined;
}

/**
 * The whole account API as one route: match, then the ID token (401 before anything else is
 * read), then the caller's account (made at their first sign-in), then query and body, then the
 * operation. Every failure is the JSON error body (apiRoute).
 */
export function accountApiRoute(services: AccountServicesProvider): (event: ApiEvent) => Promise<ApiResult> {
  return apiRoute(async (event) => {
    const { operation, params } = matchAccountOperation(event.httpMethod, accountPathOf(event));
    const ports = services();
    const identity = await ports.identity.verify(authorizationValues(event));
    const now = ports.clock.now();
    const account = await accountForSignIn(ports.accounts, identity.email, { randomBytes: (n) => randomBytes(n), now, defaultPlan: ports.defaultPlan });
    const query = parseQuery(event, operation.query);
    const body = parseBody(event, operation.body, operation.bodyShape ?? '{}');
    const answer = await operation.run({ services: ports, account, params, query, body, event, now });
    return jsonResult(answer.status, answer.body, { 'Cache-Control': 'no-store' });
  });
}

/**
 * The route as lib/api-routes.ts's ACCOUNT_ROUTES names it, `GET /account/{proxy+}`: the `route`
 * dimension of the function's metrics, which the stack's per-route alarms and dashboard read.
 */
export function accountRouteName(event: Pick<ApiEvent, 'httpMethod' | 'resource'>): string {
  const resource = event.resource ?? '';
  const at = resource.search(/\/account(?:\/|$)/);
  return `${event.httpMethod} ${at >= 0 ? resource.slice(at) : '/account'}`;
}
