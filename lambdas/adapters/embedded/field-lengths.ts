import type Database from 'better-sqlite3';
import type { ResourceKind } from '../../core/records';
import { KEYWORD_FIELDS, type KeywordField } from '../../core/search/keyword-fields';

/**
 * Each row's keyword field lengths (lucene-bm25.ts analysedLength) and each field's totals, the
 * collection statistics Lucene's BM25 reads: a field's average length over the records that have
 * it, and how many do. Kept in the `<kind>_lengths` table, loaded at start and kept in step with
 * every write.
 */
export interface FieldStatistics {
  /** Records with at least one token in the field. */
  docCount: number;
  averageLength: number;
}

class KindLengths {
  readonly lengths: Record<KeywordField, Uint32Array> = Object.fromEntries(KEYWORD_FIELDS.map((field) => [field, new Uint32Array(0)])) as Record<
    KeywordField,
    Uint32Array
  >;
  private readonly sums = Object.fromEntries(KEYWORD_FIELDS.map((field) => [field, 0])) as Record<KeywordField, number>;
  private readonly counts = Object.fromEntries(KEYWORD_FIELDS.map((field) => [field, 0])) as Record<KeywordField, number>;

  set(rowid: number, lengths: Record<KeywordField, number>): void {
    this.delete(rowid);
    for (const field of KEYWORD_FIELDS) {
      let column = this.lengths[field];
      if (rowid >= column.length) {
        const grown = new Uint32Array(Math.max(rowid + 1, Math.ceil(column.length * 1.5), 1024));
        grown.set(column);
        column = this.lengths[field] = grown;
      }
      column[rowid] = lengths[field];
      this.sums[field] += lengths[field];
      if (lengths[field] > 0) this.counts[field]++;
    }
  }

  delete(rowid: number): void {
    for (const field of KEYWORD_FIELDS) {
      const length = this.lengths[field][rowid] ?? 0;
      if (length === 0) continue;
      this.sums[field] -= length;
      this.counts[field]--;
      this.lengths[field][rowid] = 0;
    }
  }

  statistics(field: KeywordField): FieldStatistics {
    const docCount = this.counts[field];
    return { docCount, averageLength: docCount === 0 ? 1 : this.sums[field] / docCount };
  }
}

export class FieldLengths {
  private readonly kinds: Record<ResourceKind, KindLengths> = { grant: new KindLengths(), contract: new KindLengths(), funder: new KindLengths() };

  load(db: Database.Database): void {
    for (const kind of ['grant', 'contract', 'funder'] as const) {
      for (const row of db.prepare(`SELECT rowid, ${KEYWORD_FIELDS.join(', ')} FROM ${kind}_lengths`).iterate() as Iterable<
        { rowid: number } & Record<KeywordField, number>
      >) {
        this.kinds[kind].set(row.rowid, row);
      }
    }
  }

  set(kind: ResourceKind, rowid: number, lengths: Record<KeywordField, number>): void {
    this.kinds[kind].set(rowid, lengths);
  }

  delete(kind: ResourceKind, rowid: number): void {
    this.kinds[kind].delete(rowid);
  }

  /** A row's length in a field (0 when it has none). */
  lengthOf(kind: ResourceKind, field: KeywordField, rowid: number): number {
    return this.kinds[kind].lengths[field][rowid] ?? 0;
  }

  statistics(kind: ResourceKind, field: KeywordField): FieldStatistics {
    return this.kinds[kind].statistics(field);
  }
}
