import { LIMITS } from '../query/list-query';
import { relevanceOfCosine, type SimilarityScale } from './relevance';

/**
 * Hybrid search fuses the keyword and semantic lists by a convex combination of their scores, as
 * OpenSearch's normalization processor does, in core so both adapters rank alike:
 *
 *   relevance = HYBRID_SEMANTIC_WEIGHT × semantic relevance (relevanceOfCosine; 0 when not a semantic match)
 *             + (1 - HYBRID_SEMANTIC_WEIGHT) × BM25 / the best BM25 of the query's keyword matches (0 when not one)
 *
 * The semantic part is on the embedder's calibrated scale, so the fused relevance says how strong
 * a match is, not only where it ranks: reciprocal rank fusion gave the first result of a weak
 * query the same relevance as that of a strong one. Chosen on `npm run eval:search`
 * (docs/benchmarks.md): the combination ranked above rank fusion at every weight from 0.5 to 0.8.
 */
export const HYBRID_SEMANTIC_WEIGHT = 0.7;

/**
 * How deep each list is read before fusing (Elasticsearch calls it rank_window_size): as deep as
 * the API pages (offset 10,000 plus a page of 100), so every page of the fused set is reachable.
 */
export const HYBRID_RANK_WINDOW = LIMITS.offsetMax + LIMITS.pageMax;

/** A keyword match and its BM25 score (higher is better). */
export interface KeywordHit {
  id: string;
  score: number;
}

/** A semantic match and its cosine with the query. */
export interface SemanticHit {
  id: string;
  cosine: number;
}

export interface FusedHit {
  id: string;
  /** In [0, 1]: 1 is the query's best keyword match at the top of the semantic scale. */
  relevance: number;
}

/**
 * One record's fused relevance, from its cosine if it is a semantic match and its BM25 if it is a
 * keyword match (NaN where it is not), and the best BM25 among the query's keyword matches.
 */
export function fusedRelevance(cosine: number, keywordScore: number, bestKeywordScore: number, scale: SimilarityScale): number {
  const semanticPart = Number.isNaN(cosine) ? 0 : HYBRID_SEMANTIC_WEIGHT * relevanceOfCosine(cosine, scale);
  const strength = Number.isNaN(keywordScore) ? 0 : bestKeywordScore > 0 ? Math.max(0, keywordScore) / bestKeywordScore : 1;
  return Math.min(1, semanticPart + (1 - HYBRID_SEMANTIC_WEIGHT) * strength);
}

/** Every record of either list with its fused relevance, best first, ties by id (so pages never overlap). */
export function fuseHybrid(keyword: readonly KeywordHit[], semantic: readonly SemanticHit[], scale: SimilarityScale): FusedHit[] {
  const cosines = new Map(semantic.map((hit) => [hit.id, hit.cosine]));
  const scores = new Map(keyword.map((hit) => [hit.id, hit.score]));
  const best = keyword.reduce((max, hit) => Math.max(max, hit.score), 0);
  return [...new Set([...cosines.keys(), ...scores.keys()])]
    .map((id) => ({ id, relevance: fusedRelevance(cosines.get(id) ?? Number.NaN, scores.get(id) ?? Number.NaN, best, scale) }))
    .sort((a, b) => b.relevance - a.relevance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
