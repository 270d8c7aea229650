import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';

/**
 * dynalite with no listener: its request handler is called in this process with an in-memory
 * request and response, so no port or socket exists that another user of the machine could
 * reach. The AWS SDK speaks to it through a request handler of its own (`client()`); the
 * stream proxy of the local AWS mode and the guarded endpoint (table-credentials.ts) call it
 * with `call()` or hand it their requests (`listener`).
 */

export interface RawRequest {
  method: string;
  /** Path and query string, as on a request line. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The parts of dynalite's store that close it (its db/index.js). */
interface DynaliteStore {
  db: { close(callback: (error?: Error | null) => void): void };
}

/** The smithy HttpRequest fields the handler reads (structural: the SDK's own class has them). */
interface SdkRequest {
  method: string;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
  body?: string | Uint8Array | Readable | null;
}

/** A response object with what dynalite's handler uses of node's ServerResponse. */
class CapturedResponse {
  statusCode = 200;
  private readonly headers: Record<string, string> = {};
  constructor(private readonly done: (response: RawResponse) => void) {}
  setHeader(name: string, value: string | number): void {
    this.headers[name.toLowerCase()] = String(value);
  }
  getHeader(name: string): string | undefined {
    return this.headers[name.toLowerCase()];
  }
  end(chunk?: string | Buffer): void {
    const body = chunk === undefined ? Buffer.alloc(0) : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, 'utf8');
    this.done({ status: this.statusCode, headers: this.headers, body });
  }
}

async function bytesOf(body: SdkRequest['body']): Promise<Buffer> {
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

function queryStringOf(query: SdkRequest['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    for (const one of Array.isArray(value) ? value : [value]) params.append(name, one ?? '');
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

export class InProcessDynalite {
  /** dynalite's own request listener: it answers as its HTTP server would. */
  readonly listener: RequestListener;
  private readonly store: DynaliteStore;

  /** A LevelDB folder, or memory when `path` is omitted. */
  constructor(options: { path?: string }) {
    // dynalite() keeps its store to itself and closes it only through a listening server's
    // close(); the store is caught as it is made, so closing needs no listener.
    const dbModule = createRequire(import.meta.url)('dynalite/db') as { create: (options: object) => DynaliteStore };
    const create = dbModule.create;
    let store: DynaliteStore | undefined;
    dbModule.create = (createOptions) => (store = create(createOptions));
    try {
      this.listener = dynalite({ path: options.path, createTableMs: 0 }).listeners('request')[0] as RequestListener;
    } finally {
      dbModule.create = create;
    }
    if (!store || typeof this.listener !== 'function') throw new Error('dynalite changed: its store or request listener is not where this version kept them');
    this.store = store;
  }

  /** One request answered in process. */
  call(request: RawRequest): Promise<RawResponse> {
    return new Promise((resolve) => {
      const req = Object.assign(Readable.from(request.body.length > 0 ? [request.body] : [], { objectMode: false }), {
        method: request.method,
        url: request.url,
        headers: request.headers,
      });
      this.listener(req as unknown as IncomingMessage, new CapturedResponse(resolve) as unknown as ServerResponse);
    });
  }

  /** A DynamoDB client whose requests go to `call()`; the endpoint is never contacted. */
  client(options: { region: string; credentials: { accessKeyId: string; secretAccessKey: string } }): DynamoDBClient {
    const handler = {
      metadata: { handlerProtocol: 'http/1.1' },
      handle: async (request: SdkRequest) => {
        const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]));
        const answer = await this.call({
          method: request.method,
          url: `${request.path}${queryStringOf(request.query)}`,
          headers,
          body: await bytesOf(request.body),
        });
        return {
          response: { statusCode: answer.status, reason: undefined, headers: answer.headers, body: Readable.from([answer.body], { objectMode: false }) },
        };
      },
      updateHttpClientConfig: () => undefined,
      httpHandlerConfigs: () => ({}),
      destroy: () => undefined,
    };
    return new DynamoDBClient({ ...options, endpoint: 'http://dynalite.invalid', requestHandler: handler });
  }

  /** Closes the store once the operations under way have finished. */
  close(): Promise<void> {
    return new Promise((resolve, reject) => this.store.db.close((error) => (error ? reject(error) : resolve())));
  }
}
