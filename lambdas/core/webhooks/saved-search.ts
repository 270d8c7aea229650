import { type FieldIssue, ServiceError } from '../errors';
import { LIST_PARAMS, type ListQuery, parseListQuery } from '../query/list-query';
import { unknownNameIssues } from '../query/unknown-names';
import type { ResourceKind } from '../records';
import { kindOfEvent, type WebhookEvent } from './events';

/**
 * Saved searches: a webhook subscription's filter, in the list endpoints' own query language
 * (`states=KS&include_national=true&category=Health&search=rural clinics&search_mode=hybrid`), with
 * their parameters, validation and defaults. Only events whose record the filter matches are sent:
 * a record matches when the list endpoint, asked the filter, would return it (anywhere in its
 * results), which the index answers for a batch of records at once (ListQuery.ids).
 */

/** A filter's most bytes (UTF-8), as given. */
export const FILTER_MAX_BYTES = 2_048;
/** Parameters of a list request that shape a page, its extras (facets) or its format, not which records match: meaningless in a filter. */
const PAGE_PARAMS = new Set(['limit', 'offset', 'cursor', 'sort_by', 'order', 'count_only', 'facets', 'format']);

/** The list parameters a filter may hold: those that say which records match. */
const filterParamNames = (kind: ResourceKind) => LIST_PARAMS[kind].map((spec) => spec.name).filter((name) => !PAGE_PARAMS.has(name));

/** A filter the list endpoints would refuse, with their messages. */
export class InvalidFilter extends Error {
  constructor(readonly issues: FieldIssue[]) {
    super(`invalid filter: ${issues.map((issue) => `${issue.field}: ${issue.issue}`).join('; ')}`);
  }
}

/** The filter's parameters, as a query string would give them to a list endpoint. */
function paramsOf(filter: string): Map<string, string[]> {
  const params = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(filter.startsWith('?') ? filter.slice(1) : filter)) params.set(name, [...(params.get(name) ?? []), value]);
  return params;
}

/** The kinds of record a subscription's events carry (a filter must suit each). */
export function kindsOfEvents(events: readonly WebhookEvent[]): ResourceKind[] {
  return [...new Set(events.map(kindOfEvent))];
}

/**
 * Checks a filter for every kind it will be applied to and returns it normalised (parameters in
 * a stable order, encoded as a list request would carry them). Refused, as the list endpoints
 * refuse them: an unparseable or over-long filter, a parameter the list of a kind does not take
 * (or one that only shapes pages), and any value the list would answer 400 for.
 */
export function normalisedFilter(filter: string, kinds: readonly ResourceKind[], today: string): string {
  if (Buffer.byteLength(filter, 'utf8') > FILTER_MAX_BYTES) throw new InvalidFilter([{ field: 'filter', issue: `must be at most ${FILTER_MAX_BYTES} bytes` }]);
  let params: Map<string, string[]>;
  try {
    params = paramsOf(filter.trim());
  } catch {
    throw new InvalidFilter([{ field: 'filter', issue: 'is not a query string' }]);
  }
  if (params.size === 0) throw new InvalidFilter([{ field: 'filter', issue: 'names no parameter (leave --filter out to get every event)' }]);
  const issues: FieldIssue[] = [];
  for (const name of params.keys()) {
    if (PAGE_PARAMS.has(name)) issues.push({ field: name, issue: 'shapes a page of results, not which records match: not a filter parameter' });
    else for (const kind of kinds) issues.push(...unknownNameIssues([name], filterParamNames(kind), `a parameter of the ${kind} list`));
  }
  if (issues.length > 0) throw new InvalidFilter(issues);
  for (const kind of kinds) {
    try {
      parseListQuery(kind, Object.fromEntries(params), today);
    } catch (error) {
      if (error instanceof ServiceError) throw new InvalidFilter(error.details ?? [{ field: 'filter', issue: error.message }]);
      throw error;
    }
  }
  const sorted = new URLSearchParams();
  for (const name of [...params.keys()].sort()) for (const value of params.get(name)!) sorted.append(name, value);
  return sorted.toString();
}

/** The list query a stored filter asks, for one kind, on `today`, restricted to `ids`. */
export function savedSearchQuery(filter: string, kind: ResourceKind, today: string, ids: readonly string[]): ListQuery {
  const query = parseListQuery(kind, Object.fromEntries(paramsOf(filter)), today);
  return { ...query, ids, limit: ids.length, offset: 0, countOnly: false };
}
