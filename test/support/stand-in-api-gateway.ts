import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './stand-in-opensearch';

/**
 * A stand-in for API Gateway's management API on loopback (API keys and usage-plan keys only), for
 * the admin CLI's AWS target: it keeps the keys and plan memberships it is told about.
 */
export interface StandInApiGateway {
  endpoint: string;
  apiKeys: Map<string, { id: string; name: string; value: string; enabled: boolean }>;
  /** Plan id -> the API key ids in it. */
  plans: Map<string, Set<string>>;
  close(): Promise<void>;
}

export async function startStandInApiGateway(): Promise<StandInApiGateway> {
  const apiKeys: StandInApiGateway['apiKeys'] = new Map();
  const plans: StandInApiGateway['plans'] = new Map();
  let next = 1;
  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    const json = body ? (JSON.parse(body) as Record<string, any>) : {};
    const path = new URL(request.url!, 'http://x').pathname;
    const reply = (status: number, value?: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(value === undefined ? '' : JSON.stringify(value));
    };
    let match: RegExpExecArray | null;
    if (request.method === 'POST' && path === '/apikeys') {
      const key = { id: `ak${next++}`, name: String(json.name), value: String(json.value), enabled: Boolean(json.enabled) };
      apiKeys.set(key.id, key);
      return reply(201, key);
    }
    if ((match = /^\/usageplans\/([^/]+)\/keys$/.exec(path)) && request.method === 'POST') {
      if (!apiKeys.has(json.keyId)) return reply(404, { message: 'Invalid API Key identifier specified' });
      (plans.get(match[1]!) ?? plans.set(match[1]!, new Set()).get(match[1]!)!).add(json.keyId);
      return reply(201, { id: json.keyId, type: 'API_KEY' });
    }
    if ((match = /^\/usageplans\/([^/]+)\/keys\/([^/]+)$/.exec(path)) && request.method === 'DELETE') {
      plans.get(match[1]!)?.delete(match[2]!);
      return reply(202);
    }
    if ((match = /^\/apikeys\/([^/]+)$/.exec(path))) {
      const key = apiKeys.get(match[1]!);
      if (!key) return reply(404, { message: 'Invalid API Key identifier specified' });
      if (request.method === 'DELETE') {
        apiKeys.delete(key.id);
        return reply(202);
      }
      if (request.method === 'PATCH') {
        for (const op of json.patchOperations as Array<{ path: string; value: string }>) if (op.path === '/enabled') key.enabled = op.value === 'true';
        return reply(200, key);
      }
    }
    reply(400, { message: `the stand-in does not answer ${request.method} ${path}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKeys,
    plans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
