import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import { KEYWORD_FIELD_WEIGHTS, keywordQueryOf, keywordTermsOf, PHRASE_BOOST, PHRASE_SLOP, type KeywordQuery } from '../../core/search/keyword-query';
import type { ResourceKind } from '../../core/records';

/**
 * The keyword search of lambdas/core/search/keyword-query.ts over SQLite FTS5, scored in memory
 * from per-term postings.
 *
 * FTS5's bm25() is a sum over the query's terms of a part that depends on the term and the record
 * alone (the term's IDF times its weighted frequency in the record, saturated by the record's
 * length), so a record's BM25 for any query is the sum of its BM25 for each term alone. Each
 * term's postings (the records holding it, with that score) are read from FTS5 once and kept
 * until the next write, as search engines keep hot posting lists in memory; a query merges them
 * and counts the terms each record holds. FTS5 scoring a common pair of words over 100,000
 * grants itself took 70 ms a query; the merge takes a few.
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
 * Memory for cached postings: 8 bytes a posting, so a word in every one of 100,000 records takes
 * 800 KB; the commonest terms of a large catalogue fit many times over.
 */
const POSTINGS_CACHE_BYTES = 32 * 1024 * 1024;
const PHRASES_CACHE_BYTES = 8 * 1024 * 1024;

const quotedTerm = (term: string) => `"${term}"`;

/** One term's postings: the records holding it in ascending rowid order, with its BM25 in each (higher is better). */
interface TermPostings {
  rowids: Int32Array;
  scores: Float32Array;
}

/** Keyword matches in rowid order, with their BM25 (higher is better), split by tier. */
export interface KeywordMatches {
  full: { rowids: Int32Array; scores: Float32Array };
  partial: { rowids: Int32Array; scores: Float32Array };
}

export class SqliteKeywordMatcher {
  private readonly postings = new LRUCache<string, TermPostings>({
    maxSize: POSTINGS_CACHE_BYTES,
    sizeCalculation: (postings) => postings.rowids.byteLength + postings.scores.byteLength + 64,
  });
  /** The records each sequence of terms is near in (NEAR), by kind and terms: 4 bytes a record. */
  private readonly phrases = new LRUCache<string, Int32Array>({
    maxSize: PHRASES_CACHE_BYTES,
    sizeCalculation: (rowids) => rowids.byteLength + 64,
  });
  private readonly documentCounts = new Map<ResourceKind, number>();
  private scratch = { score: new Float64Array(0), hits: new Uint16Array(0), telling: new Uint8Array(0), partial: new Uint8Array(0) };
  private output = { rowids: new Int32Array(0), scores: new Float32Array(0) };

  constructor(private readonly statement: (sql: string) => Database.Statement) {}

  /** The keyword query of a text (keyword-query.ts), or null when no term is in any record. */
  keywordQuery(kind: ResourceKind, text: string): KeywordQuery | null {
    const terms = keywordTermsOf(text);
    const frequency = new Map(terms.map((term) => [term, this.termPostings(kind, term).rowids.length]));
    return keywordQueryOf(terms, frequency, this.documents(kind));
  }

  /** Every record the keywords match, by tier; partial matches only when asked for. */
  matches(kind: ResourceKind, query: KeywordQuery, withPartial: boolean): KeywordMatches {
    const lists = query.counted.map((term) => this.termPostings(kind, term));
    const size = Math.max(0, ...lists.map(({ rowids }) => (rowids.length > 0 ? rowids[rowids.length - 1]! + 1 : 0)));
    // Dense by rowid: a pass over every record is cheaper than merging sorted lists one by one.
    // The arrays are kept from query to query (a search's are 1.4 MB at 100,000 grants) and left
    // zeroed by the pass that reads them.
    const { score, hits, telling, partial } = this.scratchFor(size);
    const tellingTerms = query.telling.length > 0;
    const partialTerms = withPartial && query.partial.length > 0;
    lists.forEach(({ rowids, scores }, j) => {
      for (let i = 0; i < rowids.length; i++) {
        const rowid = rowids[i]!;
        score[rowid] = score[rowid]! + scores[i]!;
        hits[rowid]!++;
      }
      const term = query.counted[j]!;
      if (tellingTerms && query.telling.includes(term)) for (const rowid of rowids) telling[rowid] = 1;
      if (partialTerms && query.partial.includes(term)) for (const rowid of rowids) partial[rowid] = 1;
    });
    if (query.terms.length >= 2) {
      for (const rowid of this.nearPhraseRowids(kind, query.terms)) if (rowid < size && hits[rowid]! > 0) score[rowid] = score[rowid]! * (1 + PHRASE_BOOST);
    }
    const out = this.outputFor(lists.reduce((sum, { rowids }) => sum + rowids.length, 0));
    let fullCount = 0;
    let restCount = 0;
    // One pass in rowid order gathers both tiers: full matches from the front of the output
    // arrays, partial ones from the back.
    for (let rowid = 0; rowid < size; rowid++) {
      const hit = hits[rowid]!;
      if (hit === 0) continue;
      if (hit >= query.required && (!tellingTerms || telling[rowid] === 1)) {
        out.rowids[fullCount] = rowid;
        out.scores[fullCount++] = score[rowid]!;
      } else if (partialTerms && partial[rowid] === 1) {
        const at = out.rowids.length - 1 - restCount++;
        out.rowids[at] = rowid;
        out.scores[at] = score[rowid]!;
      }
      score[rowid] = 0;
      hits[rowid] = 0;
      telling[rowid] = 0;
      partial[rowid] = 0;
    }
    // The partial tier was written backwards: reversed, it is in rowid order like the full one.
    return {
      full: { rowids: out.rowids.slice(0, fullCount), scores: out.scores.slice(0, fullCount) },
      partial: { rowids: out.rowids.slice(out.rowids.length - restCount).reverse(), scores: out.scores.slice(out.scores.length - restCount).reverse() },
    };
  }

  /** The dense per-rowid arrays of matches(), zeroed, for rowids below `size`. */
  private scratchFor(size: number) {
    if (this.scratch.score.length < size) {
      const length = Math.max(size, Math.ceil(this.scratch.score.length * 1.25));
      this.scratch = { score: new Float64Array(length), hits: new Uint16Array(length), telling: new Uint8Array(length), partial: new Uint8Array(length) };
    }
    return this.scratch;
  }

  /** matches()'s output arrays, room for `size` entries. */
  private outputFor(size: number) {
    if (this.output.rowids.length < size) {
      const length = Math.max(size, Math.ceil(this.output.rowids.length * 1.25));
      this.output = { rowids: new Int32Array(length), scores: new Float32Array(length) };
    }
    return this.output;
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
      found = { rowids: Int32Array.from(rowids), scores: Float32Array.from(scores) };
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
