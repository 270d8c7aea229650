import { LRUCache } from 'lru-cache';
import type { ResourceKind } from '../../core/records';
import type { QueryFloor } from '../../core/search/query-floor';
import type { SemanticQuery } from '../../ports/search-index';

/** How long a text's floor is trusted (the catalogue's best matches move slowly), and how many are kept. */
const TTL_MS = 10 * 60_000;
const MAX_ENTRIES = 1_000;

/**
 * Each search text's query floor (query-floor.ts), per kind and scale, for TTL_MS: a user paging
 * or narrowing a search with filters has its floor read once, as term statistics are.
 */
export class QueryFloorCache {
  private readonly floors = new LRUCache<string, Promise<QueryFloor>>({ max: MAX_ENTRIES, ttl: TTL_MS });

  floor(kind: ResourceKind, text: string, semantic: SemanticQuery, read: () => Promise<QueryFloor>): Promise<QueryFloor> {
    const key = JSON.stringify([kind, text, semantic.scale]);
    let found = this.floors.get(key);
    if (!found) {
      found = read();
      // A failed read is not kept.
      found.catch(() => this.floors.delete(key));
      this.floors.set(key, found);
    }
    return found;
  }

  /** A write through this adapter may change any floor: they are read again. */
  clear(): void {
    this.floors.clear();
  }
}
