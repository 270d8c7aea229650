import type { VectorSpace } from '../../ports/embedder';

/** Semantic relevance is the cosine similarity clipped to [0, 1] (DESIGN.md section 3). */
export function relevanceOfCosine(cosine: number): number {
  return Number.isFinite(cosine) ? Math.min(1, Math.max(0, cosine)) : 0;
}

/** OpenSearch's cosinesimil score is (1 + cos) / 2. */
export function cosineOfOpenSearchScore(score: number): number {
  return 2 * score - 1;
}

export function openSearchScoreOfCosine(cosine: number): number {
  return (1 + cosine) / 2;
}

/**
 * The minimum cosine similarity a semantic match needs, per embedder: similarities mean different
 * things in different models (mean-pooled word vectors of any two English texts sit far higher
 * than Titan's). Chosen on the labelled queries of `npm run eval:search` (docs/benchmarks.md).
 */
export const DEFAULT_SEMANTIC_FLOORS: Readonly<Record<string, number>> = {
  'wink-sg-100d': 0.6,
  'bedrock:amazon.titan-embed-text-v2:0': 0.3,
};

export function semanticFloorOf(space: VectorSpace, configured?: number): number {
  if (configured !== undefined) {
    if (!(configured >= 0 && configured < 1)) throw new Error(`semantic floor must be in [0, 1), got ${configured}`);
    return configured;
  }
  const floor = DEFAULT_SEMANTIC_FLOORS[space.embedder];
  if (floor === undefined) throw new Error(`no semantic floor is configured for embedder ${space.embedder}; set one explicitly`);
  return floor;
}

/** Four decimals tell any two results apart a reader cares about, without float noise in the JSON. */
export function roundedRelevance(relevance: number): number {
  return Math.round(relevance * 10_000) / 10_000;
}
