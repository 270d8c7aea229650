import type { ResourceKind } from '../records';
import type { StatusClause } from './list-query';

/**
 * The clauses a `status` filter value stands for (a disjunction): `open` and `forecasted` are the
 * stored status narrowed to the records live on the query's date, `closed` is everything else. The
 * status facet (facets.ts) buckets records by the same clauses, so a facet value passed back as
 * `status=<value>` selects exactly the records it counted.
 */
export function statusClauses(kind: ResourceKind, statuses: string[]): StatusClause[] {
  const clauses: StatusClause[] = [];
  const add = (clause: StatusClause) => {
    if (!clauses.some((c) => c.stored === clause.stored && c.live === clause.live)) clauses.push(clause);
  };
  for (const status of statuses) {
    if (status === 'open') add({ stored: kind === 'grant' ? 'posted' : 'open', live: true });
    else if (status === 'posted') add({ stored: 'posted' });
    else if (status === 'forecasted' || status === 'upcoming') add({ stored: 'forecasted', live: true });
    else if (status === 'closed') {
      add({ stored: 'closed' });
      add({ stored: kind === 'grant' ? 'posted' : 'open', live: false });
      if (kind === 'grant') add({ stored: 'forecasted', live: false });
    }
  }
  return clauses;
}
