import type { VectorSpace } from '../../ports/embedder';

/**
 * How an embedder's cosine similarities are read (DESIGN.md section 3, "Relevance"). Cosines mean
 * different things in different models: every text pair of bge-small scores 0.5 or more, and
 * mean-pooled word vectors of any two English texts sit higher still. So each embedder has its
 * own scale, calibrated on the labelled queries and off-topic probes of `npm run eval:search`
 * (docs/benchmarks.md, "Search quality"):
 *
 * - `floor`: the least cosine a query's best record needs for the query to be answered on the
 *   model's word alone (the interface's minimum-relevance floor). An off-topic query's best record
 *   stays under it, so it is answered with nothing in semantic and hybrid modes.
 * - `lexicalFloor`: a lower floor, for a query whose own words confirm the topic: when a record
 *   the words match in full (or an identifier) also reaches this cosine, the query is on topic and
 *   its semantic matches are every record from here up (query-floor.ts). Short queries ("youth",
 *   "janitorial") have lower cosines than sentences, and this is how they are still answered.
 * - `shortFloor`: the floor for a query of one or two words, whose off-topic cosines run higher.
 * - `upper`: the cosine of a match as close as the model's matches get (relevance 1).
 */
export interface SimilarityScale {
  floor: number;
  shortFloor: number;
  lexicalFloor: number;
  /**
   * The least cosine a grant needs to be a candidate for an applicant's profile (grant matching):
   * a mission is a paragraph, not a query, and its cosines with the grants it fits run lower. It
   * is calibrated with the match cut-off (lambdas/core/matching/scoring-config.ts), which decides
   * what is a match, so it moves only when `npm run eval:match` is rerun.
   */
  profileFloor: number;
  upper: number;
}

/**
 * Calibrated by `npm run eval:models` and `npm run eval:search` on ../shared/data
 * (docs/benchmarks.md, "The local embedding model" and "Floor calibration"), by one rule for every
 * local model: the floor 0.005 above the best cosine any of the calibration probes reaches,
 * rounded up to 0.001; the upper reference the 90th percentile of the labelled queries' best
 * cosines. The lexical floor is calibrated for the default model only (the others keep their
 * floor): 0.005 above the best cosine any calibration probe reaches among the records its own
 * words match.
 */
export const SIMILARITY_SCALES: Readonly<Record<string, SimilarityScale>> = {
  'onnx:bge-small-en-v1.5-q': { floor: 0.669, shortFloor: 0.688, lexicalFloor: 0.499, profileFloor: 0.527, upper: 0.81 },
  'onnx:bge-small-en-v1.5': { floor: 0.632, shortFloor: 0.632, lexicalFloor: 0.632, profileFloor: 0.532, upper: 0.81 },
  'onnx:all-minilm-l6-v2-q': { floor: 0.52, shortFloor: 0.52, lexicalFloor: 0.52, profileFloor: 0.42, upper: 0.72 },
  'onnx:all-minilm-l6-v2': { floor: 0.52, shortFloor: 0.52, lexicalFloor: 0.52, profileFloor: 0.42, upper: 0.72 },
  'onnx:e5-small-v2-q': { floor: 0.841, shortFloor: 0.841, lexicalFloor: 0.841, profileFloor: 0.741, upper: 0.89 },
  'onnx:e5-small-v2': { floor: 0.835, shortFloor: 0.835, lexicalFloor: 0.835, profileFloor: 0.735, upper: 0.89 },
  // The fallback: word vectors cannot tell an off-topic query from an on-topic one, so words never lower its floor.
  'wink-sg-100d': { floor: 0.6, shortFloor: 0.6, lexicalFloor: 0.6, profileFloor: 0.5, upper: 0.95 },
  // Not calibrated here (no Bedrock access): set -c semanticFloor= after measuring on a stage.
  'bedrock:amazon.titan-embed-text-v2:0': { floor: 0.3, shortFloor: 0.3, lexicalFloor: 0.3, profileFloor: 0.2, upper: 0.75 },
};

/** Floors are calibrated to 0.001; derived ones are kept there, free of float noise. */
const thousandths = (cosine: number) => Math.round(cosine * 1000) / 1000;

/** How far below the floor a profile's candidates reach for an embedder not calibrated here. */
const UNCALIBRATED_PROFILE_DROP = 0.1;

/**
 * The embedder's scale, with a configured floor in place of its own: the other floors keep their
 * distances from it, and the upper reference stays unless the floor comes within 0.05 of
 * it; then (and for an embedder not calibrated here) it is halfway from the floor to 1.
 */
export function similarityScaleOf(space: VectorSpace, configuredFloor?: number): SimilarityScale {
  const known = SIMILARITY_SCALES[space.embedder];
  if (configuredFloor !== undefined) {
    if (!(configuredFloor >= 0 && configuredFloor < 1)) throw new Error(`semantic floor must be in [0, 1), got ${configuredFloor}`);
    const upper = known && known.upper > configuredFloor + 0.05 ? known.upper : configuredFloor + (1 - configuredFloor) / 2;
    const lexicalFloor = Math.max(0, thousandths(configuredFloor - (known ? known.floor - known.lexicalFloor : 0)));
    const shortFloor = Math.min(0.99, thousandths(configuredFloor + (known ? known.shortFloor - known.floor : 0)));
    const profileFloor = Math.max(0, thousandths(configuredFloor - (known ? known.floor - known.profileFloor : UNCALIBRATED_PROFILE_DROP)));
    return { floor: configuredFloor, shortFloor, lexicalFloor, profileFloor, upper };
  }
  if (known === undefined) throw new Error(`no semantic floor is configured for embedder ${space.embedder}; set one explicitly`);
  return known;
}

export function semanticFloorOf(space: VectorSpace, configured?: number): number {
  return similarityScaleOf(space, configured).floor;
}

/** The relevance of a semantic match at the floor: as close as a query must come to be answered on the model's word alone. */
export const FLOOR_RELEVANCE = 0.5;

/** The relevance of a semantic match at the lexical floor: the least any match has, kept because the query's own words confirm its topic. */
export const LEXICAL_FLOOR_RELEVANCE = 0.25;

/**
 * A semantic match's relevance, on fixed anchors so 0.5 and 0.9 mean the same in every deployment
 * whatever its embedder: LEXICAL_FLOOR_RELEVANCE at the lexical floor, FLOOR_RELEVANCE at the
 * floor, 1 at the upper reference, linear between and clipped to [0, 1] (0.9: a cosine 80% of
 * the way from the floor to the upper reference).
 */
export function relevanceOfCosine(cosine: number, scale: SimilarityScale): number {
  if (!Number.isFinite(cosine)) return 0;
  const { floor, lexicalFloor, upper } = scale;
  if (cosine < floor && lexicalFloor < floor) {
    return Math.max(0, LEXICAL_FLOOR_RELEVANCE + (FLOOR_RELEVANCE - LEXICAL_FLOOR_RELEVANCE) * ((cosine - lexicalFloor) / (floor - lexicalFloor)));
  }
  const relevance = FLOOR_RELEVANCE + (1 - FLOOR_RELEVANCE) * ((cosine - floor) / (upper - floor));
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
