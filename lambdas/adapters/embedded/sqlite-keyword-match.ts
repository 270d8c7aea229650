import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { KEYWORD_FIELD_WEIGHTS, keywordQueryOf, keywordTermsOf, PHRASE_SLOP, type KeywordQuery } from '../../core/search/keyword-query';
import type { ResourceKind } from '../../core/records';
import { keywordMatchSets, keywordScores, someHoldsEveryTerm, termPostingsOf, type KeywordMatchSets, type TermPostings } from './keyword-match-sets';

/**
 * The keyword search of lambdas/core/search/keyword-query.ts over SQLite FTS5, scored in memory
 * from per-term postings.
 *
 * FTS5's bm25() is a sum over the query's terms of a part that depends on the term and the record
 * alone (the term's IDF times its weighted frequency in the record, saturated by the record's
 * length), so a record's BM25 for any query is the sum of its BM25 for each term alone. Each
 * term's postings (the records holding it, with that score) are read from FTS5 once and kept
 * until the next write, as search engines keep hot posting lists in memory, with a bitmap of its
 * records. A query finds its matches from the bitmaps, counting the terms each record holds
 * (keyword-match-sets.ts), and scores only the matches a search keeps, which the model's floor and
 * the filters make a small share. FTS5 scoring a common pair of words over 100,000 grants itself
 * took 70 ms a query; a dense pass scoring every match took about a millisecond.
 *
 * A record holding the required number of counted terms (and a telling one, when the query has
 * any) is a full match; one holding fewer but a partial-tier term is a partial match, which the
 * index keeps only when the model judges it on topic. A record with all the terms near each other
 * (FTS5's NEAR, within PHRASE_SLOP words) scores its terms again PHRASE_BOOST times: the OpenSearch
 * adapter's phrase clause, with the phrase's own score taken as its terms' score. The records a
 * sequence of terms is near in are kept until the next write too, as a term's postings are: they
 * depend on the terms alone, not on a query's filters, and reading positions for every record
 * holding every term cost 3 ms a query for two common words at 100,000 grants. Terms are letters
 * and digits only (keywordTerms), quoted, so no query syntax reaches FTS5.
 */

/** bm25() weights, in the order of TEXT_COLUMNS (title, body, funder, categories). */
const WEIGHTS = [KEYWORD_FIELD_WEIGHTS.title, KEYWORD_FIELD_WEIGHTS.description, KEYWORD_FIELD_WEIGHTS.funder, KEYWORD_FIELD_WEIGHTS.categories].join(', ');

/**
 * Memory for cached postings: 8 bytes a posting and at most 4 more for the bitmap, so a word in
 * every one of 100,000 records takes 812 KB; the commonest terms of a large catalogue fit many
 * times over.
 */
const POSTINGS_CACHE_BYTES = 32 * 1024 * 1024;
const PHRASES_CACHE_BYTES = 8 * 1024 * 1024;

const quotedTerm = (term: string) => `"${term}"`;

/** A query's keyword matches by tier, and the BM25 (near-phrase boost included) of any of them, given in ascending rowid order. */
export interface KeywordMatching {
  sets: KeywordMatchSets;
  scoresOf(rowids: Int32Array): Float32Array;
}

export class SqliteKeywordMatcher {
  private readonly postings = new LRUCache<string, TermPostings>({
    maxSize: POSTINGS_CACHE_BYTES,
    sizeCalculation: (postings) => postings.rowids.byteLength + postings.scores.byteLength + (postings.bits?.byteLength ?? 0) + 64,
  });
  /** The records each sequence of terms is near in (NEAR), by kind and terms: 4 bytes a record. */
  private readonly phrases = new LRUCache<string, Int32Array>({
    maxSize: PHRASES_CACHE_BYTES,
    sizeCalculation: (rowids) => rowids.byteLength + 64,
  });
  private readonly documentCounts = new Map<ResourceKind, number>();

  constructor(private readonly statement: (sql: string) => Database.Statement) {}

  /** The keyword query of a text (keyword-query.ts), or null when no term is in any record. */
  keywordQuery(kind: ResourceKind, text: string): KeywordQuery | null {
    const terms = keywordTermsOf(text);
    const frequency = new Map(terms.map((term) => [term, this.termPostings(kind, term).rowids.length]));
    return keywordQueryOf(terms, frequency, this.documents(kind));
  }

  /**
   * Every record the keywords match, by tier (keyword-match-sets.ts), partial matches only when
   * asked for; and their scorer, which reads the same postings however long the caller takes to
   * choose the records to score (the cache may drop a term meanwhile, and a write change it).
   */
  matching(kind: ResourceKind, query: KeywordQuery, withPartial: boolean): KeywordMatching {
    const lists = query.counted.map((term) => this.termPostings(kind, term));
    return {
      sets: keywordMatchSets(query, lists, withPartial),
      scoresOf: (rowids) => {
        // NEAR needs every term in a record: none when a term is in no record, or no record to score holds them all.
        const mayBeNear = query.terms.length >= 2 && query.counted.length === query.terms.length && someHoldsEveryTerm(lists, rowids);
        return keywordScores(lists, rowids, mayBeNear ? this.nearPhraseRowids(kind, query.terms) : null);
      },
    };
  }

  clear(): void {
    this.postings.clear();
    this.phrases.clear();
    this.documentCounts.clear();
  }

  private termPostings(kind: ResourceKind, term: string): TermPostings {
    const key = `${kind}|${term}`;
    let found = this.postings.get(key);
    if (!found) {
      // bm25() is lower-is-better (negated); FTS5 returns matches in ascending rowid order.
      // Iterated into two number arrays, not read as one array of row arrays: a common word's
      // postings as row arrays took tens of megabytes for a moment.
      const rowids: number[] = [];
      const scores: number[] = [];
      for (const [rowid, score] of this.statement(`SELECT rowid, bm25(${kind}_fts, ${WEIGHTS}) FROM ${kind}_fts WHERE ${kind}_fts MATCH ?`).raw().iterate(quotedTerm(term)) as Iterable<[number, number]>) {
        rowids.push(rowid);
        scores.push(-score);
      }
      found = termPostingsOf(Int32Array.from(rowids), Float32Array.from(scores));
      this.postings.set(key, found);
    }
    return found;
  }

  /** Records holding every term with at most PHRASE_SLOP other words between them, in one column. */
  private nearPhraseRowids(kind: ResourceKind, terms: readonly string[]): Int32Array {
    const key = `${kind}|${terms.join(' ')}`;
    let found = this.phrases.get(key);
    if (!found) {
      // NEAR's distance is the tokens between the first and last term, the inner terms included.
      const near = `NEAR(${terms.map(quotedTerm).join(' ')}, ${PHRASE_SLOP + terms.length - 2})`;
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
