import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';

/**
 * A stand-in for an OpenSearch domain on loopback, for tests of the OpenSearch adapter: it keeps
 * the documents it is sent, records every request, and answers index, mapping, alias and bulk
 * requests the way OpenSearch does. Not a search engine: it does not evaluate queries. A test
 * that needs `_search` / `_msearch` answers sets `respond` to return canned ones.
 */
export interface StandInRequest {
  method: string;
  path: string;
  body: string;
  authorization?: string;
  /** Every header as received (lower-case names), for checks of signing and content types. */
  headers: Record<string, string | string[] | undefined>;
}

export interface CannedResponse {
  status?: number;
  json: unknown;
}

export interface StandInOpenSearch {
  endpoint: string;
  requests: StandInRequest[];
  /** Indices (and aliases) that exist. */
  indices: Set<string>;
  /** The mappings each index was created with, by concrete index name. */
  mappings: Map<string, Record<string, unknown>>;
  /** The indices behind each alias. */
  aliases: Map<string, Set<string>>;
  /** Documents by `<index or alias as written>/<id>`, without the fields the mapping excludes from `_source`. */
  documents: Map<string, unknown>;
  /** Bulk item outcomes to answer with, by document id (default 201 for index, 200 for delete). */
  bulkStatus: Map<string, { status: number; error?: { type: string; reason: string } }>;
  /**
   * Answers a request before the stand-in's own handling, when it returns a response: canned
   * `_search` and `_msearch` answers, or failures. Cleared by reset().
   */
  respond: ((request: StandInRequest) => CannedResponse | undefined) | undefined;
  /** Creates an index (as `PUT /<index>` with this body would). */
  createIndex(index: string, body?: { mappings?: Record<string, unknown>; aliases?: Record<string, unknown> }): void;
  reset(): void;
  close(): Promise<void>;
}

/** The whole body of a request to a stand-in. */
export function readBody(request: Readable): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => resolve(body));
  });
}

const notFound = (name: string) => ({
  error: {
    root_cause: [{ type: 'index_not_found_exception', reason: `no such index [${name}]` }],
    type: 'index_not_found_exception',
    reason: `no such index [${name}]`,
  },
  status: 404,
});

