import type { ResourceKind } from '../../core/records';
import { IDENTIFIER_FIELDS, identifierQueryOf, identifierScoreOf, lookupKeysOf } from '../../core/search/identifiers';
import { KEYWORD_FIELDS, type KeywordField } from '../../core/search/keyword-fields';
import {
  KEYWORD_FIELD_WEIGHTS,
  type KeywordQuery,
  keywordQueryOf,
  keywordTermsOf,
  MINIMUM_SHOULD_MATCH,
  PHRASE_BOOST,
  PHRASE_SLOP,
} from '../../core/search/keyword-query';
import { openSearchScoreOfCosine } from '../../core/search/relevance';
import type { SemanticQuery } from '../../ports/search-index';
import type { Dsl } from './opensearch-filters';
import { IDENTIFIER_KEYS_FIELD, isZeroVector, SEARCH_TEXT_FIELD, VECTOR_FIELD } from './opensearch-mappings';

/**
 * The clauses that match a search text in OpenSearch: the keyword query (identifier fields, then
 * BM25 over the weighted fields with the minimum-should-match, telling words, partial matches and
 * the near phrase; lambdas/core/search/keyword-query.ts) and the window of nearest candidates the
 * vector modes and the query floor read.
 */

/** Where each keyword field (keyword-fields.ts) is indexed, per kind. */
const FIELD_NAMES: Readonly<Record<ResourceKind, Readonly<Record<KeywordField, string | null>>>> = {
  grant: { title: 'title', description: 'description', funder: 'funder_name', programs: `${SEARCH_TEXT_FIELD}.programs` },
  contract: { title: 'title', description: 'description', funder: 'funder_name', programs: `${SEARCH_TEXT_FIELD}.programs` },
  funder: { title: 'name', description: 'summary', funder: null, programs: null },
};

const weighted = (name: string, weight: number) => (weight === 1 ? name : `${name}^${weight}`);

/** The fields a keyword search reads, weighted as KEYWORD_FIELD_WEIGHTS says. */
export const KEYWORD_FIELDS_OF: Readonly<Record<ResourceKind, readonly string[]>> = Object.fromEntries(
  (['grant', 'contract', 'funder'] as const).map((kind) => [
    kind,
    KEYWORD_FIELDS.flatMap((field) => (FIELD_NAMES[kind][field] === null ? [] : [weighted(FIELD_NAMES[kind][field]!, KEYWORD_FIELD_WEIGHTS[field])])),
  ]),
) as Record<ResourceKind, string[]>;

/** A phrase is looked for in running text only (SQLite's NEAR, too, reads title and description alone). */
const PHRASE_FIELDS: Readonly<Record<ResourceKind, readonly string[]>> = Object.fromEntries(
  (['grant', 'contract', 'funder'] as const).map((kind) => [
    kind,
    (['title', 'description'] as const).map((field) => weighted(FIELD_NAMES[kind][field]!, KEYWORD_FIELD_WEIGHTS[field])),
  ]),
) as Record<ResourceKind, string[]>;

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
  return {
    multi_match: {
      query: terms.join(' '),
      type: 'cross_fields',
      fields: [...KEYWORD_FIELDS_OF[kind]],
      operator: 'or',
      ...(minimumShouldMatch ? { minimum_should_match: minimumShouldMatch } : {}),
    },
  };
}

/** The count of records holding a term (size 0, exact total), one body per term, then one of all records. */
export function termCountBodies(kind: ResourceKind, terms: readonly string[]): Dsl[] {
  return [
    ...terms.map((term) => ({ query: termsQuery(kind, [term]), size: 0, track_total_hits: true })),
    { query: { match_all: {} }, size: 0, track_total_hits: true },
  ];
}

export function usableVector(semantic?: SemanticQuery): Float32Array | null {
  return semantic?.vector && !isZeroVector(semantic.vector) ? semantic.vector : null;
}

