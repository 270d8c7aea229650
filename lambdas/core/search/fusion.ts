import { LIMITS } from '../query/list-query';

/**
 * Reciprocal rank fusion (Cormack et al. 2009): a document's score is the sum over the lists it
 * appears in of 1 / (k + rank). Both search adapters fuse their keyword and k-NN lists here, so
 * hybrid ranking is the same code locally and in AWS.
 */
export const RRF_K = 60;

/**
 * How deep each list is read before fusing (Elasticsearch calls it rank_window_size): as deep as
 * the API pages (offset 10,000 plus a page of 100), so every page of the fused set is reachable.
 * A fixed depth makes the fused order the same for every page of one query, so pages never overlap.
 */
export const HYBRID_RANK_WINDOW = LIMITS.offsetMax + LIMITS.pageMax;

export interface FusedHit {
  id: string;
  /** The fused score scaled to [0, 1]: 1 means first in every list. */
  relevance: number;
}

/**
 * The weight of each list in hybrid search, [keyword, semantic]: weighted RRF, as Elasticsearch
 * and Vespa offer it. The semantic list leads (chosen on `npm run eval:search`: nDCG@10 0.567 with
 * [1, 2], 0.55 with [1, 1], 0.54 with [2, 1]).
 */
export const HYBRID_LIST_WEIGHTS: readonly [number, number] = [1, 2];

export function fuseRankings(lists: readonly (readonly string[])[], options: { k?: number; window?: number; weights?: readonly number[] } = {}): FusedHit[] {
  const k = options.k ?? RRF_K;
  const window = options.window ?? HYBRID_RANK_WINDOW;
  const weights = lists.map((_, i) => options.weights?.[i] ?? 1);
  const scores = new Map<string, number>();
  lists.forEach((list, i) => {
    const depth = Math.min(list.length, window);
    for (let rank = 1; rank <= depth; rank++) {
      const id = list[rank - 1]!;
      scores.set(id, (scores.get(id) ?? 0) + weights[i]! / (k + rank));
    }
  });
  const best = weights.reduce((sum, weight) => sum + weight, 0) / (k + 1);
  return [...scores]
    .map(([id, score]) => ({ id, relevance: Math.min(1, score / best) }))
    // Ties (the same ranks in different lists) break by id, so the order is total and stable.
    .sort((a, b) => b.relevance - a.relevance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
