/**
 * The recall of the OpenSearch adapter's approximate plan: for each query and filter set, the
 * nearest records the window (k-NN on the HNSW graph, the filters inside) ranks first, against
 * the exact scan of every filtered record (the k-NN plugin's scoring script), on the same index.
 * Used by `npm run eval:search -- --index opensearch` (docs/benchmarks.md) and by the engine test
 * that holds the targets (test/engines/knn-window-recall.test.ts).
 */
import type { OpenSearchApi } from '../../lambdas/adapters/aws/opensearch-client';
import { type Dsl, filterClauses } from '../../lambdas/adapters/aws/opensearch-filters';
import { VECTOR_FIELD } from '../../lambdas/adapters/aws/opensearch-mappings';
import { windowClause } from '../../lambdas/adapters/aws/opensearch-text-clauses';
import { addDays } from '../../lambdas/core/dates';
import { parseListQuery } from '../../lambdas/core/query/list-query';
import type { ResourceKind } from '../../lambdas/core/records';
import type { Embedder } from '../../lambdas/ports/embedder';

/** The depths recall is measured at. */
export const RECALL_DEPTHS = [10, 100] as const;

/** Scores closer than this are a tie: records with one text have one vector, and either may come first. */
const TIE = 1e-6;

export interface RecallCase {
  /** The filter set's name, for the report. */
  filters: string;
  clauses: Dsl[];
}

export interface RecallOfFilters {
  filters: string;
  /** Queries with at least one record passing the filters. */
  queries: number;
  /** Mean recall at each depth (RECALL_DEPTHS), and the worst query's. */
  mean: Record<(typeof RECALL_DEPTHS)[number], number>;
  worst: Record<(typeof RECALL_DEPTHS)[number], number>;
}

/**
 * The filter sets recall is measured with, as the list endpoints build them: none at all, the
 * default listing (what can be applied for), and narrower ones (deadlines within 60 days, a
 * state, a category or set-aside), some of which leave few enough records for the engine to search
 * exactly.
 */
export function recallCases(kind: Exclude<ResourceKind, 'funder'>, today: string): RecallCase[] {
  const cases: [string, Record<string, string>][] = [
    ['none (every record)', { opportunity_type: 'all' }],
    ['the default listing (applyable)', {}],
    ['deadline within 60 days', { deadline_before: addDays(today, 60) }],
    ['states=CA, every record', { opportunity_type: 'all', states: 'CA' }],
    kind === 'grant' ? ['category=Health', { category: 'Health' }] : ['set_aside=SBA', { set_aside: 'SBA' }],
  ];
  return cases.map(([filters, params]) => {
    const raw = Object.fromEntries(Object.entries(params).map(([name, value]) => [name, [value]]));
    return { filters, clauses: filterClauses(parseListQuery(kind, raw, today)) };
  });
}

/** The texts' query vectors (those the embedder has a vector for). */
export async function queryVectors(embedder: Embedder, texts: readonly string[]): Promise<Float32Array[]> {
  const vectors = await embedder.embed([...texts], 'query');
  return vectors.filter((vector): vector is Float32Array => vector !== null && vector !== undefined);
}

interface Hit {
  id: string;
  score: number;
}

const exactBody = (vector: Float32Array, filters: Dsl[], size: number): Dsl => ({
  query: {
    script_score: {
      query: { bool: { filter: [{ exists: { field: VECTOR_FIELD } }, ...filters] } },
      script: { source: 'knn_score', lang: 'knn', params: { field: VECTOR_FIELD, query_value: Array.from(vector), space_type: 'cosinesimil' } },
    },
  },
  size,
  _source: false,
  track_total_hits: false,
});

const approximateBody = (vector: Float32Array, filters: Dsl[], window: number, size: number): Dsl => ({
  query: windowClause(vector, null, filters, window),
  size,
  _source: false,
  track_total_hits: false,
});

async function hitsOf(client: OpenSearchApi, index: string, body: Dsl): Promise<Hit[]> {
  const { body: response } = (await client.search({ index, body })) as unknown as { body: { hits: { hits: { _id: string; _score: number }[] } } };
  return response.hits.hits.map((hit) => ({ id: hit._id, score: hit._score }));
}

/**
 * The share of the exact top `depth` the approximate list holds, ties counted as found (as
 * ann-benchmarks does): an approximate hit scoring at least the exact list's last is a true
 * neighbour whichever of the tied records it is. 1 when nothing passes the filters.
 */
export function recallAt(exact: readonly Hit[], approximate: readonly Hit[], depth: number): number {
  const truth = exact.slice(0, depth);
  if (truth.length === 0) return 1;
  const threshold = truth[truth.length - 1]!.score - TIE;
  const found = approximate.slice(0, depth).filter((hit) => hit.score >= threshold).length;
  return Math.min(1, found / truth.length);
}

/** Recall of the window against the exact scan, per filter set, over the query vectors. */
export async function measureWindowRecall(
  client: OpenSearchApi,
  index: string,
  vectors: readonly Float32Array[],
  cases: readonly RecallCase[],
  window: number,
): Promise<RecallOfFilters[]> {
  const deepest = Math.max(...RECALL_DEPTHS);
  const results: RecallOfFilters[] = [];
  for (const { filters, clauses } of cases) {
    const sums = { 10: 0, 100: 0 };
    const worst = { 10: 1, 100: 1 };
    let queries = 0;
    for (const vector of vectors) {
      const exact = await hitsOf(client, index, exactBody(vector, clauses, deepest));
      if (exact.length === 0) continue;
      const approximate = await hitsOf(client, index, approximateBody(vector, clauses, window, deepest));
      queries++;
      for (const depth of RECALL_DEPTHS) {
        const recall = recallAt(exact, approximate, depth);
        sums[depth] += recall;
        worst[depth] = Math.min(worst[depth], recall);
      }
    }
    results.push({ filters, queries, mean: { 10: queries ? sums[10] / queries : 1, 100: queries ? sums[100] / queries : 1 }, worst });
  }
  return results;
}
