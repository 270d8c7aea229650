import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { ResourceKind } from '../../core/records';
import { IDENTIFIER_FIELDS, identifierQueryOf, lookupKeysOf } from '../../core/search/identifiers';
import type { KeywordField } from '../../core/search/keyword-fields';
import { type KeywordQuery, keywordQueryOf, keywordTermsOf, PHRASE_SLOP } from '../../core/search/keyword-query';
import type { FieldLengths } from './field-lengths';
import { firstAtLeast, type KeywordMatchSets, keywordMatchSets, keywordScores, someHoldsEveryTerm } from './keyword-match-sets';
import { LucenePostings, PHRASE_FIELDS, type ScoredPostings } from './lucene-postings';

/**
 * The keyword search of lambdas/core/search/keyword-query.ts over SQLite FTS5, scored in memory
 * from per-term postings as Lucene scores them (lucene-postings.ts, lucene-bm25.ts).
 *
 * Lucene's BM25 for a query is a sum over its terms of a part that depends on the term and the
 * record alone, so a record's BM25 for any query is the sum of its BM25 for each term alone. Each
 * term's postings (the records holding it, with that score) are read once and kept until the next
 * write, as search engines keep hot posting lists in memory, with a bitmap of its records. A query
 * finds its matches from the bitmaps, counting the terms each record holds (keyword-match-sets.ts),
 * and scores only the matches a search keeps (its filters make that a small share).
 *
 * A record holding the required number of counted terms (and a telling one, when the query has
 * any) is a full match; one holding fewer but a partial term (KeywordQuery.partial) is a partial match. A record
 * with all the terms near each other in its title or description (FTS5's NEAR, within PHRASE_SLOP
 * words) adds the phrase's score: the OpenSearch adapter's phrase clause. The records a sequence
 * of terms is near in are kept until the next write too, as a term's postings are: they depend on
 * the terms alone, not on a query's filters. Terms are letters and digits only (keywordTerms),
 * quoted, so no query syntax reaches FTS5.
 */

/**
 * Memory for cached postings: 8 bytes a posting and at most 4 more for the bitmap, so even a
 * word in every record of a large catalogue takes a small share and the commonest terms fit.
 */
const POSTINGS_CACHE_BYTES = 32 * 1024 * 1024;
const PHRASES_CACHE_BYTES = 8 * 1024 * 1024;

const quotedTerm = (term: string) => `"${term}"`;

/** A query's keyword matches (full and partial), and the BM25 (near-phrase included) of any of them, given in ascending rowid order. */
export interface KeywordMatching {
  sets: KeywordMatchSets;
  scoresOf(rowids: Int32Array): Float32Array;
}

export class SqliteKeywordMatcher {
  private readonly postings = new LRUCache<string, ScoredPostings>({
    maxSize: POSTINGS_CACHE_BYTES,
    sizeCalculation: (postings) => postings.rowids.byteLength + postings.scores.byteLength + (postings.bits?.byteLength ?? 0) + 64,
  });
  /** The records each sequence of terms is near in (NEAR), by kind, field and terms: 4 bytes a record. */
  private readonly phrases = new LRUCache<string, Int32Array>({
    maxSize: PHRASES_CACHE_BYTES,
    sizeCalculation: (rowids) => rowids.byteLength + 64,
  });
  private readonly documentCounts = new Map<ResourceKind, number>();
  private readonly lucene: LucenePostings;

  constructor(
    private readonly statement: (sql: string) => Database.Statement,
    lengths: FieldLengths,
    db: Database.Database,
  ) {
    this.lucene = new LucenePostings(statement, lengths, db);
  }

  /** The keyword query of a text (keyword-query.ts), or null when no term is in any record. */
  keywordQuery(kind: ResourceKind, text: string): KeywordQuery | null {
    const terms = keywordTermsOf(text);
    const frequency = new Map(terms.map((term) => [term, this.termPostings(kind, term).rowids.length]));
    return keywordQueryOf(terms, frequency, this.documents(kind));
  }

