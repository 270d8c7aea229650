import type { ResourceKind } from '../../core/records';
import type { TermStatistics } from './opensearch-text-clauses';

/** How long a term's document frequency is trusted, and how many are kept. */
const TTL_MS = 10 * 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Document frequencies of keyword terms, per kind, for TTL_MS: they move slowly, and a stale one
 * only shifts a term between common and telling (keyword-query.ts). Only the terms not fresh are
 * counted, with the kind's record count ('' below) beside them.
 */
export class TermStatisticsCache {
  /** By `<kind>|<term>`, in the order of counting: the oldest entry goes first. */
  private readonly counts = new Map<string, { count: number; at: number }>();

  /**
   * `count` answers, for the terms it is given and then the record count, a reader of each count
   * that throws when that count failed: the counts read before a failure stay cached.
   */
  async statistics(kind: ResourceKind, terms: readonly string[], count: (missing: string[]) => Promise<(() => number)[]>): Promise<TermStatistics> {
    const now = Date.now();
    const fresh = (term: string) => {
      const cached = this.counts.get(`${kind}|${term}`);
      return cached && now - cached.at < TTL_MS ? cached.count : undefined;
    };
    const missing = terms.filter((term) => fresh(term) === undefined);
    if (missing.length > 0 || fresh('') === undefined) {
      const counted = await count(missing);
      [...missing, ''].forEach((term, i) => {
        const value = counted[i]!();
        this.counts.delete(`${kind}|${term}`);
        this.counts.set(`${kind}|${term}`, { count: value, at: now });
      });
      while (this.counts.size > MAX_ENTRIES) this.counts.delete(this.counts.keys().next().value as string);
    }
    return { frequency: new Map(terms.map((term) => [term, fresh(term) ?? 0])), documents: fresh('') ?? 0 };
  }
}
