import { keywordQueryOf, keywordTermsOf, MINIMUM_SHOULD_MATCH, PHRASE_BOOST, PHRASE_SLOP } from '../../core/search/keyword-query';
import { openSearchScoreOfCosine } from '../../core/search/relevance';
import type { ResourceKind } from '../../core/records';
import type { SemanticQuery } from '../../ports/search-index';
import { CATEGORIES_TEXT_FIELD, isZeroVector, VECTOR_FIELD } from './opensearch-mappings';
import type { Dsl } from './opensearch-query';

/**
 * The clauses that match a search text in OpenSearch: the keyword query (BM25 over the weighted
 * fields, the minimum-should-match, telling words, the near phrase and partial matches; lambdas/
 * core/search/keyword-query.ts) and the radial k-NN query the floors use.
 */

/** The fields a keyword search reads, weighted as KEYWORD_FIELD_WEIGHTS says. */
export const KEYWORD_FIELDS: Readonly<Record<ResourceKind, readonly string[]>> = {
  grant: ['title^3', 'description', 'funder_name', CATEGORIES_TEXT_FIELD],
  contract: ['title^3', 'description', 'funder_name', CATEGORIES_TEXT_FIELD],
  funder: ['name^3', 'summary'],
};
/** A phrase is looked for in running text only (SQLite's NEAR, too, stays inside one column). */
const PHRASE_FIELDS: Readonly<Record<ResourceKind, readonly string[]>> = {
  grant: ['title^3', 'description'],
  contract: ['title^3', 'description'],
  funder: ['name^3', 'summary'],
};

/**
 * How many of a kind's records hold each term, and how many records it has: what tells a common
 * term from a telling one (keyword-query.ts). Without it, every term counts.
 */
export interface TermStatistics {
  frequency: ReadonlyMap<string, number>;
  documents: number;
}

function termsQuery(kind: ResourceKind, terms: readonly string[], minimumShouldMatch?: string): Dsl {
  // cross_fields blends each term over the fields (all english-analysed, so one group): the
  // minimum-should-match counts terms, as SQLite's does. combined_fields would be BM25F proper,
  // but OpenSearch 2.19 does not have it.
  return { multi_match: { query: terms.join(' '), type: 'cross_fields', fields: [...KEYWORD_FIELDS[kind]], operator: 'or', ...(minimumShouldMatch ? { minimum_should_match: minimumShouldMatch } : {}) } };
}

/** The count of records holding a term (size 0, exact total), one body per term, then one of all records. */
export function termCountBodies(kind: ResourceKind, terms: readonly string[]): Dsl[] {
  return [
    ...terms.map((term) => ({ query: termsQuery(kind, [term]), size: 0, track_total_hits: true })),
    { query: { match_all: {} }, size: 0, track_total_hits: true },
  ];
}

/**
 * Added to a full match's score, so every full match ranks before every partial one: a partial
 * match's BM25 (some tens a term) stays far below it even for a long query, and at this size a
 * float32 score still tells full matches apart to 0.001.
 */
export const FULL_MATCH_BOOST = 10_000;

export function usableVector(semantic?: SemanticQuery): Float32Array | null {
  return semantic?.vector && !isZeroVector(semantic.vector) ? semantic.vector : null;
}

/**
 * The keyword query of a search text among the records passing `filters`, or null when no term
 * can match (no results). Full matches hold the minimum-should-match of the counted terms and a
 * telling one. With a query vector and a scale that gates keywords, every match must reach the
 * floor's cosine, and partial matches (a partial-tier term) are admitted too; `tiered` (keyword
 * mode) ranks every full match before them, behind FULL_MATCH_BOOST, where hybrid search wants
 * the plain BM25 of both for its fusion. The sloppy phrase of all the terms is a scoring `should`.
 */
export function keywordClause(kind: ResourceKind, text: string, statistics?: TermStatistics, semantic?: SemanticQuery, filters: Dsl[] = [], tiered = true): Dsl | null {
  const keywords = keywordQueryOf(keywordTermsOf(text), statistics?.frequency, statistics?.documents);
  if (!keywords) return null;
  const minimum = termsQuery(kind, keywords.counted, MINIMUM_SHOULD_MATCH);
  // One telling term at least: a filter, so those terms are not scored twice.
  const telling = keywords.telling.length > 0 ? [termsQuery(kind, keywords.telling)] : [];
  const phrase: Dsl[] = [];
  if (keywords.terms.length >= 2) {
    phrase.push({ multi_match: { query: keywords.terms.join(' '), type: 'phrase', slop: PHRASE_SLOP, fields: [...PHRASE_FIELDS[kind]], boost: PHRASE_BOOST } });
  }
  const vector = usableVector(semantic);
  const gate = vector !== null && semantic!.scale.gatesKeywords ? knnClause(vector, semantic!.scale.floor, filters) : null;
  if (!gate || keywords.partial.length === 0) {
    const filter = [...telling, ...(gate ? [gate] : [])];
    if (filter.length === 0 && phrase.length === 0) return minimum;
    return { bool: { must: [minimum], ...(filter.length > 0 ? { filter } : {}), ...(phrase.length > 0 ? { should: phrase } : {}) } };
  }
  const full = telling.length > 0 ? { bool: { filter: [minimum, ...telling] } } : minimum;
  const ranking = tiered ? [{ constant_score: { filter: full, boost: FULL_MATCH_BOOST } }] : [];
  return {
    bool: {
      must: [termsQuery(kind, keywords.counted)],
      filter: [gate, { bool: { should: [full, termsQuery(kind, keywords.partial)], minimum_should_match: 1 } }],
      ...(ranking.length + phrase.length > 0 ? { should: [...ranking, ...phrase] } : {}),
    },
  };
}

/**
 * Every record passing the filters whose vector's cosine reaches the floor, scored by it: an exact
 * scan (the k-NN plugin's `knn_score` script, the same (1 + cos) / 2 score as a k-NN query), as
 * the embedded index scans. Not the radial k-NN query (`knn` with `min_score`), which real
 * OpenSearch 2.19 showed to be wrong twice:
 * - on the Lucene engine, its HNSW traversal only walks nodes above the threshold, so it stops at
 *   an entry point below it: on ../shared/data a query with three records above the floor got none
 *   (the eval's "lead-paint-homes"), differently from one run to the next;
 * - with a filter that rewrites itself (any date range) inside it, the query rebuilt itself
 *   without min_score and failed ("[knn] requires exactly one of k, distance or score to be set").
 * A scan costs one dot product per filtered record, which the catalogue's size allows; it works in
 * a filter context too (the keyword gate), where min_score still applies.
 */
export function knnClause(vector: Float32Array, floor: number, filters: Dsl[]): Dsl {
  return {
    script_score: {
      query: { bool: { filter: [{ exists: { field: VECTOR_FIELD } }, ...filters] } },
      script: { source: 'knn_score', lang: 'knn', params: { field: VECTOR_FIELD, query_value: Array.from(vector), space_type: 'cosinesimil' } },
      min_score: openSearchScoreOfCosine(floor),
    },
  };
}
