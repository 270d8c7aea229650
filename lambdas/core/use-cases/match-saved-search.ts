import { searchUnavailable } from '../errors';
import { LIMITS, type ListQuery } from '../query/list-query';
import type { ResourceKind } from '../records';
import { savedSearchQuery } from '../webhooks/saved-search';
import { listRecords, type SearchPorts } from './list-records';

/**
 * Which of some records a saved search (a subscription's filter) matches today: the records the
 * list endpoint, asked the filter, would return, by the same use case and index, restricted to
 * those records (ListQuery.ids) a page at a time. A hybrid filter whose query cannot be embedded
 * fails instead of degrading to its keyword half, so its semantic matches are not dropped: the
 * caller's batch is retried.
 */
export async function savedSearchMatches(ports: SearchPorts, filter: string, kind: ResourceKind, ids: readonly string[], today: string): Promise<Set<string>> {
  const matched = new Set<string>();
  for (let start = 0; start < ids.length; start += LIMITS.pageMax) {
    const query = savedSearchQuery(filter, kind, today, ids.slice(start, start + LIMITS.pageMax)) as ListQuery & { kind: typeof kind };
    const outcome = await listRecords(ports, query);
    if (outcome.degradedReason) throw searchUnavailable(`A saved search could not be matched: ${outcome.degradedReason}`);
    for (const record of outcome.results) matched.add(record.id);
  }
  return matched;
}

/** How many records of a kind a saved search matches today (its list total): `webhooks add` says when it is none. */
export async function savedSearchCount(ports: SearchPorts, filter: string, kind: ResourceKind, today: string): Promise<number> {
  const { ids: _ids, ...query } = savedSearchQuery(filter, kind, today, []);
  return (await listRecords(ports, { ...query, countOnly: true, limit: 1 } as ListQuery & { kind: typeof kind })).total;
}
