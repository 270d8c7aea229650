import { IDENTIFIER_FIELD_STEP, IDENTIFIER_MATCH_SCORE } from './identifiers';
import { relevanceOfCosine, type SimilarityScale } from './relevance';

/**
 * Hybrid search fuses the keyword list (every keyword match with its BM25: keyword-query.ts) and
 * the semantic list (every record at or above the query's floor: query-floor.ts), in core so both
 * adapters rank alike. Records an identifier field matched come first, whatever the rest says.
 */

/**
 * How much of a fused relevance comes from the semantic side: relevance = w × semantic relevance
 * (relevanceOfCosine; 0 when not a semantic match) + (1 - w) × BM25 / the best BM25 of the
 * query's keyword matches (0 when not one). A convex combination, as OpenSearch's normalization
 * processor makes one, rather than reciprocal rank fusion: the semantic part is on the embedder's
 * calibrated scale, so the fused relevance says how strong a match is, not only where it ranks.
 * Chosen on the tuning queries of `npm run eval:search` (docs/benchmarks.md): reciprocal rank
 * fusion (k 20 or 60) and weights from 0.5 to 0.8 ranked within 0.015 nDCG@10 of it.
 */
export const HYBRID_SEMANTIC_WEIGHT = 0.7;

/** A keyword match and its keyword score (higher is better; an identifier match's offset included, identifiers.ts). */
export interface KeywordHit<T> {
  key: T;
  score: number;
}

/** A semantic match and its cosine with the query. */
export interface SemanticHit<T> {
  key: T;
  cosine: number;
}

export interface FusedHit<T> {
  key: T;
  /** The order of the fused set, best first: above 1 for identifier matches, which lead it. */
  score: number;
  /** In [0, 1]: what the result carries. */
  relevance: number;
}

/** A keyword score without an identifier match's offset: the record's BM25. */
function bm25Of(score: number): number {
  return score >= IDENTIFIER_MATCH_SCORE ? (score - IDENTIFIER_MATCH_SCORE) % IDENTIFIER_FIELD_STEP : score;
}

function compareKeys<T>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Every record of either list with its fused score and relevance, best first, ties by key (so
 * pages never overlap).
 */
export function fuseHybrid<T>(keyword: readonly KeywordHit<T>[], semantic: readonly SemanticHit<T>[], scale: SimilarityScale): FusedHit<T>[] {
  // One slot per record of the union, its keyword score and cosine side by side (NaN: not in that list).
  const slotOf = new Map<T, number>();
  const keys: T[] = [];
  const scores: number[] = [];
  const cosines: number[] = [];
  let best = 0;
  for (const hit of keyword) {
    slotOf.set(hit.key, keys.length);
    keys.push(hit.key);
    scores.push(hit.score);
    cosines.push(Number.NaN);
    best = Math.max(best, bm25Of(hit.score));
  }
  for (const hit of semantic) {
    const slot = slotOf.get(hit.key);
    if (slot !== undefined) {
      cosines[slot] = hit.cosine;
      continue;
    }
    keys.push(hit.key);
    scores.push(Number.NaN);
    cosines.push(hit.cosine);
  }
  const fused: FusedHit<T>[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const cosine = cosines[i]!;
    const score = scores[i]!;
    const semanticPart = Number.isNaN(cosine) ? 0 : relevanceOfCosine(cosine, scale);
    const strength = Number.isNaN(score) ? 0 : best > 0 ? Math.max(0, bm25Of(score)) / best : 1;
    const relevance = Math.min(1, HYBRID_SEMANTIC_WEIGHT * semanticPart + (1 - HYBRID_SEMANTIC_WEIGHT) * strength);
    // An identifier match leads, in the order its keyword score gives (field weight, then BM25).
    const identifier = !Number.isNaN(score) && score >= IDENTIFIER_MATCH_SCORE;
    fused[i] = identifier ? { key: keys[i]!, score: 2 + score / (IDENTIFIER_MATCH_SCORE * 10), relevance: 1 } : { key: keys[i]!, score: relevance, relevance };
  }
  return fused.sort((a, b) => b.score - a.score || compareKeys(a.key, b.key));
}
