import type { Embedder } from '../../ports/embedder';
import type { MetricsRecorder } from '../../ports/metrics';
import type { SearchIndex } from '../../ports/search-index';
import { METRIC_NAMES } from '../metric-names';

/** Milliseconds from an arbitrary origin (performance.now; tests pass their own). */
export type Stopwatch = () => number;

const performanceNow: Stopwatch = () => performance.now();

/**
 * The embedder, with the time of each call to the model as EmbeddingLatency (a query vector, or a
 * batch of records at index time) and each failed call as EmbeddingFailures. Wrap the model itself, inside any memo, so remembered vectors
 * do not count.
 */
export function measuredEmbedder(inner: Embedder, metrics: MetricsRecorder, now: Stopwatch = performanceNow): Embedder {
  return {
    space: inner.space,
    async embed(texts, purpose) {
      const startedAt = now();
      try {
        return await inner.embed(texts, purpose);
      } catch (error) {
        // Hybrid search answers from its keyword half when this fails: without the count, an
        // outage of the model would show on no graph and page no one.
        metrics.record(METRIC_NAMES.embeddingFailures, 'Count', 1);
        throw error;
      } finally {
        metrics.record(METRIC_NAMES.embeddingLatency, 'Milliseconds', now() - startedAt);
      }
    },
  };
}

/**
 * The search index, with the time of each search (a query with a search term) as SearchLatency
 * by mode: keyword, semantic or hybrid. Listings without a search term and writes are not timed.
 */
export function measuredSearchIndex(inner: SearchIndex, metrics: MetricsRecorder, now: Stopwatch = performanceNow): SearchIndex {
  return {
    async query(kind, query, semantic) {
      if (!query.search) return inner.query(kind, query, semantic);
      const startedAt = now();
      try {
        return await inner.query(kind, query, semantic);
      } finally {
        metrics.record(METRIC_NAMES.searchLatency, 'Milliseconds', now() - startedAt, { searchMode: query.search.mode });
      }
    },
    upsert: (kind, records, vectors) => inner.upsert(kind, records, vectors),
    remove: (kind, ids) => inner.remove(kind, ids),
  };
}
