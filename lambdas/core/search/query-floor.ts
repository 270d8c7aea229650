import type { SimilarityScale } from './relevance';

/**
 * The minimum-relevance floor of one query (DESIGN.md section 3, "Floor"), in semantic and hybrid
 * modes, from what the index knows of the query over the whole catalogue of its kind (filters
 * aside, so narrowing a search never changes whether it is on topic):
 *
 * - `bestCosine`: the best cosine any record reaches. At or above the scale's floor, the model
 *   alone says the query is on topic.
 * - `bestWordCosine`: the best cosine among the records the query's words match in full (the
 *   keyword full matches). A one-word query has lower cosines than a sentence ("janitorial" reaches
 *   0.58 where "janitorial services for federal buildings" reaches 0.7), so a single floor either
 *   leaves short topical queries unanswered or answers off-topic sentences. When a record holds
 *   the query's words and the model also puts it at the lexical floor or above, two independent
 *   signals agree: the query is on topic, and the floor drops to the lexical floor. An off-topic
 *   query ("used car prices in Ohio") may share words with a record, but the model puts those far
 *   below it.
 * - `identifierMatches`: records found by an identifier field. Such a query is answered (in hybrid
 *   mode, by those records), but it says nothing about meaning: it adds no semantic matches.
 */
export interface FloorEvidence {
  bestCosine: number;
  bestWordCosine: number;
  identifierMatches: number;
  /** How many words the query has (keyword-query.ts keywordTermsOf): one or two make a short query. */
  words: number;
}

export type FloorBasis = 'similarity' | 'words' | 'identifier' | 'none' | 'fixed';

export interface QueryFloor {
  /** The least cosine a semantic match of this query has; null when it has none. */
  semanticFloor: number | null;
  /** Why: the model alone, the query's words with the model, an identifier only, nothing, or the caller's fixed floor. */
  basis: FloorBasis;
  /** What the index read of the query (null for a fixed floor, which reads nothing). */
  evidence: FloorEvidence | null;
}

/**
 * How far below its best cosine a query's semantic matches reach (never below the lexical floor):
 * a strong query keeps its close matches, a weak one its few. Chosen on the tuning queries of
 * `npm run eval:search` (docs/benchmarks.md): 0.15 and 0.2 ranked alike, 0.1 lost recall.
 */
export const FLOOR_SPREAD = 0.15;

/** The most words a short query has: its cosines run lower, and so do off-topic ones', so it has a floor of its own. */
export const SHORT_QUERY_WORDS = 2;

export function queryFloorOf(evidence: FloorEvidence, scale: SimilarityScale): QueryFloor {
  const { lexicalFloor } = scale;
  const floor = evidence.words <= SHORT_QUERY_WORDS ? scale.shortFloor : scale.floor;
  const basis: FloorBasis =
    evidence.bestCosine >= floor ? 'similarity' : evidence.bestWordCosine >= lexicalFloor ? 'words' : evidence.identifierMatches > 0 ? 'identifier' : 'none';
  if (basis === 'identifier' || basis === 'none') return { semanticFloor: null, basis, evidence };
  return { semanticFloor: Math.max(lexicalFloor, evidence.bestCosine - FLOOR_SPREAD), basis, evidence };
}

/** The floor a caller fixed (SemanticQuery.fixedFloor): grant matching, whose cut-off decides what matches. */
export function fixedQueryFloor(semanticFloor: number): QueryFloor {
  return { semanticFloor, basis: 'fixed', evidence: null };
}

/** Whether hybrid search answers the query at all: on its semantic floor, or on an identifier. */
export function answersHybrid(floor: QueryFloor): boolean {
  return floor.basis !== 'none';
}
