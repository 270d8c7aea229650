import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, parseListQuery, type ListQuery } from '../../lambdas/core/query/list-query';
import type { ResourceKind } from '../../lambdas/core/records';
import { listRecords } from '../../lambdas/core/use-cases/list-records';
import { savedSearchCount, savedSearchMatches } from '../../lambdas/core/use-cases/match-saved-search';
import { FILTER_MAX_BYTES, InvalidFilter, normalisedFilter } from '../../lambdas/core/webhooks/saved-search';
import { utcDate } from '../../lambdas/ports/clock';
import { startEmbeddedStack, type EmbeddedStack } from '../../local/embedded-stack';

/**
 * Saved searches (webhook subscriptions' filters): checked as the list endpoints check their
 * parameters, and matched with the list's own semantics. A property test draws filters of every
 * kind (states, national, category, amounts, deadlines, status, keyword, semantic and hybrid
 * search) and compares the matcher's answer for a sample of records with the list endpoint's
 * whole result set, paged through, on the embedded stack's real index and model.
 */

const refused = (filter: string, kinds: ResourceKind[] = ['grant']) => {
  try {
    normalisedFilter(filter, kinds, '2026-11-26');
  } catch (error) {
    if (error instanceof InvalidFilter) return error.message;
    throw error;
  }
  throw new Error(`accepted: ${filter}`);
};

describe('a saved search\'s filter', () => {
  it('is normalised: parameters in order, encoded as a list request carries them', () => {
    expect(normalisedFilter('search=rural clinics&states=KS&include_national=true&category=Health&search_mode=hybrid', ['grant'], '2026-11-26'))
      .toBe('category=Health&include_national=true&search=rural+clinics&search_mode=hybrid&states=KS');
    expect(normalisedFilter('?states=KS,NE', ['grant', 'contract'], '2026-11-26')).toBe('states=KS%2CNE');
  });

  it('is refused, with the list endpoints\' messages, when it would be a 400 there or is not a filter', () => {
    expect(refused('states=XX')).toMatch(/^invalid filter: states: /);
    expect(refused('colour=blue')).toBe('invalid filter: colour: is not a parameter of the grant list');
    expect(refused('naics=5415', ['grant', 'contract'])).toBe('invalid filter: naics: is not a parameter of the grant list');
    expect(refused('limit=5&sort_by=title')).toMatch(/^invalid filter: limit: shapes a page of results, not which records match: not a filter parameter; sort_by: shapes/);
    expect(refused('search_mode=semantic')).toMatch(/^invalid filter: search_mode: semantic search needs a search term/);
    expect(refused('deadline_after=2027-01-01&deadline_before=2026-12-01')).toMatch(/deadline_before: must be later than deadline_after/);
    expect(refused('')).toBe('invalid filter: filter: names no parameter (leave --filter out to get every event)');
    expect(refused(`search=${'a'.repeat(FILTER_MAX_BYTES)}`)).toBe(`invalid filter: filter: must be at most ${FILTER_MAX_BYTES} bytes`);
  });
});

describe('saved-search matching against the list endpoint', () => {
  let stack: EmbeddedStack;
  let today: string;
  let sample: string[];

  beforeAll(async () => {
    stack = await startEmbeddedStack({ seed: { funders: 20, grants: 400, contracts: 0, awardedGrants: 40, awardedContracts: 0 } });
    today = utcDate(stack.services.clock);
    const ids: string[] = [];
    for await (const page of stack.services.store.scan('grant')) ids.push(...page.map((g) => g.id));
    // Half the grants (more than a page, so the matcher pages too), and one id no grant has.
    sample = [...ids.filter((_, i) => i % 2 === 0), '00000000-0000-4000-8000-00000000dead'];
  }, 300_000);
  afterAll(async () => stack?.close());

  /** Every grant the list returns for the filter, paged through as a client would. */
  async function listedIds(filter: string): Promise<Set<string>> {
    const params = Object.fromEntries([...new URLSearchParams(filter)].map(([name, value]) => [name, [value]]));
    const ids = new Set<string>();
    for (let offset = 0; ; offset += LIMITS.pageMax) {
      const query = parseListQuery('grant', { ...params, limit: [String(LIMITS.pageMax)], offset: [String(offset)] }, today) as ListQuery & { kind: 'grant' };
      const outcome = await listRecords(stack.services, query);
      for (const grant of outcome.results) ids.add(grant.id);
      if (offset + LIMITS.pageMax >= outcome.total) return ids;
    }
  }

  const filters = fc.record({
    states: fc.option(fc.subarray(['CA', 'NY', 'TX', 'KS', 'AL', 'WA'], { minLength: 1, maxLength: 3 }), { nil: undefined, freq: 1 }),
    include_national: fc.option(fc.boolean(), { nil: undefined, freq: 1 }),
    category: fc.option(fc.constantFrom('Health', 'Education', 'Environment', 'Agriculture'), { nil: undefined, freq: 1 }),
    min_amount: fc.option(fc.constantFrom(10_000, 100_000, 500_000), { nil: undefined, freq: 1 }),
    deadline_before: fc.option(fc.constantFrom(30, 90, 365), { nil: undefined, freq: 1 }),
    status: fc.option(fc.constantFrom('posted', 'forecasted', 'open,closed'), { nil: undefined, freq: 1 }),
    search: fc.option(fc.record({ text: fc.constantFrom('community health', 'rural broadband', 'water quality', 'teacher training'), mode: fc.constantFrom('keyword', 'semantic', 'hybrid') }), { nil: undefined, freq: 1 }),
  }).map((f) => {
    const params = new URLSearchParams();
    if (f.states) params.set('states', f.states.join(','));
    if (f.include_national !== undefined) params.set('include_national', String(f.include_national));
    if (f.category) params.set('category', f.category);
    if (f.min_amount) params.set('min_amount', String(f.min_amount));
    if (f.deadline_before) params.set('deadline_before', new Date(Date.now() + f.deadline_before * 86_400_000).toISOString().slice(0, 10));
    if (f.status) params.set('status', f.status);
    if (f.search) {
      params.set('search', f.search.text);
      params.set('search_mode', f.search.mode);
    }
    if ([...params.keys()].length === 0) params.set('status', 'posted');
    return params.toString();
  });

  it('matches exactly the sampled records the list returns, for generated filters of every kind', async () => {
    let nonEmpty = 0;
    await fc.assert(fc.asyncProperty(filters, async (raw) => {
      const filter = normalisedFilter(raw, ['grant'], today);
      const listed = await listedIds(filter);
      const matched = await savedSearchMatches(stack.services, filter, 'grant', sample, today);
      expect([...matched].sort(), filter).toEqual(sample.filter((id) => listed.has(id)).sort());
      expect(await savedSearchCount(stack.services, filter, 'grant', today), filter).toBe(listed.size);
      if (matched.size > 0) nonEmpty++;
    }), { numRuns: 40, seed: 20261126 });
    // The property is not vacuous: most filters match some sampled record.
    expect(nonEmpty).toBeGreaterThan(10);
  }, 300_000);
});
