import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, type ListQuery, parseListQuery } from '../../lambdas/core/query/list-query';
import type { ResourceKind } from '../../lambdas/core/records';
import { listRecords } from '../../lambdas/core/use-cases/list-records';
import { savedSearchCount, savedSearchMatches } from '../../lambdas/core/use-cases/match-saved-search';
import { FILTER_MAX_BYTES, InvalidFilter, normalisedFilter } from '../../lambdas/core/webhooks/saved-search';
import { utcDate } from '../../lambdas/ports/clock';
import { type EmbeddedStack, startEmbeddedStack } from '../../local/embedded-stack';

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

describe("a saved search's filter", () => {
  it('is normalised: parameters in order, encoded as a list request carries them', () => {
    expect(normalisedFilter('search=rural clinics&states=KS&include_national=true&category=Health&search_mode=hybrid', ['grant'], '2026-11-26')).toBe(
      'category=Health&include_national=true&search=rural+clinics&search_mode=hybrid&states=KS',
    );
    expect(normalisedFilter('?states=KS,NE', ['grant', 'contract'], '2026-11-26')).toBe('states=KS%2CNE');
  });

  it("is refused, with the list endpoints' messages, when it would be a 400 there or is not a filter", () => {
    expect(refused('states=XX')).toMatch(/^invalid filter: states: /);
    expect(refused('colour=blue')).toMatch(/^invalid filter: colour: is not a parameter of the grant list \(it takes: search, search_mode, status, /);
    expect(refused('state=KS')).toBe('invalid filter: state: is not a parameter of the grant list; did you mean states?');
    expect(refused('naics=5415', ['grant', 'contract'])).toMatch(/^invalid filter: naics: is not a parameter of the grant list \(it takes: /);
    expect(refused('limit=5&sort_by=title')).toMatch(
      /^invalid filter: limit: shapes a page of results, not which records match: not a filter parameter; sort_by: shapes/,
    );
    expect(refused('facets=status')).toMatch(/^invalid filter: facets: shapes a page of results/);
    expect(normalisedFilter('states=national', ['grant'], '2026-11-26')).toBe('states=national');
    expect(refused('search_mode=semantic')).toMatch(/^invalid filter: search_mode: semantic search needs a search term/);
    expect(refused('deadline_after=2027-01-01&deadline_before=2026-12-01')).toMatch(/deadline_before: must be later than deadline_after/);
    expect(refused('')).toBe('invalid filter: filter: names no parameter (leave --filter out to get every event)');
    expect(refused(`search=${'a'.repeat(FILTER_MAX_BYTES)}`)).toBe(`invalid filter: filter: must be at most ${FILTER_MAX_BYTES} bytes`);
  });
});

describe('saved-search matching against the list endpoint', () => {
  let stack: EmbeddedStack;
  let today: string;
  const samples: Record<'grant' | 'contract', string[]> = { grant: [], contract: [] };

  beforeAll(async () => {
    stack = await startEmbeddedStack({ seed: { funders: 20, grants: 400, contracts: 200, awardedGrants: 40, awardedContracts: 20 } });
    today = utcDate(stack.services.clock);
    for (const kind of ['grant', 'contract'] as const) {
      const ids: string[] = [];
      for await (const page of stack.services.store.scan(kind)) ids.push(...page.map((record) => record.id));
      // Half the records (more than a page, so the matcher pages too), and one id no record has.
      samples[kind] = [...ids.filter((_, i) => i % 2 === 0), '00000000-0000-4000-8000-00000000dead'];
    }
  }, 300_000);
  afterAll(async () => stack?.close());

  /** Every record the kind's list returns for the filter, paged through as a client would. */
  async function listedIds(kind: 'grant' | 'contract', filter: string): Promise<Set<string>> {
    const params = Object.fromEntries([...new URLSearchParams(filter)].map(([name, value]) => [name, [value]]));
    const ids = new Set<string>();
    for (let offset = 0; ; offset += LIMITS.pageMax) {
      const query = parseListQuery(kind, { ...params, limit: [String(LIMITS.pageMax)], offset: [String(offset)] }, today) as ListQuery & { kind: typeof kind };
      const outcome = await listRecords(stack.services, query);
      for (const record of outcome.results) ids.add(record.id);
      if (offset + LIMITS.pageMax >= outcome.total) return ids;
    }
  }

  const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 2 });
  const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  /** Filters of every kind the kind's list takes, each present about one time in three. */
  const filtersFor = (kind: 'grant' | 'contract') =>
    fc
      .record({
        states: maybe(fc.subarray(['CA', 'NY', 'TX', 'KS', 'AL', 'WA'], { minLength: 1, maxLength: 3 })),
        include_national: maybe(fc.boolean()),
        geography: maybe(fc.constantFrom('national', 'state', 'local')),
        category: maybe(fc.constantFrom('Health', 'Education', 'Environment', 'Agriculture', 'Information Technology', 'Construction')),
        min_amount: maybe(fc.constantFrom(10_000, 100_000, 500_000)),
        max_amount: maybe(fc.constantFrom(50_000, 250_000, 2_000_000)),
        deadline_after: maybe(fc.constantFrom(7, 30)),
        deadline_before: maybe(fc.constantFrom(30, 90, 365)),
        posted_after: maybe(fc.constantFrom(-30, -180, -720)),
        status: maybe(kind === 'grant' ? fc.constantFrom('posted', 'forecasted', 'posted,closed', 'closed') : fc.constantFrom('open', 'closed', 'open,closed')),
        opportunity_type: maybe(fc.constantFrom('open', 'awarded', 'all')),
        naics: kind === 'contract' ? maybe(fc.constantFrom('54', '5415', '236', '541511,336')) : fc.constant(undefined),
        set_aside: kind === 'contract' ? maybe(fc.constantFrom('SBA', '8A', 'WOSB,HZC')) : fc.constant(undefined),
        search: maybe(
          fc.record({
            text: fc.constantFrom('community health', 'rural broadband', 'water quality', 'teacher training', 'software development'),
            mode: fc.constantFrom('keyword', 'semantic', 'hybrid'),
          }),
        ),
      })
      .map((f) => {
        const params = new URLSearchParams();
        for (const name of [
          'states',
          'include_national',
          'geography',
          'category',
          'min_amount',
          'max_amount',
          'status',
          'opportunity_type',
          'naics',
          'set_aside',
        ] as const) {
          const value = f[name];
          if (value !== undefined) params.set(name, Array.isArray(value) ? value.join(',') : String(value));
        }
        if (f.deadline_after !== undefined) params.set('deadline_after', inDays(f.deadline_after));
        if (f.deadline_before !== undefined && (f.deadline_after === undefined || f.deadline_before > f.deadline_after))
          params.set('deadline_before', inDays(f.deadline_before));
        if (f.posted_after !== undefined) params.set('posted_after', inDays(f.posted_after));
        if (f.search) {
          params.set('search', f.search.text);
          params.set('search_mode', f.search.mode);
        }
        if ([...params.keys()].length === 0) params.set('status', kind === 'grant' ? 'posted' : 'open');
        return params.toString();
      });

  it.each(['grant', 'contract'] as const)(
    'matches exactly the sampled %ss the list returns, for generated filters of every kind',
    async (kind) => {
      let nonEmpty = 0;
      await fc.assert(
        fc.asyncProperty(filtersFor(kind), async (raw) => {
          const filter = normalisedFilter(raw, [kind], today);
          const listed = await listedIds(kind, filter);
          const matched = await savedSearchMatches(stack.services, filter, kind, samples[kind], today);
          expect([...matched].sort(), filter).toEqual(samples[kind].filter((id) => listed.has(id)).sort());
          expect(await savedSearchCount(stack.services, filter, kind, today), filter).toBe(listed.size);
          if (matched.size > 0) nonEmpty++;
        }),
        { numRuns: 40, seed: 20261126 },
      );
      // The property is not vacuous: a good share of the filters match some sampled record.
      expect(nonEmpty).toBeGreaterThanOrEqual(5);
    },
    300_000,
  );
});
