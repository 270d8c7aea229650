import { stemmer } from 'stemmer';
import { keywordTerms } from '../text';

/**
 * Keyword search in both adapters (SQLite FTS5 and OpenSearch): BM25 as Lucene runs it, with OR
 * semantics over the weighted text fields and a minimum-should-match, so that a natural-language
 * query finds what most of its words describe (DESIGN.md section 3):
 *
 * - 1-2 words: all of them ("rural broadband").
 * - 3-4 words: all but a third, rounded down (2 of 3, 3 of 4).
 * - 5 or more: half, rounded up.
 *
 * That is Lucene's `minimum_should_match: "2<-34% 4<-50%"`, which the OpenSearch adapter sends as
 * is, so both indexes keep the same records. Two refinements, as Lucene's common-terms query
 * makes them: a word in no record (a typo, a word the catalogue lacks) cannot match and is not
 * counted; and when a query has telling words (in at most COMMON_TERM_FRACTION of the records),
 * a match must hold at least one of them, so "programs to help people quit smoking" is not
 * answered by records that merely mention programs that help people.
 *
 * The matches are the full ones (the minimum-should-match) and the partial ones: records that
 * miss the minimum but hold a telling word (a seeker's words are rarely the notice's: "quit
 * smoking" for "tobacco cessation"). They are ranked by BM25 alone, as one Lucene query of both
 * clauses would rank them (holding more of the words already scores more); records an identifier
 * field matches come first (identifiers.ts). There is no semantic gate: keyword search answers
 * where the words are, semantic and hybrid search where the meaning is.
 */
export const MINIMUM_SHOULD_MATCH = '2<-34% 4<-50%';
/** A word in more than this share of a kind's records is common (Lucene's cutoff_frequency). */
export const COMMON_TERM_FRACTION = 0.05;

export function requiredTermCount(terms: number): number {
  if (terms <= 2) return terms;
  if (terms <= 4) return terms - Math.floor(terms * 0.34);
  return terms - Math.floor(terms * 0.5);
}

/**
 * The words of a search text that take part in keyword search, lower-cased, in query order;
 * words with the same stem count once ("program programs"), as the index stems both. Empty for a
 * text of stop words or punctuation only (no result).
 */
export function keywordTermsOf(text: string): string[] {
  const seen = new Set<string>();
  return keywordTerms(text).filter((term) => {
    const stem = stemmer(term);
    if (seen.has(stem)) return false;
    seen.add(stem);
    return true;
  });
}

export interface KeywordQuery {
  /** Every term: all of them score. */
  terms: string[];
  /** The terms found in some record: the minimum-should-match counts these. */
  counted: string[];
  /** How many of `counted` a record must contain. */
  required: number;
  /** The telling terms (rare, but in some record): a record must contain one, when there are any. */
  telling: string[];
  /**
   * The terms one of which makes a record that misses the minimum a partial match: the
   * telling ones (all counted terms when every one is telling); none when the query has no telling
   * term or asks for one term only.
   */
  partial: string[];
}

/**
 * The keyword query of some terms, given how many of the kind's `documents` records hold each
 * term (its document frequency). Without statistics every term counts and none is telling (the
 * plain minimum-should-match). Null when no term is in any record.
 */
export function keywordQueryOf(terms: readonly string[], documentFrequency?: ReadonlyMap<string, number>, documents?: number): KeywordQuery | null {
  const frequencyOf = (term: string) => (documentFrequency ? (documentFrequency.get(term) ?? 0) : 1);
  const counted = terms.filter((term) => frequencyOf(term) > 0);
  if (counted.length === 0) return null;
  const telling = documents === undefined ? [] : counted.filter((term) => frequencyOf(term) <= COMMON_TERM_FRACTION * documents);
  const required = requiredTermCount(counted.length);
  return {
    terms: [...terms],
    counted,
    required,
    // Every counted term telling: the minimum already asks for them; no separate condition.
    telling: telling.length === counted.length ? [] : telling,
    partial: required > 1 ? telling : [],
  };
}

/**
 * Field weights of the keyword search, chosen on the tuning queries of `npm run eval:search`
 * (docs/benchmarks.md): a word in the title counts twice one in the body; the funder's name and
 * `programs` (a grant's Assistance Listing program titles, a contract's NAICS industry and PSC
 * group: keyword-fields.ts) count half. Category names are not searched: they are broad ("Health")
 * and made one-word queries match thousands of records for no gain; the category filter reads them.
 */
export const KEYWORD_FIELD_WEIGHTS = { title: 2, description: 1, funder: 0.5, programs: 0.5 } as const;

/**
 * How much an exact or near phrase (the terms within a few words of each other, in a field) adds,
 * as a multiple of its own BM25 score (the embedded index takes that to be the score of the
 * phrase's words in the record: sqlite-keyword-match.ts).
 */
export const PHRASE_BOOST = 2;
/** Words allowed between the terms of a near phrase. */
export const PHRASE_SLOP = 2;
