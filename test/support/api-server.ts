import type { Contract, Grant } from '../../lambdas/core/records';
import type { Services } from '../../lambdas/ports/services';
import { localAuthorizer, localRoutes } from '../../local/api-routes';
import { type EmbeddedStack, type EmbeddedStackOptions, startEmbeddedStack } from '../../local/embedded-stack';
import { type ApiServerOptions, createApiServer, listen } from '../../local/http-server';
import { ensureLocalKeys, type LocalKeys } from '../../local/local-keys';
import { generateContracts, generateFunders, generateGrants } from '../../local/synthetic-catalogue';
import { openApiConformance } from './openapi-conformance';

export interface TestApi {
  baseUrl: string;
  stack: EmbeddedStack;
  /** One key per tier, as `npm start` creates them. */
  keys: LocalKeys;
  /** A GET with the developer key unless `key` says otherwise (null: no Authorization header). */
  get(path: string, options?: { key?: string | null; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  /** A POST of `body` (a string is sent as is, anything else as JSON) with the developer key unless `key` says otherwise. */
  post(
    path: string,
    body: unknown,
    options?: { key?: string | null; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

/**
 * The response, its body parsed when it is JSON, after checking it against docs/openapi.json:
 * every response the integration suite gets through TestApi is one the document describes.
 */
async function parsedResponse(method: string, res: Response): Promise<{ status: number; body: any; headers: Headers }> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Left as text: the assertion on it will say what came back.
  }
  openApiConformance().assertConforms(method, new URL(res.url).pathname, res.status, res.headers, body);
  return { status: res.status, body, headers: res.headers };
}

export interface ServedApi {
  baseUrl: string;
  /** Stops the server, dropping kept-alive connections; the services are the caller's to close. */
  close(): Promise<void>;
}

/**
 * The local HTTP server over these services, on a random port. Tests that swap a port (a stage's
 * quotas, a search index behind a faulty domain) pass the services with it swapped; the authorizer
 * may keep the stack's own.
 */
export async function serveOverHttp(
  routeServices: Services,
  authorizerServices: Services = routeServices,
  serverOptions: ApiServerOptions = {},
): Promise<ServedApi> {
  const server = createApiServer(localRoutes(routeServices), localAuthorizer(authorizerServices), serverOptions);
  const baseUrl = await listen(server, 0);
  return {
    baseUrl,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The embedded stack behind the local HTTP server, on a random port: tests speak real HTTP to it. `server` sets the server's own options (CORS origins). */
export async function startTestApi(options: EmbeddedStackOptions & { server?: ApiServerOptions } = {}): Promise<TestApi> {
  const { server: serverOptions, ...stackOptions } = options;
  const stack = await startEmbeddedStack(stackOptions);
  const { keys } = await ensureLocalKeys(stack.services);
  const served = await serveOverHttp(stack.services, stack.services, serverOptions);
  const { baseUrl } = served;
  return {
    baseUrl,
    stack,
    keys,
    async get(path, { key = keys.developer, headers = {} } = {}) {
      return parsedResponse('GET', await fetch(`${baseUrl}${path}`, { headers: { ...(key === null ? {} : { Authorization: `Bearer ${key}` }), ...headers } }));
    },
    async post(path, body, { key = keys.developer, headers = {} } = {}) {
      return parsedResponse(
        'POST',
        await fetch(`${baseUrl}${path}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...(key === null ? {} : { Authorization: `Bearer ${key}` }), ...headers },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        }),
      );
    },
    async close() {
      await served.close();
      await stack.close();
    },
  };
}

/** The records a seeded stack holds (generated again from its catalogue spec, deterministically), and its day. */
export function seededRecords(stack: EmbeddedStack): { today: string; grants: Grant[]; contracts: Contract[] } {
  const spec = stack.seededCatalogue;
  if (!spec) throw new Error('the stack was not seeded with a synthetic catalogue');
  const funders = generateFunders(spec);
  return { today: spec.today, grants: [...generateGrants(spec, funders)].flat(), contracts: [...generateContracts(spec, funders)].flat() };
}

/** A catalogue small enough to seed in seconds yet spread over every filter value. */
export const TEST_CATALOGUE = { funders: 120, grants: 1500, contracts: 500, awardedGrants: 150, awardedContracts: 80 } as const;
