import type { Facets, OpportunityKind } from '../../core/query/facets';
import type { ListQuery } from '../../core/query/list-query';
import type { ResourceKind } from '../../core/records';
import { FacetColumns, type FacetRow, type FacetRows } from './facet-columns';
import { QueryCache } from './query-cache';

/**
 * The embedded index's facets (sqlite-search-index.ts): each opportunity kind's facet columns,
 * kept in step with its rows, and the facets of listings without search text, cached like their
 * totals until the next write. Funders have none.
 */
export class IndexFacets {
  private readonly columns: Record<OpportunityKind, FacetColumns> = { grant: new FacetColumns(), contract: new FacetColumns() };
  private readonly listings = new QueryCache<Facets>(1000);

  set(kind: OpportunityKind, rowid: number, row: FacetRow): void {
    this.columns[kind].set(rowid, row);
  }

  delete(kind: OpportunityKind, rowid: number): void {
    this.columns[kind].delete(rowid);
  }

  /** Forgets the cached listing facets (a write changed what they count). */
  clear(): void {
    this.listings.clear();
  }

  /** The facets the query asks for, over the result set given. */
  of(kind: ResourceKind, query: ListQuery, rows: FacetRows, rankOf: (rowid: number) => number): { facets?: Facets } {
    if (!query.facets || kind === 'funder') return {};
    return { facets: this.columns[kind].count(kind, query.facets, query.today, rows, rankOf) };
  }

  /** A search's facets, kept in `cache` on its ranking, which a write discards with the ranking: paging through a search counts them once. */
  ofRanking(kind: ResourceKind, query: ListQuery, cache: Map<string, Facets>, rows: FacetRows, rankOf: (rowid: number) => number): { facets?: Facets } {
    if (!query.facets || kind === 'funder') return {};
    const key = JSON.stringify([query.today, query.facets]);
    let facets = cache.get(key);
    if (!facets) {
      facets = this.columns[kind].count(kind, query.facets, query.today, rows, rankOf);
      cache.set(key, facets);
    }
    return { facets };
  }

  /** A listing's facets: `filterKey` names its filters; `rows` says which rows pass them when they are not cached. */
  ofListing(kind: ResourceKind, query: ListQuery, filterKey: string, rows: () => FacetRows, rankOf: (rowid: number) => number): { facets?: Facets } {
    if (!query.facets || kind === 'funder') return {};
    const key = JSON.stringify([filterKey, query.today, query.facets]);
    let facets = this.listings.get(key);
    if (!facets) {
      facets = this.columns[kind].count(kind, query.facets, query.today, rows(), rankOf);
      this.listings.set(key, facets);
    }
    return { facets };
  }
}
