import type Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { AnyRecord, RecordByKind, ResourceKind } from '../../core/records';

/** Records kept parsed after a read: the pages users read most (about 1-2 KB each). */
const RECENT_DOCS = 4096;

/**
 * The embedded index's stored records (the `<kind>_docs` tables), read by rowid through a cache
 * of recently read ones. Read and parsed anew, the 20 records of a page took a fifth of a
 * filtered listing's time at 100,000 grants. Cached records are frozen, so a caller that changed
 * one would fail loudly rather than change what the next caller reads; every write clears the
 * cache (clear()).
 */
export class RecordDocs {
  private readonly recent = new LRUCache<string, AnyRecord>({ max: RECENT_DOCS });

  constructor(private readonly statement: (sql: string) => Database.Statement) {}

  read<K extends ResourceKind>(kind: K, rowids: ArrayLike<number>): RecordByKind[K][] {
    const readDoc = this.statement(`SELECT doc FROM ${kind}_docs WHERE rowid = ?`).pluck();
    return Array.from(rowids, (rowid) => {
      const key = `${kind}|${rowid}`;
      let doc = this.recent.get(key);
      if (!doc) {
        doc = deepFrozen(JSON.parse(readDoc.get(rowid) as string) as AnyRecord);
        this.recent.set(key, doc);
      }
      return doc as RecordByKind[K];
    });
  }

  clear(): void {
    this.recent.clear();
  }
}

/** The value with it and everything in it frozen (records are plain JSON). */
function deepFrozen<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFrozen(inner);
    Object.freeze(value);
  }
  return value;
}
