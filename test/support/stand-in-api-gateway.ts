import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for API Gateway's management API on loopback, API keys only: GetApiKey (with
 * includeValue, as the authorizer reads its tier keys) and DeleteApiKey (the admin CLI's
 * migrate-gateway-keys). It holds the keys it is given.
 */
export interface StandInApiGateway {
  endpoint: string;
  apiKeys: Map<string, { id: string; name: string; value: string; enabled: boolean }>;
  /** Each request, as "METHOD path?query". */
  requests: string[];
  close(): Promise<void>;
}

export async function startStandInApiGateway(keys: StandInApiGateway['apiKeys'] = new Map()): Promise<StandInApiGateway> {
  const apiKeys = keys;
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url!, 'http://x');
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    const reply = (status: number, value?: unknown) => {
      // API Gateway names an error's type in this header; the SDK maps it to its exception class.
      const errorType = status === 404 ? { 'x-amzn-errortype': 'NotFoundException' } : status === 400 ? { 'x-amzn-errortype': 'BadRequestException' } : {};
      response.writeHead(status, { 'content-type': 'application/json', ...errorType });
      response.end(value === undefined ? '' : JSON.stringify(value));
    };
    request.resume();
    request.on('end', () => {
      const match = /^\/apikeys\/([^/]+)$/.exec(url.pathname);
      const key = match ? apiKeys.get(decodeURIComponent(match[1]!)) : undefined;
      if (match && !key) return reply(404, { message: 'Invalid API Key identifier specified' });
      if (key && request.method === 'DELETE') {
        apiKeys.delete(key.id);
        return reply(202);
      }
      if (key && request.method === 'GET') {
        const { value, ...rest } = key;
        return reply(200, url.searchParams.get('includeValue') === 'true' ? key : rest);
      }
      reply(400, { message: `the stand-in does not answer ${request.method} ${url.pathname}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiKeys,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
