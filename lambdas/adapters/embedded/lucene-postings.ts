import type Database from 'better-sqlite3';
import type { ResourceKind } from '../../core/records';
import { KEYWORD_FIELDS, type KeywordField } from '../../core/search/keyword-fields';
import { KEYWORD_FIELD_WEIGHTS, PHRASE_BOOST } from '../../core/search/keyword-query';
import type { FieldLengths } from './field-lengths';
import { type TermPostings, termPostingsOf } from './keyword-match-sets';
import { idf, termScore } from './lucene-bm25';

/**
 * A term's postings scored as OpenSearch's `multi_match` cross_fields scores one term (lucene-bm25.ts):
 * in each field the term is in, BM25 with the field's boost (KEYWORD_FIELD_WEIGHTS), the field's
 * own length norms and an IDF blended across the fields (the largest document frequency of any
 * field), and a record's score the best of its fields (tie_breaker 0). Frequencies come from
 * FTS5's instance vocabulary (`<kind>_vocab`); the term is looked up as FTS5's porter tokenizer
 * stems it, through a scratch table of the same tokenizer.
 */

/** The fields keyword search reads (a weight of 0 leaves a field out). */
export const SEARCHED_FIELDS = KEYWORD_FIELDS.filter((field) => KEYWORD_FIELD_WEIGHTS[field] > 0);
/** The fields a phrase is looked for in (OpenSearch's phrase clause reads these alone). */
export const PHRASE_FIELDS: readonly KeywordField[] = ['title', 'description'];

/** A term's postings, with its document frequency in each field (the phrase's IDF reads them). */
export interface ScoredPostings extends TermPostings {
  docFreq: Partial<Record<KeywordField, number>>;
}

export class LucenePostings {
  private readonly stems = new Map<string, string>();
  private readonly stemOf: (word: string) => string;

  constructor(
    private readonly statement: (sql: string) => Database.Statement,
    private readonly lengths: FieldLengths,
    db: Database.Database,
  ) {
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.keyword_stem USING fts5(word, tokenize='porter unicode61 remove_diacritics 2')`);
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.keyword_stem_vocab USING fts5vocab('temp', 'keyword_stem', 'row')`);
    const clear = db.prepare('DELETE FROM temp.keyword_stem');
    const insert = db.prepare('INSERT INTO temp.keyword_stem (word) VALUES (?)');
    const read = db.prepare('SELECT term FROM temp.keyword_stem_vocab').pluck();
    this.stemOf = (word) => {
      let stem = this.stems.get(word);
      if (stem === undefined) {
        clear.run();
        insert.run(word);
        stem = (read.get() as string | undefined) ?? word;
        clear.run();
        if (this.stems.size > 10_000) this.stems.clear();
        this.stems.set(word, stem);
      }
      return stem;
    };
  }

  /** The records holding a term, in ascending rowid order, each with its score. */
  postings(kind: ResourceKind, term: string): ScoredPostings {
    const frequencies = new Map<KeywordField, Map<number, number>>(SEARCHED_FIELDS.map((field) => [field, new Map()]));
    for (const [doc, col, frequency] of this.statement(`SELECT doc, col, count(*) FROM ${kind}_vocab WHERE term = ? GROUP BY doc, col`)
      .raw()
      .iterate(this.stemOf(term)) as Iterable<[number, KeywordField, number]>) {
      frequencies.get(col)?.set(doc, frequency);
    }
    const docFreq: Partial<Record<KeywordField, number>> = {};
    for (const [field, docs] of frequencies) if (docs.size > 0) docFreq[field] = docs.size;
    const blended = Math.max(0, ...Object.values(docFreq));
    const best = new Map<number, number>();
    for (const [field, docs] of frequencies) {
      if (docs.size === 0) continue;
      const { docCount, averageLength } = this.lengths.statistics(kind, field);
      const weight = KEYWORD_FIELD_WEIGHTS[field] * idf(Math.max(docCount, blended), blended);
      for (const [doc, frequency] of docs) {
        const score = termScore(weight, frequency, this.lengths.lengthOf(kind, field, doc), averageLength);
        if (!(score <= (best.get(doc) ?? -1))) best.set(doc, score);
      }
    }
    const rowids = Int32Array.from(best.keys()).sort();
    return {
      ...termPostingsOf(
        rowids,
        Float32Array.from(rowids, (rowid) => best.get(rowid)!),
      ),
      docFreq,
    };
  }

  /**
   * A phrase's score for a record that holds it near together in some fields (OpenSearch's phrase
   * clause: the terms' IDFs summed, one occurrence, the field's boost and length norm, the best
   * field, times PHRASE_BOOST).
   */
  phraseScore(kind: ResourceKind, lists: readonly ScoredPostings[], rowid: number, fields: readonly KeywordField[]): number {
    let best = 0;
    for (const field of fields) {
      const { docCount, averageLength } = this.lengths.statistics(kind, field);
      const weight = KEYWORD_FIELD_WEIGHTS[field] * lists.reduce((sum, postings) => sum + idf(docCount, postings.docFreq[field] ?? 0), 0);
      best = Math.max(best, termScore(weight, 1, this.lengths.lengthOf(kind, field, rowid), averageLength));
    }
    return PHRASE_BOOST * best;
  }
}
