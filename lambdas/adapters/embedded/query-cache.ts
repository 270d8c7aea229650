/**
 * A small LRU of query answers (counts and ranked rowid pages), valid until the next write to the
 * index. Repeated list calls (paging through one query, dashboards polling the same filter) then
 * skip the counting scan and the BM25 ranking, the way OpenSearch's shard request cache does.
 */
export class QueryCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly maxEntries: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Re-insert so the Map's insertion order doubles as recency order.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}
