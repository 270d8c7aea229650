import type { ListQuery, SortField, SortOrder } from '../query/list-query';
import type { ResourceKind } from '../records';
import type { IndexedResult, SearchIndex } from '../../ports/search-index';

export interface ListMeta {
  response_time_ms: number;
  sort_by: SortField;
  order: SortOrder;
}

export interface ListEnvelope<K extends ResourceKind> {
  results: IndexedResult<K>[];
  pagination: { total: number; limit: number; offset: number; returned: number };
  meta: ListMeta;
}

export interface CountEnvelope {
  pagination: { total: number };
  meta: ListMeta;
}

export interface ListOutcome<K extends ResourceKind> {
  query: ListQuery & { kind: K };
  total: number;
  results: IndexedResult<K>[];
}

export async function listRecords<K extends ResourceKind>(index: SearchIndex, query: ListQuery & { kind: K }): Promise<ListOutcome<K>> {
  const page = await index.query(query.kind, query);
  return { query, total: page.total, results: page.results };
}

/** The list envelope of interface section 2; count_only drops results (DESIGN.md section 3). */
export function listEnvelope<K extends ResourceKind>(outcome: ListOutcome<K>, elapsedMs: number): ListEnvelope<K> | CountEnvelope {
  const { query, total, results } = outcome;
  const meta: ListMeta = {
    response_time_ms: Math.round(elapsedMs * 100) / 100,
    sort_by: query.sort.field,
    order: query.sort.order,
  };
  if (query.countOnly) return { pagination: { total }, meta };
  return {
    results,
    pagination: { total, limit: query.limit, offset: query.offset, returned: results.length },
    meta,
  };
}
