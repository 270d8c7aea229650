import { describe, expect, it } from 'vitest';
import { parseBenchOptions } from '../../bench/options';
import { DEFAULT_VECTOR_SEARCH, WINDOW_MAX } from '../../lambdas/adapters/aws/opensearch-vector-search';

describe("npm run bench options: the OpenSearch part's k-NN window", () => {
  it("searches with the adapter's default window unless a flag or BENCH_OPENSEARCH_WINDOW names another, the flag first", () => {
    expect(parseBenchOptions([], {}).openSearchWindow).toBe(DEFAULT_VECTOR_SEARCH.window);
    expect(parseBenchOptions([], { BENCH_OPENSEARCH_WINDOW: '500' }).openSearchWindow).toBe(500);
    expect(parseBenchOptions(['--opensearch-window', '1000'], { BENCH_OPENSEARCH_WINDOW: '500' }).openSearchWindow).toBe(1000);
    expect(parseBenchOptions(['--opensearch-window', String(WINDOW_MAX)], {}).openSearchWindow).toBe(WINDOW_MAX);
  });

  it("refuses a window that is not a whole number from 1 to the k-NN plugin's largest k, naming the flag", () => {
    for (const raw of ['0', '-3', '2.5', 'many'])
      expect(() => parseBenchOptions([`--opensearch-window=${raw}`], {}), raw).toThrow(/--opensearch-window must be a positive integer/);
    expect(() => parseBenchOptions(['--opensearch-window', String(WINDOW_MAX + 1)], {})).toThrow(`--opensearch-window is at most ${WINDOW_MAX}`);
  });
});
