// Retries of idempotent requests, as a fetch wrapper under openapi-fetch.

export interface RetryOptions {
  /** Attempts in all, the first included (default 3; 1 turns retries off). */
  maxAttempts?: number;
  /**
   * The longest wait before a retry, in ms (default 30,000). A Retry-After asking for longer is
   * not retried at all: the error is thrown at once with `retryAfterSeconds`, since retrying
   * sooner than the service asked would only fail again (a daily quota resets at 00:00 UTC).
   */
  maxDelayMs?: number;
  /** The backoff's base when the answer has no Retry-After: attempt n waits random(0, min(max, base x 2^(n-1))) (default 500). */
  baseDelayMs?: number;
  /** How to wait (tests inject one); the default is a timer that an aborted request's signal cancels. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The clock Retry-After's HTTP dates are read against, in ms since the epoch (default Date.now). */
  now?: () => number;
  /** Uniform in [0, 1) for the jitter (default Math.random). */
  random?: () => number;
}

/** Statuses worth another try of an idempotent request: rate limited, or the service or a gateway briefly unavailable. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * POSTs that only read: semantic search and grant matching change nothing, so they are retried
 * like GETs. Every other POST is sent once.
 */
export const READ_ONLY_POST_PATHS: readonly string[] = ['/semantic-search', '/match-grants-api'];

export function isIdempotent(request: Request): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return true;
  if (request.method !== 'POST') return false;
  const { pathname } = new URL(request.url);
  return READ_ONLY_POST_PATHS.some((path) => pathname.endsWith(path));
}

/** The ms a Retry-After value asks for (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/**
 * `fetch`, with idempotent requests (isIdempotent) tried again on a RETRYABLE_STATUSES answer or a
 * network failure, up to maxAttempts in all. The wait is the answer's Retry-After when it has one
 * (seconds or an HTTP date), else full-jitter exponential backoff. Other 4xx and 500 are never
 * retried, nor an aborted request.
 */
export function retryingFetch(fetchImpl: (request: Request) => Promise<Response>, options: RetryOptions = {}): (request: Request) => Promise<Response> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 3);
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const backoff = (attempt: number) => Math.floor(random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)));

  return async (request) => {
    if (!isIdempotent(request) || maxAttempts === 1) return fetchImpl(request);
    for (let attempt = 1; ; attempt++) {
      const last = attempt === maxAttempts;
      let response: Response;
      try {
        // A clone per attempt: a POST body can be read only once.
        response = await fetchImpl(last ? request : request.clone());
      } catch (error) {
        if (last || isAbort(error) || request.signal?.aborted) throw error;
        await sleep(backoff(attempt), request.signal);
        continue;
      }
      if (last || !RETRYABLE_STATUSES.has(response.status)) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'), now());
      if (asked !== undefined && asked > maxDelayMs) return response;
      // Frees the connection of an answer that will not be read.
      await response.body?.cancel().catch(() => {});
      await sleep(asked ?? backoff(attempt), request.signal);
    }
  };
}