export async function startStandInOpenSearch(): Promise<StandInOpenSearch> {
  const state = {
    requests: [] as StandInRequest[],
    indices: new Set<string>(),
    mappings: new Map<string, Record<string, unknown>>(),
    aliases: new Map<string, Set<string>>(),
    documents: new Map<string, unknown>(),
    bulkStatus: new Map<string, { status: number; error?: { type: string; reason: string } }>(),
    respond: undefined as StandInOpenSearch['respond'],
  };

  function createIndex(index: string, body: { mappings?: Record<string, unknown>; aliases?: Record<string, unknown> } = {}): void {
    state.indices.add(index);
    state.mappings.set(index, body.mappings ?? {});
    for (const alias of Object.keys(body.aliases ?? {})) addAlias(index, alias);
  }

  function addAlias(index: string, alias: string): void {
    state.indices.add(alias);
    const members = state.aliases.get(alias) ?? new Set<string>();
    members.add(index);
    state.aliases.set(alias, members);
  }

  function removeAlias(index: string, alias: string): void {
    const members = state.aliases.get(alias);
    members?.delete(index);
    if (members && members.size === 0) {
      state.aliases.delete(alias);
      state.indices.delete(alias);
    }
  }

  /** The concrete indices a name stands for (an alias, or an index), or null when none. */
  function resolve(name: string): string[] | null {
    const members = state.aliases.get(name);
    if (members) return [...members];
    return state.indices.has(name) ? [name] : null;
  }

  /** What OpenSearch keeps in `_source`: the document without the mapping's `_source.excludes`. */
  function stored(target: string, document: unknown): unknown {
    const excludes = new Set(
      (resolve(target) ?? []).flatMap((index) => (state.mappings.get(index)?._source as { excludes?: string[] } | undefined)?.excludes ?? []),
    );
    if (excludes.size === 0 || typeof document !== 'object' || document === null) return document;
    return Object.fromEntries(Object.entries(document).filter(([field]) => !excludes.has(field)));
  }

  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    const path = new URL(request.url!, 'http://x').pathname;
    const recorded: StandInRequest = { method: request.method!, path, body, authorization: request.headers.authorization, headers: { ...request.headers } };
    state.requests.push(recorded);
    const reply = (status: number, json?: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(json === undefined ? '' : JSON.stringify(json));
    };
    const canned = state.respond?.(recorded);
    if (canned) return reply(canned.status ?? 200, canned.json);

    const segments = path.split('/').filter(Boolean);
    const name = segments[0] ?? '';
    if (request.method === 'HEAD') return reply(state.indices.has(name) ? 200 : 404);
    if (request.method === 'PUT' && segments.length === 1) {
      if (state.mappings.has(name) || (state.indices.has(name) && !state.aliases.has(name))) {
        return reply(400, { error: { type: 'resource_already_exists_exception', reason: `index [${name}] already exists` }, status: 400 });
      }
      createIndex(name, JSON.parse(body || '{}') as { mappings?: Record<string, unknown>; aliases?: Record<string, unknown> });
      return reply(200, { acknowledged: true, shards_acknowledged: true, index: name });
    }
    if (request.method === 'DELETE' && segments.length === 1) {
      const indices = resolve(name);
      if (!indices) return reply(404, notFound(name));
      for (const index of indices) {
        state.indices.delete(index);
        state.mappings.delete(index);
        for (const alias of [...state.aliases.keys()]) removeAlias(index, alias);
        for (const key of [...state.documents.keys()]) if (key.startsWith(`${index}/`)) state.documents.delete(key);
      }
      return reply(200, { acknowledged: true });
    }
    if (request.method === 'GET' && segments[1] === '_mapping') {
      const indices = resolve(name);
      if (!indices) return reply(404, notFound(name));
      return reply(200, Object.fromEntries(indices.map((index) => [index, { mappings: state.mappings.get(index) ?? {} }])));
    }
    if (request.method === 'GET' && name === '_alias' && segments[1]) {
      const members = state.aliases.get(segments[1]);
      if (!members) return reply(404, { error: `alias [${segments[1]}] missing`, status: 404 });
      return reply(200, Object.fromEntries([...members].map((index) => [index, { aliases: { [segments[1]!]: {} } }])));
    }
    if (request.method === 'POST' && path === '/_aliases') {
      const { actions } = JSON.parse(body) as { actions: Record<string, { index: string; alias: string }>[] };
      // All or nothing, as OpenSearch applies them.
      for (const action of actions) {
        const [type, target] = Object.entries(action)[0]!;
        if (!state.mappings.has(target.index)) return reply(404, notFound(target.index));
        if (type === 'remove' && !state.aliases.get(target.alias)?.has(target.index)) {
          return reply(404, { error: { type: 'aliases_not_found_exception', reason: `aliases [${target.alias}] missing` }, status: 404 });
        }
      }
      for (const action of actions) {
        const [type, target] = Object.entries(action)[0]!;
        if (type === 'add') addAlias(target.index, target.alias);
        else removeAlias(target.index, target.alias);
      }
      return reply(200, { acknowledged: true });
    }
    if (segments[1] === '_refresh') {
      if (!resolve(name)) return reply(404, notFound(name));
      return reply(200, { _shards: { total: 1, successful: 1, failed: 0 } });
    }
    if (path === '/_bulk') {
      const lines = body
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, { _index: string; _id: string }>);
      const items: unknown[] = [];
      let errors = false;
      for (let i = 0; i < lines.length; i++) {
        const [action, meta] = Object.entries(lines[i]!)[0]!;
        const document = action === 'index' ? lines[++i] : undefined;
        const outcome = state.bulkStatus.get(meta._id) ?? { status: action === 'index' ? 201 : 200 };
        if (outcome.status >= 300) errors = true;
        else if (action === 'index') state.documents.set(`${meta._index}/${meta._id}`, stored(meta._index, document));
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
    get requests() {
      return state.requests;
    },
    set requests(value) {
      state.requests = value;
    },
    get respond() {
      return state.respond;
    },
    set respond(value) {
      state.respond = value;
    },
    indices: state.indices,
    mappings: state.mappings,
    aliases: state.aliases,
    documents: state.documents,
    bulkStatus: state.bulkStatus,
    createIndex,
    reset() {
      state.requests = [];
      state.indices.clear();
      state.mappings.clear();
      state.aliases.clear();
      state.documents.clear();
      state.bulkStatus.clear();
      state.respond = undefined;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
