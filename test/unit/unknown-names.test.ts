import { describe, expect, it } from 'vitest';
import { parseMatchRequest } from '../../lambdas/core/matching/match-request';
import { parseListQuery } from '../../lambdas/core/query/list-query';
import { parseSemanticSearchRequest } from '../../lambdas/core/query/semantic-search-request';
import { closestName, unknownNameIssues } from '../../lambdas/core/query/unknown-names';
import { serviceErrorOf } from '../support/service-errors';

const TODAY = '2026-11-28';

describe('unknown names', () => {
  it("suggests the parameter a typo or another API's name meant", () => {
    const known = ['limit', 'offset', 'search', 'search_mode', 'states', 'sort_by', 'order', 'deadline_after'];
    expect(closestName('state', known)).toBe('states');
    expect(closestName('q', known)).toBe('search');
    expect(closestName('keyword', known)).toBe('search');
    expect(closestName('Limit', known)).toBe('limit');
    expect(closestName('deadline-after', known)).toBe('deadline_after');
    expect(closestName('deadlnie_after', known)).toBe('deadline_after');
    expect(closestName('sort', known)).toBe('sort_by');
    expect(closestName('colour', known)).toBeUndefined();
  });

  it('names each unknown one, lists what is taken when nothing is close, and echoes names clipped', () => {
    expect(unknownNameIssues(['limit', 'colour', 'stat'], ['limit', 'states'], 'a parameter of the grant list')).toEqual([
      { field: 'colour', issue: 'is not a parameter of the grant list (it takes: limit, states)' },
      { field: 'stat', issue: 'is not a parameter of the grant list; did you mean states?' },
    ]);
    expect(unknownNameIssues(['x'], [], 'a parameter of this endpoint')).toEqual([
      { field: 'x', issue: 'is not a parameter of this endpoint (it takes none)' },
    ]);
    const [long] = unknownNameIssues([`${'a'.repeat(500)}\u0001`], ['limit'], 'a parameter');
    expect(long!.field).toBe(`${'a'.repeat(60)}…`);
    expect(
      unknownNameIssues(
        Array.from({ length: 100 }, (_, i) => `p${i}`),
        [],
        'a parameter',
      ),
    ).toHaveLength(20);
  });

  it('refuses unknown list parameters with a 400 naming each, known ones still parsed', () => {
    const error = serviceErrorOf(() => parseListQuery('grant', { state: ['MT'], q: ['cancer'], keyword: ['water'], limit: ['5'] }, TODAY));
    expect(error.status).toBe(400);
    expect(error.code).toBe('INVALID_PARAMETER');
    expect(error.details).toEqual([
      { field: 'state', issue: 'is not a parameter of the grant list; did you mean states?' },
      { field: 'q', issue: 'is not a parameter of the grant list; did you mean search?' },
      { field: 'keyword', issue: 'is not a parameter of the grant list; did you mean search?' },
    ]);
    expect(serviceErrorOf(() => parseListQuery('funder', { naics: ['54'] }, TODAY)).details).toEqual([
      { field: 'naics', issue: expect.stringMatching(/^is not a parameter of the funder list \(it takes: limit, offset, /) },
    ]);
    expect(parseListQuery('contract', { naics: ['54'], limit: ['5'] }, TODAY).limit).toBe(5);
  });

  it('refuses unknown body fields of semantic search and matching, nested ones by their path', () => {
    expect(serviceErrorOf(() => parseSemanticSearchRequest(JSON.stringify({ query: 'water', types: 'grants' }))).details).toEqual([
      { field: 'types', issue: 'is not a field of the request body; did you mean type?' },
    ]);
    expect(parseSemanticSearchRequest(JSON.stringify({ query: 'water', type: 'grants' })).kinds).toEqual(['grant']);
    expect(serviceErrorOf(() => parseMatchRequest(JSON.stringify({ profile: { mission: 'food bank', geograpy: 'MT', budget: 5 }, limt: 3 }))).details).toEqual([
      { field: 'profile.geograpy', issue: 'is not a field of profile; did you mean geography?' },
      { field: 'profile.budget', issue: 'is not a field of profile; did you mean annual_budget_usd?' },
      { field: 'limt', issue: 'is not a field of the request body; did you mean limit?' },
    ]);
    expect(serviceErrorOf(() => parseMatchRequest(JSON.stringify({ profile: { mission: 'food bank', colour: 'red' } }))).details).toEqual([
      { field: 'profile.colour', issue: expect.stringMatching(/^is not a field of profile \(it takes: mission, sector, geography, /) },
    ]);
    expect(parseMatchRequest(JSON.stringify({ profile: { mission: 'food bank', geography: 'MT' } })).profile.geography).toBe('MT');
  });
});
