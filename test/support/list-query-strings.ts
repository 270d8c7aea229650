import { expect } from 'vitest';
import { ServiceError } from '../../lambdas/core/errors';
import { type ListQuery, parseListQuery } from '../../lambdas/core/query/list-query';
import type { ResourceKind } from '../../lambdas/core/records';

/** A list's query string parsed as the list route parses it, on `today`. */
export function parseQueryString<K extends ResourceKind>(kind: K, qs: string, today: string): ListQuery & { kind: K } {
  const query: Record<string, string[]> = {};
  for (const [k, v] of new URLSearchParams(qs)) (query[k] ??= []).push(v);
  return parseListQuery(kind, query, today) as ListQuery & { kind: K };
}

/** The field issues of the 400 a query string gets; fails the test when it is accepted. */
export function queryStringIssues(kind: ResourceKind, qs: string, today: string) {
  try {
    parseQueryString(kind, qs, today);
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    const e = error as ServiceError;
    expect(e.status).toBe(400);
    expect(e.code).toBe('INVALID_PARAMETER');
    return e.details ?? [];
  }
  throw new Error(`expected ${qs} to be rejected`);
}