/** The keyword query of a text, given the kind's term statistics; null when no term is in any record. */
export function keywordsOf(text: string, statistics?: TermStatistics): KeywordQuery | null {
  return keywordQueryOf(keywordTermsOf(text), statistics?.frequency, statistics?.documents);
}

/**
 * The records an identifier field matches (identifiers.ts), each scored by its heaviest matching
 * field (a dis_max of constant scores); null when the text cannot be an identifier.
 */
export function identifierClause(kind: ResourceKind, text: string): Dsl | null {
  const query = identifierQueryOf(text);
  if (!query) return null;
  const clauses = IDENTIFIER_FIELDS[kind].flatMap((field) => {
    const keys = lookupKeysOf(query, field);
    return keys.length === 0
      ? []
      : [{ constant_score: { filter: { terms: { [`${IDENTIFIER_KEYS_FIELD}.${field.name}`]: keys } }, boost: identifierScoreOf(field.weight) } }];
  });
  return clauses.length === 0 ? null : { dis_max: { queries: clauses } };
}

/**
 * The records the words match in full: the minimum-should-match of the counted terms, and one
 * telling term when the query has any. The query floor reads these (query-floor.ts).
 */
export function fullMatchClause(kind: ResourceKind, keywords: KeywordQuery): Dsl {
  const minimum = termsQuery(kind, keywords.counted, MINIMUM_SHOULD_MATCH);
  return keywords.telling.length > 0 ? { bool: { filter: [minimum, termsQuery(kind, keywords.telling)] } } : minimum;
}

/**
 * The keyword matches of a text (keyword-query.ts): records an identifier field matches, plus the
 * full and partial matches of its words, scored by BM25 (with the near-phrase boost) over the
 * weighted fields, an identifier match's offset above. Null when nothing can match.
 */
export function keywordClause(kind: ResourceKind, text: string, statistics?: TermStatistics): Dsl | null {
  const keywords = keywordsOf(text, statistics);
  const identifiers = identifierClause(kind, text);
  const words = keywords ? wordsClause(kind, keywords) : null;
  if (!words) return identifiers;
  if (!identifiers) return words;
  return { bool: { should: [identifiers, words], minimum_should_match: 1 } };
}

/** The full and partial matches of the words, scored by the BM25 of every counted term and the near phrase. */
function wordsClause(kind: ResourceKind, keywords: KeywordQuery): Dsl {
  const full = fullMatchClause(kind, keywords);
  const matches = keywords.partial.length > 0 ? { bool: { should: [full, termsQuery(kind, keywords.partial)], minimum_should_match: 1 } } : full;
  const phrase =
    keywords.terms.length >= 2
      ? [{ multi_match: { query: keywords.terms.join(' '), type: 'phrase', slop: PHRASE_SLOP, fields: [...PHRASE_FIELDS[kind]], boost: PHRASE_BOOST } }]
      : [];
  return { bool: { must: [termsQuery(kind, keywords.counted)], filter: [matches], ...(phrase.length > 0 ? { should: phrase } : {}) } };
}

/**
 * The `candidates` nearest records passing the filters (approximate k-NN over the HNSW graph,
 * with the filters inside the graph search, so the engine searches exactly when few records pass
 * them), each scored (1 + cos) / 2 from its stored vector; with a floor, those under it dropped
 * (function_score's min_score keeps them out of the hits, the total and the aggregations alike).
 * Not the radial k-NN query (`knn` with `min_score`): on the Lucene engine its graph walk stops
 * at an entry point under the threshold and misses records above it (seen on 2.19).
 */
export function windowClause(vector: Float32Array, floor: number | null, filters: Dsl[], candidates: number): Dsl {
  const knn = {
    knn: { [VECTOR_FIELD]: { vector: Array.from(vector), k: candidates, ...(filters.length > 0 ? { filter: { bool: { filter: filters } } } : {}) } },
  };
  return floor === null ? knn : { function_score: { query: knn, min_score: openSearchScoreOfCosine(floor) } };
}
