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
 * The minimum cosine similarity a semantic match needs (`semantic`), and the lower one a keyword
 * match needs to stay in a hybrid result set (`keyword`), per embedder: similarities mean
 * different things in different models (mean-pooled word vectors of any two English texts sit
 * far higher than a sentence transformer's). Calibrated on the labelled on-topic queries and the
 * off-topic probes of `npm run eval:search` (docs/benchmarks.md, "Floors").
 */
export interface RelevanceFloors {
  semantic: number;
  keyword: number;
}

export const DEFAULT_RELEVANCE_FLOORS: Readonly<Record<string, RelevanceFloors>> = {
  // Semantic: above the probes' best semantic matches; keyword: above their best lexical ones.
  'onnx:all-minilm-l6-v2-q': { semantic: 0.43, keyword: 0.28 },
  // The other candidates (npm run eval:models): just above the probes' best cosine.
  'onnx:bge-small-en-v1.5-q': { semantic: 0.61, keyword: 0.55 },
  'onnx:e5-small-v2-q': { semantic: 0.83, keyword: 0.8 },
  // The fallback: word vectors cannot tell an off-topic query from an on-topic one this way.
  'wink-sg-100d': { semantic: 0.6, keyword: -1 },
  // Not calibrated here (no Bedrock access): set -c semanticFloor= after measuring on a stage.
  'bedrock:amazon.titan-embed-text-v2:0': { semantic: 0.3, keyword: 0.1 },
};

export function semanticFloorOf(space: VectorSpace, configured?: number): number {
  if (configured !== undefined) {
    if (!(configured >= 0 && configured < 1)) throw new Error(`semantic floor must be in [0, 1), got ${configured}`);
    return configured;
  }
  const floors = DEFAULT_RELEVANCE_FLOORS[space.embedder];
  if (floors === undefined) throw new Error(`no semantic floor is configured for embedder ${space.embedder}; set one explicitly`);
  return floors.semantic;
}

/** The keyword floor of hybrid search: the embedder's, never above the semantic floor in force; none (-1) for an unknown embedder. */
export function keywordFloorOf(space: VectorSpace, semanticFloor: number): number {
  const floors = DEFAULT_RELEVANCE_FLOORS[space.embedder];
  return Math.min(floors?.keyword ?? -1, semanticFloor);
}

/**
 * The floor of partial keyword matches: the semantic floor in force, so a partial match is one
 * semantic search would return too (a lower one let "used car prices in Ohio" find an Ohio
 * transportation grant through the word "Ohio"); undefined (no partial matches) for an embedder
 * without a keyword floor, whose cosines cannot tell on-topic from off-topic.
 */
export function partialFloorOf(space: VectorSpace, semanticFloor: number): number | undefined {
  const floors = DEFAULT_RELEVANCE_FLOORS[space.embedder];
  return floors && floors.keyword > -1 ? semanticFloor : undefined;
}

/** Four decimals tell any two results apart a reader cares about, without float noise in the JSON. */
export function roundedRelevance(relevance: number): number {
  return Math.round(relevance * 10_000) / 10_000;
}