  /**
   * Every record the keywords match, full and partial (keyword-match-sets.ts), partial matches only when
   * asked for; and their scorer, which reads the same postings however long the caller takes to
   * choose the records to score (the cache may drop a term meanwhile, and a write change it).
   */
  matching(kind: ResourceKind, query: KeywordQuery, withPartial: boolean): KeywordMatching {
    const lists = query.counted.map((term) => this.termPostings(kind, term));
    return {
      sets: keywordMatchSets(query, lists, withPartial),
      scoresOf: (rowids) => {
        // A phrase needs every term in a record: none when a term is in no record, or no record to score holds them all.
        const mayBeNear = query.terms.length >= 2 && query.counted.length === query.terms.length && someHoldsEveryTerm(lists, rowids);
        return keywordScores(lists, rowids, mayBeNear ? this.phraseScorer(kind, query.terms, lists) : null);
      },
    };
  }

  /** A record's phrase score: the fields it holds the terms near each other in, scored as OpenSearch's phrase clause. */
  private phraseScorer(kind: ResourceKind, terms: readonly string[], lists: readonly ScoredPostings[]): (rowid: number) => number {
    const near = PHRASE_FIELDS.map((field) => ({ field, rowids: this.nearPhraseRowids(kind, field, terms) }));
    return (rowid) => {
      const fields = near.filter(({ rowids }) => rowids[firstAtLeast(rowids, rowid, 0)] === rowid).map(({ field }) => field);
      return fields.length === 0 ? 0 : this.lucene.phraseScore(kind, lists, rowid, fields);
    };
  }

  /**
   * The records an identifier field matches (identifiers.ts), in ascending rowid order, each with
   * the weight of its heaviest matching field.
   */
  identifierMatches(kind: ResourceKind, text: string): { rowids: Int32Array; weights: Float32Array } {
    const query = identifierQueryOf(text);
    const weightOf = new Map<number, number>();
    for (const field of query ? IDENTIFIER_FIELDS[kind] : []) {
      const keys = lookupKeysOf(query!, field);
      if (keys.length === 0) continue;
      const rowids = this.statement(`SELECT rowid FROM ${kind}_identifiers WHERE field = ? AND key IN (SELECT value FROM json_each(?))`)
        .pluck()
        .all(field.name, JSON.stringify(keys)) as number[];
      for (const rowid of rowids) weightOf.set(rowid, Math.max(weightOf.get(rowid) ?? 0, field.weight));
    }
    const rowids = Int32Array.from(weightOf.keys()).sort();
    return { rowids, weights: Float32Array.from(rowids, (rowid) => weightOf.get(rowid)!) };
  }

  clear(): void {
    this.postings.clear();
    this.phrases.clear();
    this.documentCounts.clear();
  }

  private termPostings(kind: ResourceKind, term: string): ScoredPostings {
    const key = `${kind}|${term}`;
    let found = this.postings.get(key);
    if (!found) {
      found = this.lucene.postings(kind, term);
      this.postings.set(key, found);
    }
    return found;
  }

  /** Records holding every term with at most PHRASE_SLOP other words between them, in one field. */
  private nearPhraseRowids(kind: ResourceKind, field: KeywordField, terms: readonly string[]): Int32Array {
    const key = `${kind}|${field}|${terms.join(' ')}`;
    let found = this.phrases.get(key);
    if (!found) {
      // NEAR's distance is the tokens between the first and last term, the inner terms included.
      const near = `{${field}} : NEAR(${terms.map(quotedTerm).join(' ')}, ${PHRASE_SLOP + terms.length - 2})`;
      found = Int32Array.from(this.statement(`SELECT rowid FROM ${kind}_fts WHERE ${kind}_fts MATCH ?`).pluck().all(near) as number[]);
      this.phrases.set(key, found);
    }
    return found;
  }

  private documents(kind: ResourceKind): number {
    let count = this.documentCounts.get(kind);
    if (count === undefined) {
      count = this.statement(`SELECT count(*) FROM ${kind}_rows`).pluck().get() as number;
      this.documentCounts.set(kind, count);
    }
    return count;
  }
}
