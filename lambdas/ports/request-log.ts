/** One request an API key made, as its owner sees it: never the query string, body, headers or key. */
export interface RequestLogEntry {
  /** When the request came (ISO 8601, UTC). */
  at: string;
  method: string;
  /** The path without its query string. */
  path: string;
  status: number;
  latencyMs: number;
  /** The id the response carried in X-Request-Id (API Gateway's in AWS, the local server's locally). */
  requestId: string;
}

export interface RequestLogPage {
  /** Newest first. */
  entries: RequestLogEntry[];
  /** Opaque; pass it back for the next older page. Null when there is none. */
  nextCursor: string | null;
}

/** The recent requests of each key, kept for a bounded time (core/usage/request-log.ts). */
export interface RequestLog {
  append(keyId: string, entry: RequestLogEntry): Promise<void>;
  /** The key's newest `limit` entries still within retention at `now`, older than the cursor's when one is given. */
  recent(keyId: string, page: { limit: number; cursor: string | null; now: Date }): Promise<RequestLogPage>;
}
