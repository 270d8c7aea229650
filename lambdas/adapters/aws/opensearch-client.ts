import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
// The module objects, not named imports: Powertools Tracer patches http.request and https.request
// on them in Lambda, so each call to the domain is an X-Ray subsegment. (The webhook transport
// keeps named imports on purpose: no trace header goes to subscribers.)
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, Provider } from '@smithy/types';
import { type BackoffCeiling, fullJitterDelayMs, sleepMs } from '../../core/retry/full-jitter';
import { currentRetryBudget } from './opensearch-load-shedding';

/**
 * What the OpenSearch adapter (opensearch-index.ts) asks of a client: the few document and index
 * APIs it calls, each answering `{ body }` (the parsed JSON) and failing the way
 * @opensearch-project/opensearch fails. Both that library's Client (the tests and a live domain)
 * and OpenSearchHttpClient below (the Lambdas, whose bundles the library would take over their
 * size budget) satisfy it.
 */
export interface OpenSearchApi {
  search(params: { index: string; body: Record<string, unknown> }): Promise<OpenSearchResponse>;
  /** `body`: header and query lines, alternating (sent as NDJSON). */
  msearch(params: { index: string; body: Record<string, unknown>[] }): Promise<OpenSearchResponse>;
  /** `body`: action and document lines (sent as NDJSON). */
  bulk(params: { body: Record<string, unknown>[] }): Promise<OpenSearchResponse>;
  indices: {
    create(params: { index: string; body: Record<string, unknown> }): Promise<OpenSearchResponse>;
    getMapping(params: { index: string }): Promise<OpenSearchResponse>;
    putMapping(params: { index: string; body: Record<string, unknown> }): Promise<OpenSearchResponse>;
    refresh(params: { index: string }): Promise<OpenSearchResponse>;
    updateAliases(params: { body: { actions: Record<string, { index: string; alias: string }>[] } }): Promise<OpenSearchResponse>;
    delete(params: { index: string }): Promise<OpenSearchResponse>;
    getAlias(params: { name: string }): Promise<OpenSearchResponse>;
  };
}

export interface OpenSearchResponse {
  body: unknown;
  statusCode?: number | null;
}

/**
 * A non-2xx answer, shaped as @opensearch-project/opensearch's ResponseError: the status on
 * `statusCode` and `meta.statusCode`, the parsed body (with OpenSearch's `error.type` and
 * `error.reason`) on `meta.body`.
 */
export class OpenSearchResponseError extends Error {
  override readonly name = 'ResponseError';
  readonly meta: { statusCode: number; body: unknown };

  constructor(
    readonly statusCode: number,
    body: unknown,
    what: string,
  ) {
    const error = (body as { error?: { type?: string; reason?: string } | string } | null)?.error;
    const detail = typeof error === 'string' ? error : error ? `${error.type ?? 'error'}: ${error.reason ?? ''}`.trim() : '';
    super(`${what} answered ${statusCode}${detail ? ` ${detail}` : ''}`);
    this.meta = { statusCode, body };
  }
}

/** The domain could not be reached, or the connection broke (name as in @opensearch-project/opensearch). */
export class OpenSearchConnectionError extends Error {
  override readonly name = 'ConnectionError';
}

/** No answer within the request timeout (name as in @opensearch-project/opensearch). */
export class OpenSearchTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

export interface OpenSearchHttpClientOptions {
  /** The domain's URL, e.g. `https://search-x.eu-west-1.es.amazonaws.com` (http:// for a stand-in). */
  node: string;
  /** Signs every request with SigV4 for the `es` service; unsigned without. */
  signing?: { region: string; credentials: AwsCredentialIdentity | Provider<AwsCredentialIdentity> };
  /** Attempts after the first on a broken connection or a 429/502/503/504 answer (default 2). */
  maxRetries?: number;
  /** The backoff before each retry: full jitter under a ceiling from baseMs, doubling (default 50 ms to 1 s). */
  backoff?: BackoffCeiling;
  sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1): the jitter source. */
  random?: () => number;
  /** Per attempt (default 30 s). */
  requestTimeoutMs?: number;
}

type SourceData = string | ArrayBuffer | ArrayBufferView;

function bytesOf(data: SourceData): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/** SHA-256 (or its HMAC, given a secret) from node:crypto, in the shape SignatureV4 asks for. */
class NodeSha256 {
  private hash: Hash | Hmac;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }

  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(this.secret));
  }

  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }

  reset(): void {
    this.hash = this.fresh();
  }
}

/** Too many requests (the domain's search or write queue is full) and the gateway's "not now" answers. */
const RETRIED_STATUSES = new Set([429, 502, 503, 504]);
/** Short: a search waits on these within its 8 s deadline, and the SDK-less client has no other pacing. */
const DEFAULT_BACKOFF: BackoffCeiling = { baseMs: 50, maxMs: 1_000 };
const JSON_TYPE = 'application/json';
const NDJSON_TYPE = 'application/x-ndjson';

/** One NDJSON document: a line per item, each ending in a newline (as `_bulk` and `_msearch` require). */
function ndjson(lines: readonly unknown[]): string {
  return lines.map((line) => `${JSON.stringify(line)}\n`).join('');
}

