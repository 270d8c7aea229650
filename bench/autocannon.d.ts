// autocannon ships no types; this covers the part of its programmatic API the bench uses.
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds before a request counts as a timeout. */
    timeout?: number;
    headers?: Record<string, string>;
    /**
     * Cycled through per connection; setupRequest may rewrite each request before it is sent, and
     * onResponse sees each response's status and body. `context` is the connection's own object.
     */
    requests?: {
      setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams;
      onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
    }[];
  }

  interface RequestParams {
    method: string;
    path: string;
    headers: Record<string, string>;
    body?: string | Buffer;
    [key: string]: unknown;
  }

  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p99: number;
  }

  interface Result {
    url: string;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    statusCodeStats: Record<string, { count: number }>;
    /** Per-second samples of completed requests. */
    requests: Histogram & { sent: number };
    /** Milliseconds, 2xx responses only, whole-millisecond resolution. */
    latency: Histogram;
    throughput: Histogram;
  }

  interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void;
    on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void): this;
    /** A socket error or a timeout (a request unanswered after `timeout` seconds). */
    on(event: 'reqError', listener: (error: Error) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  function autocannon(options: Options): Instance;
  export = autocannon;
}
