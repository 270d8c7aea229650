/**
 * Response times kept as counts in logarithmic buckets (each 25% wider than the last, from 0.5 ms
 * to about 35 s), so per-day percentiles come from atomic counter increments and stay within
 * about 12% of the true value.
 */

const SMALLEST_MS = 0.5;
const GROWTH = 1.25;
export const LATENCY_BUCKETS = 51;

export function latencyBucketOf(ms: number): number {
  if (!(ms > SMALLEST_MS)) return 0;
  return Math.min(LATENCY_BUCKETS - 1, Math.ceil(Math.log(ms / SMALLEST_MS) / Math.log(GROWTH)));
}

/** The bucket's representative time: the geometric middle of its bounds. */
function bucketMs(bucket: number): number {
  if (bucket === 0) return SMALLEST_MS;
  return SMALLEST_MS * GROWTH ** (bucket - 0.5);
}

/** The q-quantile (0..1) of the times counted in `counts` (by bucket), or null when there are none. */
export function percentileOf(counts: readonly number[], q: number): number | null {
  const total = counts.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let bucket = 0; bucket < counts.length; bucket++) {
    seen += counts[bucket] ?? 0;
    if (seen >= rank) return Math.round(bucketMs(bucket) * 100) / 100;
  }
  return null;
}