function parsed(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const segment = (name: string) => encodeURIComponent(name);

/**
 * A small OpenSearch client over node:http(s): the subset of the REST API that OpenSearchIndex
 * uses, SigV4-signed for an Amazon OpenSearch Service domain (credentials from the caller, e.g.
 * the SDK's default provider chain). Kept-alive connections; a broken connection or a
 * 429/502/503/504 is tried again after a jittered, doubling backoff (each attempt signed afresh),
 * at most maxRetries times a call and within the retry budget of the request it serves
 * (opensearch-load-shedding.ts); any other non-2xx answer is an OpenSearchResponseError.
 */
export class OpenSearchHttpClient implements OpenSearchApi {
  private readonly url: URL;
  private readonly signer: SignatureV4 | undefined;
  private readonly agent: http.Agent;
  private readonly maxRetries: number;
  private readonly requestTimeoutMs: number;
  private readonly backoff: BackoffCeiling;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(options: OpenSearchHttpClientOptions) {
    this.url = new URL(options.node);
    if (this.url.protocol !== 'https:' && this.url.protocol !== 'http:') throw new Error(`OpenSearch node must be an http(s) URL, got "${options.node}"`);
    this.signer = options.signing
      ? new SignatureV4({ service: 'es', region: options.signing.region, credentials: options.signing.credentials, sha256: NodeSha256 })
      : undefined;
    this.agent = this.url.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
    this.maxRetries = options.maxRetries ?? 2;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.sleep = options.sleep ?? sleepMs;
    this.random = options.random ?? Math.random;
  }

  search(params: { index: string; body: Record<string, unknown> }): Promise<OpenSearchResponse> {
    return this.request('POST', `/${segment(params.index)}/_search`, JSON.stringify(params.body), JSON_TYPE);
  }

  msearch(params: { index: string; body: Record<string, unknown>[] }): Promise<OpenSearchResponse> {
    return this.request('POST', `/${segment(params.index)}/_msearch`, ndjson(params.body), NDJSON_TYPE);
  }

  bulk(params: { body: Record<string, unknown>[] }): Promise<OpenSearchResponse> {
    return this.request('POST', '/_bulk', ndjson(params.body), NDJSON_TYPE);
  }

  readonly indices: OpenSearchApi['indices'] = {
    create: (params) => this.request('PUT', `/${segment(params.index)}`, JSON.stringify(params.body ?? {}), JSON_TYPE),
    getMapping: (params) => this.request('GET', `/${segment(params.index)}/_mapping`),
    putMapping: (params) => this.request('PUT', `/${segment(params.index)}/_mapping`, JSON.stringify(params.body), JSON_TYPE),
    refresh: (params) => this.request('GET', `/${segment(params.index)}/_refresh`),
    updateAliases: (params) => this.request('POST', '/_aliases', JSON.stringify(params.body), JSON_TYPE),
    delete: (params) => this.request('DELETE', `/${segment(params.index)}`),
    getAlias: (params) => this.request('GET', `/_alias/${segment(params.name)}`),
  };

  private async request(method: string, path: string, body?: string, contentType?: string): Promise<OpenSearchResponse> {
    const what = `OpenSearch ${method} ${path}`;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) await this.sleep(fullJitterDelayMs(attempt, this.backoff, this.random));
      let answer: { statusCode: number; text: string };
      try {
        answer = await this.send(method, path, body, contentType);
      } catch (error) {
        if (error instanceof OpenSearchConnectionError && this.mayRetry(attempt)) continue;
        throw error;
      }
      const payload = parsed(answer.text);
      if (answer.statusCode >= 200 && answer.statusCode < 300) return { body: payload, statusCode: answer.statusCode };
      if (RETRIED_STATUSES.has(answer.statusCode) && this.mayRetry(attempt)) continue;
      throw new OpenSearchResponseError(answer.statusCode, payload, what);
    }
  }

  /** A retry within this call's attempts and the retry budget of the request it serves (withRetryBudget), when it has one. */
  private mayRetry(attempt: number): boolean {
    return attempt < this.maxRetries && (currentRetryBudget()?.take() ?? true);
  }

  private async headersFor(method: string, path: string, body: string | undefined, contentType: string | undefined): Promise<Record<string, string>> {
    const headers: Record<string, string> = { host: this.url.host, accept: JSON_TYPE };
    if (body !== undefined) {
      headers['content-type'] = contentType ?? JSON_TYPE;
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    if (!this.signer) return headers;
    const signed = await this.signer.sign({
      method,
      protocol: this.url.protocol,
      hostname: this.url.hostname,
      ...(this.url.port ? { port: Number(this.url.port) } : {}),
      path,
      query: {},
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    return signed.headers;
  }

  private async send(method: string, path: string, body: string | undefined, contentType: string | undefined): Promise<{ statusCode: number; text: string }> {
    const headers = await this.headersFor(method, path, body, contentType);
    const client = this.url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = client.request(
        {
          protocol: this.url.protocol,
          hostname: this.url.hostname,
          port: this.url.port || undefined,
          method,
          path,
          headers,
          agent: this.agent,
          timeout: this.requestTimeoutMs,
        },
        (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', (error) =>
            reject(new OpenSearchConnectionError(`OpenSearch ${method} ${path}: the answer broke off (${error.message})`, { cause: error })),
          );
        },
      );
      req.on('timeout', () => req.destroy(new OpenSearchTimeoutError(`OpenSearch ${method} ${path}: no answer within ${this.requestTimeoutMs} ms`)));
      req.on('error', (error) => {
        reject(
          error instanceof OpenSearchTimeoutError
            ? error
            : new OpenSearchConnectionError(`OpenSearch ${method} ${path}: ${(error as NodeJS.ErrnoException).code ?? error.message}`, { cause: error }),
        );
      });
      req.end(body);
    });
  }
}
