import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for an OpenSearch domain on loopback, for tests of the OpenSearch adapter: it keeps
 * the documents it is sent, records every request, and answers index, alias and bulk requests the
 * way OpenSearch does. Not a search engine: it does not answer queries.
 */
export interface StandInOpenSearch {
  endpoint: string;
  requests: { method: string; path: string; body: string; authorization?: string }[];
  /** Indices (and aliases) that exist. */
  indices: Set<string>;
  /** Documents by `<alias>/<id>`. */
  documents: Map<string, unknown>;
  /** Bulk item outcomes to answer with, by document id (default 201 for index, 200 for delete). */
  bulkStatus: Map<string, { status: number; error?: { type: string; reason: string } }>;
  reset(): void;
  close(): Promise<void>;
}

/** The whole body of a request to a stand-in. */
export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    request.on('data', (chunk) => { body += chunk; });
    request.on('end', () => resolve(body));
  });
}

export async function startStandInOpenSearch(): Promise<StandInOpenSearch> {
  const state = {
    requests: [] as StandInOpenSearch['requests'],
    indices: new Set<string>(),
    documents: new Map<string, unknown>(),
    bulkStatus: new Map<string, { status: number; error?: { type: string; reason: string } }>(),
  };
  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    const path = new URL(request.url!, 'http://x').pathname;
    state.requests.push({ method: request.method!, path, body, authorization: request.headers.authorization });
    const reply = (status: number, json?: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(json === undefined ? '' : JSON.stringify(json));
    };
    if (request.method === 'HEAD') return reply(state.indices.has(path.slice(1)) ? 200 : 404);
    if (request.method === 'PUT') {
      state.indices.add(path.slice(1));
      for (const alias of Object.keys((JSON.parse(body || '{}') as { aliases?: object }).aliases ?? {})) state.indices.add(alias);
      return reply(200, { acknowledged: true, index: path.slice(1) });
    }
    if (path === '/_bulk') {
      const lines = body.trim().split('\n').map((line) => JSON.parse(line) as Record<string, { _index: string; _id: string }>);
      const items: unknown[] = [];
      let errors = false;
      for (let i = 0; i < lines.length; i++) {
        const [action, meta] = Object.entries(lines[i]!)[0]!;
        const document = action === 'index' ? lines[++i] : undefined;
        const outcome = state.bulkStatus.get(meta._id) ?? { status: action === 'index' ? 201 : 200 };
        if (outcome.status >= 300) errors = true;
        else if (action === 'index') state.documents.set(`${meta._index}/${meta._id}`, document);
        else state.documents.delete(`${meta._index}/${meta._id}`);
        items.push({ [action]: { _id: meta._id, ...outcome } });
      }
      return reply(200, { took: 1, errors, items });
    }
    reply(400, { error: 'the stand-in does not answer this request' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() { return state.requests; },
    set requests(value) { state.requests = value; },
    indices: state.indices,
    documents: state.documents,
    bulkStatus: state.bulkStatus,
    reset() {
      state.requests = [];
      state.indices.clear();
      state.documents.clear();
      state.bulkStatus.clear();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
