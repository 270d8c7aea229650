import type { VectorSpace } from '../../ports/embedder';

/**
 * How an embedder's cosine similarities are read (DESIGN.md section 3, "Relevance"). Cosines mean
 * different things in different models: every text pair of bge-small scores 0.5 or more, and
 * mean-pooled word vectors of any two English texts sit higher still. So each embedder has its
 * own scale, calibrated on the labelled queries and off-topic probes of `npm run eval:search`
 * (docs/benchmarks.md, "Search quality"):
 *
 * - `floor`: the least cosine a record needs to match a query at all (the interface's
 *   minimum-relevance floor). A query whose best record is under it, an off-topic one, is
 *   answered with nothing, in every search mode.
 * - `upper`: the cosine of a match as close as the model's matches get (relevance 1).
 * - `gatesKeywords`: the floor also holds for keyword matches, and lets in partial ones (a
 *   telling word, fewer than the minimum-should-match; keyword-query.ts). False for an embedder
 *   whose cosines cannot tell on-topic from off-topic: keyword search then returns every full
 *   lexical match, as it does while the model is down.
 */
export interface SimilarityScale {
  floor: number;
  upper: number;
  gatesKeywords: boolean;
}

/**
 * Calibrated by `npm run eval:models` on ../shared/data (docs/benchmarks.md, "The local embedding
 * model"), by one rule for every local model: the floor 0.005 above the best cosine any of the 40
 * calibration probes reaches, rounded up to 0.001; the upper reference the 90th percentile of the
 * labelled queries' best cosines. Only bge-small-en-v1.5 leaves every labelled query's best match
 * above its floor; the others must either answer a probe or leave queries unanswered.
 */
export const SIMILARITY_SCALES: Readonly<Record<string, SimilarityScale>> = {
  'onnx:bge-small-en-v1.5-q': { floor: 0.627, upper: 0.81, gatesKeywords: true },
  'onnx:bge-small-en-v1.5': { floor: 0.632, upper: 0.81, gatesKeywords: true },
  'onnx:all-minilm-l6-v2-q': { floor: 0.52, upper: 0.72, gatesKeywords: true },
  'onnx:all-minilm-l6-v2': { floor: 0.52, upper: 0.72, gatesKeywords: true },
  'onnx:e5-small-v2-q': { floor: 0.841, upper: 0.89, gatesKeywords: true },
  'onnx:e5-small-v2': { floor: 0.835, upper: 0.89, gatesKeywords: true },
  // The fallback: word vectors cannot tell an off-topic query from an on-topic one.
  'wink-sg-100d': { floor: 0.6, upper: 0.95, gatesKeywords: false },
  // Not calibrated here (no Bedrock access): set -c semanticFloor= after measuring on a stage.
  'bedrock:amazon.titan-embed-text-v2:0': { floor: 0.3, upper: 0.75, gatesKeywords: true },
};

/**
 * The embedder's scale, with a configured floor in place of its own. The upper reference stays
 * unless the floor comes within 0.05 of it; then (and for an embedder not calibrated here) it is
 * halfway from the floor to 1.
 */
export function similarityScaleOf(space: VectorSpace, configuredFloor?: number): SimilarityScale {
  const known = SIMILARITY_SCALES[space.embedder];
  if (configuredFloor !== undefined) {
    if (!(configuredFloor >= 0 && configuredFloor < 1)) throw new Error(`semantic floor must be in [0, 1), got ${configuredFloor}`);
    const upper = known && known.upper > configuredFloor + 0.05 ? known.upper : configuredFloor + (1 - configuredFloor) / 2;
    return { floor: configuredFloor, upper, gatesKeywords: known?.gatesKeywords ?? false };
  }
  if (known === undefined) throw new Error(`no semantic floor is configured for embedder ${space.embedder}; set one explicitly`);
  return known;
}

export function semanticFloorOf(space: VectorSpace, configured?: number): number {
  return similarityScaleOf(space, configured).floor;
}

/** The relevance every search mode gives a record at the floor: the least a semantic match has. */
export const FLOOR_RELEVANCE = 0.5;

/**
 * A semantic match's relevance: FLOOR_RELEVANCE at the floor, 1 at the upper reference, linear
 * between and clipped to [0, 1], so 0.5 and 0.9 mean the same in every deployment whatever its
 * embedder (0.9: a cosine 80% of the way from the floor to the upper reference).
 */
export function relevanceOfCosine(cosine: number, scale: SimilarityScale): number {
  if (!Number.isFinite(cosine)) return 0;
  const relevance = FLOOR_RELEVANCE + (1 - FLOOR_RELEVANCE) * ((cosine - scale.floor) / (scale.upper - scale.floor));
  return Math.min(1, Math.max(0, relevance));
}

/** OpenSearch's cosinesimil score is (1 + cos) / 2. */
export function cosineOfOpenSearchScore(score: number): number {
  return 2 * score - 1;
}

export function openSearchScoreOfCosine(cosine: number): number {
  return (1 + cosine) / 2;
}

/** Four decimals tell any two results apart a reader cares about, without float noise in the JSON. */
export function roundedRelevance(relevance: number): number {
  return Math.round(relevance * 10_000) / 10_000;
}
