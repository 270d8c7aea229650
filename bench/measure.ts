import autocannon from 'autocannon';

type AutocannonRequests = Parameters<typeof autocannon>[0]['requests'];

export interface Measurement {
  /** Mean of autocannon's per-second samples. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
}

export interface LoadOptions {
  connections: number;
  durationSeconds: number;
  /** When set, each request's path (and query) comes from here instead of the URL's. */
  nextPath?: () => string;
  /** When set, each request's method, path and JSON body come from here (wins over nextPath). */
  nextRequest?: () => JsonRequest;
  headers?: Record<string, string>;
}

/** One request with a JSON body; sent with Content-Type: application/json (autocannon sets the length). */
export interface JsonRequest {
  method: 'POST';
  /** Path and query, including the server's base path. */
  path: string;
  body: string;
}

// Beyond the run itself: connection setup, the last in-flight responses, autocannon's wrap-up.
const OVERRUN_ALLOWANCE_MS = 30_000;
const REQUEST_TIMEOUT_SECONDS = 10;

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** autocannon calls setupRequest before every request it sends, so each one can differ. */
function requestsOf({ nextPath, nextRequest }: LoadOptions): AutocannonRequests {
  if (nextRequest) {
    return [
      {
        setupRequest: (request) => {
          const { method, path, body } = nextRequest();
          return { ...request, method, path, body, headers: { ...request.headers, 'Content-Type': 'application/json' } };
        },
      },
    ];
  }
  if (nextPath) return [{ setupRequest: (request) => ({ ...request, path: nextPath() }) }];
  return undefined;
}

/**
 * Closed-loop load at fixed concurrency for a fixed time. Latencies are collected from the
 * 'response' events rather than autocannon's histogram, which keeps whole milliseconds only and
 * would report the bare server's p50 as 0. Anything but a clean all-200 run throws: a fast error
 * page must never pass for throughput.
 */
export async function measure(url: string, options: LoadOptions): Promise<Measurement> {
  const latencies: number[] = [];
  const instance = autocannon({
    url,
    connections: options.connections,
    duration: options.durationSeconds,
    timeout: REQUEST_TIMEOUT_SECONDS,
    headers: options.headers,
    requests: requestsOf(options),
  });
  instance.on('response', (_client, _status, _bytes, responseTimeMs) => {
    latencies.push(responseTimeMs);
  });

  let guard: NodeJS.Timeout | undefined;
  const overrun = new Promise<never>((_resolve, reject) => {
    guard = setTimeout(
      () => {
        instance.stop();
        reject(new Error(`${url}: load run did not finish within ${options.durationSeconds} s + ${OVERRUN_ALLOWANCE_MS / 1000} s`));
      },
      options.durationSeconds * 1000 + OVERRUN_ALLOWANCE_MS,
    );
  });
  const result = await Promise.race([Promise.resolve(instance), overrun]).finally(() => clearTimeout(guard));

  const statuses = Object.keys(result.statusCodeStats);
  const clean = result.errors === 0 && result.timeouts === 0 && result.non2xx === 0 && statuses.every((s) => s === '200');
  if (!clean || result.requests.total === 0) {
    throw new Error(
      `${url}: unclean run — ${result.requests.total} responses, status codes ${JSON.stringify(result.statusCodeStats)}, ` +
        `non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}`,
    );
  }

  const sorted = Float64Array.from(latencies).sort();
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    requests: result.requests.total,
  };
}
