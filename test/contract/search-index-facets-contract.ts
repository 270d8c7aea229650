import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../lambdas/core/dates';
import { isLive } from '../../lambdas/core/query/applyable';
import { FACET_NAMES, FacetCounter, type Facets, type OpportunityKind } from '../../lambdas/core/query/facets';
import { type ListQuery, parseListQuery } from '../../lambdas/core/query/list-query';
import type { Contract, Grant } from '../../lambdas/core/records';
import type { IndexPage, SearchIndex, SemanticQuery } from '../../lambdas/ports/search-index';
import { fixtureContract, fixtureGrant } from '../support/record-fixtures';
import type { ContractHarness } from './search-index-contract';

/**
 * Facets (lambdas/core/query/facets.ts) as every SearchIndex adapter owes them: counted over the
 * whole result set `total` counts, in every mode and with filters, the same for a page and for
 * count_only. Each case checks the adapter's facets against the definitions applied to the
 * query's whole unpaged result, and one listing against numbers worked out by hand, so both
 * adapters are held to the same counts.
 */

const TODAY = '2026-11-22';
const in_ = (days: number) => addDays(TODAY, days);

const unit = (...xs: number[]): Float32Array => {
  const norm = Math.hypot(...xs);
  return Float32Array.from(xs, (x) => x / norm);
};

/** Each funder's id, by its name ignoring case, as records of one funder carry one id. */
const FUNDER_IDS = new Map<string, string>();
const funderIdOf = (name: string) => {
  const key = name.toLowerCase();
  if (!FUNDER_IDS.has(key)) FUNDER_IDS.set(key, `00000000-0000-4000-a000-${String(FUNDER_IDS.size + 1).padStart(12, '0')}`);
  return FUNDER_IDS.get(key)!;
};

function grant(n: number, title: string, extra: Partial<Grant>): Grant {
  const funder_name = extra.funder_name ?? 'Department of Health';
  return fixtureGrant(n, {
    title,
    description: 'Facet test listing.',
    funder_id: funderIdOf(funder_name),
    funder_name,
    created_at: '2026-06-01T00:00:00.000Z',
    source: 'facet-test',
    ...extra,
  });
}

// Directions: x = health, y = education, w = arts.
const GRANTS: { record: Grant; vector: Float32Array | null }[] = [
  {
    record: grant(1, 'Rural clinic program', { deadline_date: in_(0), categories: ['Health'], states: ['TX'], amount_max: 100_000 }),
    vector: unit(1, 0, 0, 0),
  },
  {
    record: grant(2, 'Clinic and school nurses', { deadline_date: in_(7), categories: ['Health', 'Education'], states: ['TX', 'CA'], amount_max: 50_000 }),
    vector: unit(0.9, 0.4, 0, 0),
  },
  {
    record: grant(3, 'Mobile clinic vans', { deadline_date: in_(8), categories: ['health'], states: ['CA'], funder_name: 'department of health' }),
    vector: unit(0.95, 0, 0.1, 0),
  },
  {
    record: grant(4, 'School libraries', { deadline_date: in_(30), categories: ['Education'], funder_name: 'Department of Education' }),
    vector: unit(0, 1, 0, 0),
  },
  {
    record: grant(5, 'School meals', {
      deadline_date: in_(31),
      categories: ['Education', 'EDUCATION'],
      funder_name: 'Department of Education',
      amount_max: 200_000,
    }),
    vector: unit(0.1, 1, 0, 0),
  },
  {
    record: grant(6, 'Arts in schools', { deadline_date: in_(90), categories: ['Arts'], states: ['NY'], funder_name: 'National Endowment for the Arts' }),
    vector: unit(0, 0.3, 0, 1),
  },
  {
    record: grant(7, 'Theatre touring', { deadline_date: in_(91), states: ['NY', 'NJ'], funder_name: 'National Endowment for the Arts' }),
    vector: unit(0, 0, 0, 1),
  },
  { record: grant(8, 'Community murals', { categories: ['Arts'], funder_name: 'National Endowment for the Arts' }), vector: unit(0, 0, 0.2, 1) },
  { record: grant(9, 'Clinic construction forecast', { status: 'forecasted', categories: ['Health'], states: ['CA'] }), vector: unit(1, 0, 0.1, 0) },
  {
    record: grant(10, 'School forecast', { status: 'forecasted', deadline_date: in_(45), categories: ['Education'], funder_name: 'Department of Education' }),
    vector: unit(0, 1, 0.1, 0),
  },
  { record: grant(11, 'Clinic staffing', { deadline_date: in_(-1), categories: ['Health'], states: ['TX'] }), vector: unit(1, 0.1, 0, 0) },
  { record: grant(12, 'Closed clinic study', { status: 'closed', deadline_date: in_(-30), categories: ['Health'] }), vector: unit(0.8, 0, 0.6, 0) },
  // Stale: open-ended and posted in 2014.
  { record: grant(13, 'Clinic listing from 2014', { created_at: '2014-03-01T00:00:00.000Z', categories: ['Health'], states: ['TX'] }), vector: null },
  // Archived although its deadline is ahead.
  {
    record: grant(14, 'School archive', { deadline_date: in_(60), archive_date: in_(-2), categories: ['Education'], funder_name: 'Department of Education' }),
    vector: unit(0, 1, 0, 0),
  },
  {
    record: grant(15, 'Clinic award', {
      opportunity_type: 'awarded',
      status: 'closed',
      project_end_date: '2025-06-30',
      categories: ['Health'],
      states: ['TX'],
    }),
    vector: unit(1, 0, 0, 0),
  },
  { record: grant(16, 'Clinic without vector', { deadline_date: in_(3), categories: ['Health'] }), vector: null },
];

function contract(n: number, title: string, extra: Partial<Contract>): Contract {
  const funder_name = extra.funder_name ?? 'Department of Defense';
  return fixtureContract(n, {
    title,
    description: 'Facet test solicitation.',
    funder_id: funderIdOf(funder_name),
    funder_name,
    created_at: '2026-10-01T00:00:00.000Z',
    source: 'facet-test',
    ...extra,
  });
}

const CONTRACTS: { record: Contract; vector: Float32Array | null }[] = [
  { record: contract(1, 'Radar maintenance', { deadline_date: in_(5), categories: ['Information Technology'], states: ['VA'] }), vector: unit(1, 0, 0, 0) },
  { record: contract(2, 'Radar parts', { deadline_date: in_(-3), categories: ['Information Technology'] }), vector: unit(0.9, 0.1, 0, 0) },
  {
    record: contract(3, 'Janitorial services', {
      status: 'closed',
      deadline_date: in_(-10),
      categories: ['Facilities'],
      funder_name: 'General Services Administration',
      states: ['VA', 'MD'],
    }),
    vector: unit(0, 1, 0, 0),
  },
  { record: contract(4, 'Radar training', { deadline_date: in_(100), categories: ['Professional Services'] }), vector: unit(0.9, 0, 0.3, 0) },
];

const ALL_FACETS = FACET_NAMES.join(',');
const semanticQuery = (vector: Float32Array | null, floor: number): SemanticQuery => ({
  vector,
  scale: { floor, shortFloor: floor, lexicalFloor: floor, profileFloor: floor, upper: 1 },
});

function query<K extends OpportunityKind>(kind: K, params: Record<string, string>): ListQuery & { kind: K } {
  const raw = Object.fromEntries(Object.entries({ limit: '100', facets: ALL_FACETS, ...params }).map(([k, v]) => [k, [v]]));
  return parseListQuery(kind, raw, TODAY) as ListQuery & { kind: K };
}

/** The facets by their definitions, over a whole result set. */
function facetsOfRecords(kind: OpportunityKind, records: readonly (Grant | Contract)[]): Facets {
  const counter = new FacetCounter(kind, FACET_NAMES, TODAY);
  for (const r of records)
    counter.add({
      id: r.id,
      status: r.status,
      live: isLive(r, TODAY),
      categories: r.categories,
      states: r.states,
      funder_name: r.funder_name,
      funder_id: r.funder_id,
      deadline_date: r.deadline_date,
    });
  return counter.facets();
}

const count = (facets: Facets | undefined, name: keyof Facets, value: string) => facets?.[name]?.find((v) => v.value === value)?.count ?? 0;
const sum = (facets: Facets | undefined, name: keyof Facets) => (facets?.[name] ?? []).reduce((total, v) => total + v.count, 0);

type Case = [string, OpportunityKind, Record<string, string>, SemanticQuery | undefined];

const CASES: Case[] = [
  ['a listing (what can be applied for)', 'grant', {}, undefined],
  ['every grant', 'grant', { opportunity_type: 'all' }, undefined],
  ['a filtered listing', 'grant', { status: 'open,closed', states: 'TX,national', min_amount: '0' }, undefined],
  ['a category filter', 'grant', { opportunity_type: 'all', category: 'HEALTH' }, undefined],
  ['a keyword search', 'grant', { search: 'clinic', opportunity_type: 'all' }, undefined],
  ['a keyword search with filters', 'grant', { search: 'school', status: 'open,closed,forecasted', deadline_after: in_(1) }, undefined],
  ['a semantic search', 'grant', { search: 'health', search_mode: 'semantic', opportunity_type: 'all' }, semanticQuery(unit(1, 0, 0, 0), 0.5)],
  ['a semantic search with filters', 'grant', { search: 'schools', search_mode: 'semantic', states: 'national' }, semanticQuery(unit(0, 1, 0, 0), 0.3)],
  [
    'a hybrid search (the union of both lists)',
    'grant',
    { search: 'clinic', search_mode: 'hybrid', opportunity_type: 'all' },
    semanticQuery(unit(0, 0, 0, 1), 0.9),
  ],
  [
    'a hybrid search at a high floor',
    'grant',
    { search: 'clinic', search_mode: 'hybrid', status: 'open,closed,forecasted' },
    semanticQuery(unit(1, 0, 0, 0), 0.9),
  ],
  ['a hybrid search without a vector (keyword half)', 'grant', { search: 'school', search_mode: 'hybrid' }, semanticQuery(null, 0.5)],
  ['a contract listing', 'contract', { status: 'open,closed' }, undefined],
  ['a contract keyword search', 'contract', { search: 'radar', status: 'open,closed' }, undefined],
  ['a contract semantic search', 'contract', { search: 'radar', search_mode: 'semantic', status: 'open,closed' }, semanticQuery(unit(1, 0, 0, 0), 0.8)],
];

export function describeSearchIndexFacetsContract(name: string, start: () => Promise<ContractHarness>): void {
  describe(`SearchIndex contract, facets: ${name}`, () => {
    let harness: ContractHarness;
    let index: SearchIndex;
    const run = <K extends OpportunityKind>(kind: K, params: Record<string, string>, semantic?: SemanticQuery): Promise<IndexPage<K>> =>
      index.query(kind, query(kind, params), semantic);

    beforeAll(async () => {
      harness = await start();
      index = harness.index;
      await index.upsert(
        'grant',
        GRANTS.map((g) => g.record),
        GRANTS.map((g) => g.vector),
      );
      await index.upsert(
        'contract',
        CONTRACTS.map((c) => c.record),
        CONTRACTS.map((c) => c.vector),
      );
      await harness.settle();
    });
    afterAll(async () => harness?.close());

    it('counts a listing of every grant as worked out by hand', async () => {
      const page = await run('grant', { opportunity_type: 'all', limit: '2' });
      expect(page.total).toBe(16);
      expect(page.results).toHaveLength(2);
      expect(page.facets).toEqual({
        status: [
          { value: 'open', count: 9 },
          { value: 'forecasted', count: 2 },
          { value: 'closed', count: 5 },
        ],
        // Only 7 has none; "Education" twice in record 5 counts once; "health" in 3 joins "Health" (named as record 1 spells it).
        category: [
          { value: 'Health', count: 9 },
          { value: 'Education', count: 5 },
          { value: 'Arts', count: 2 },
        ],
        states: [
          { value: 'national', count: 7 },
          { value: 'TX', count: 5 },
          { value: 'CA', count: 3 },
          { value: 'NY', count: 2 },
          { value: 'NJ', count: 1 },
        ],
        funder: [
          { value: 'Department of Health', count: 9, id: funderIdOf('Department of Health') },
          { value: 'Department of Education', count: 4, id: funderIdOf('Department of Education') },
          { value: 'National Endowment for the Arts', count: 3, id: funderIdOf('National Endowment for the Arts') },
        ],
        deadline_within: [
          { value: '7', count: 3 },
          { value: '30', count: 2 },
          { value: '90', count: 4 },
          { value: 'later', count: 1 },
          { value: 'none', count: 4 },
          { value: 'passed', count: 2 },
        ],
      });
    });

    it('counts only the facets asked, and none when none are asked', async () => {
      const page = await run('grant', { opportunity_type: 'all', facets: 'deadline_within,states' });
      expect(Object.keys(page.facets!).sort()).toEqual(['deadline_within', 'states']);
      const { facets: _f, ...rest } = query('grant', {});
      expect((await index.query('grant', rest)).facets).toBeUndefined();
    });

    it('gives every fixed value and no term value for a query that matches nothing', async () => {
      for (const [params, semantic] of [
        [{ search: 'qwxz zzkv' }, undefined],
        [{ search: 'qwxz', search_mode: 'semantic' }, semanticQuery(null, 0.5)],
        [{ search: 'qwxz zzkv', search_mode: 'hybrid' }, semanticQuery(null, 0.5)],
        [{ category: 'nothing' }, undefined],
      ] as [Record<string, string>, SemanticQuery | undefined][]) {
        const page = await run('grant', params, semantic);
        expect(page.total, JSON.stringify(params)).toBe(0);
        expect(page.facets, JSON.stringify(params)).toEqual({
          status: [
            { value: 'open', count: 0 },
            { value: 'forecasted', count: 0 },
            { value: 'closed', count: 0 },
          ],
          category: [],
          states: [],
          funder: [],
          deadline_within: ['7', '30', '90', 'later', 'none', 'passed'].map((value) => ({ value, count: 0 })),
        });
      }
    });

    it.each(CASES)('%s: the facets of the whole result set, for a page and for count_only', async (_name, kind, params, semantic) => {
      const whole = await run(kind, params, semantic);
      expect(whole.total).toBeGreaterThan(0);
      expect(whole.results).toHaveLength(whole.total);
      expect(whole.facets).toEqual(facetsOfRecords(kind, whole.results));
      expect(sum(whole.facets, 'status')).toBe(whole.total);
      expect(sum(whole.facets, 'deadline_within')).toBe(whole.total);
      const page = await run(kind, { ...params, limit: '1', offset: '1' }, semantic);
      expect(page.facets).toEqual(whole.facets);
      const counted = await run(kind, { ...params, count_only: 'true' }, semantic);
      expect({ total: counted.total, results: counted.results, facets: counted.facets }).toEqual({ total: whole.total, results: [], facets: whole.facets });
    });

    it.each(CASES)('%s: a status, category, state or funder id passed back as a filter selects exactly its count', async (_name, kind, params, semantic) => {
      const { facets } = await run(kind, params, semantic);
      for (const { value, count: n } of facets!.status!) {
        // The query's own status holds every value it counted: a value it left out counts 0 and is not asked back.
        if (n === 0) continue;
        expect((await run(kind, { ...params, status: value, count_only: 'true' }, semantic)).total, `status=${value}`).toBe(n);
      }
      // Passed back, a category or states value replaces the query's own filter of that name, which would widen the set.
      for (const { value, count: n } of params.category ? [] : facets!.category!) {
        expect((await run(kind, { ...params, category: value, count_only: 'true' }, semantic)).total, `category=${value}`).toBe(n);
      }
      expect(facets!.funder!.length, 'the case counts funders').toBeGreaterThan(0);
      for (const { value, count: n, id } of params.funder_id ? [] : facets!.funder!) {
        expect(id, `${value} has its funder's id`).toBe(funderIdOf(value));
        expect((await run(kind, { ...params, funder_id: id!, count_only: 'true' }, semantic)).total, `funder_id=${id} (${value})`).toBe(n);
      }
      if (params.states) return;
      for (const { value, count: n } of facets!.states!) {
        expect((await run(kind, { ...params, states: value, count_only: 'true' }, semantic)).total, `states=${value}`).toBe(n);
      }
    });

    it('counts a record once in each bucket of a deadline window, at the window edges', async () => {
      const page = await run('grant', { status: 'open', facets: 'deadline_within' });
      // Open today: 1 (today), 16 (+3), 2 (+7) | 3 (+8), 4 (+30) | 5 (+31), 6 (+90) | 7 (+91) | 8 (none).
      expect(page.facets!.deadline_within).toEqual([
        { value: '7', count: 3 },
        { value: '30', count: 2 },
        { value: '90', count: 2 },
        { value: 'later', count: 1 },
        { value: 'none', count: 1 },
        { value: 'passed', count: 0 },
      ]);
      // The windows as deadline filters (exclusive bounds) give the same counts.
      const between = async (after: number, before: number) =>
        (await run('grant', { status: 'open', deadline_after: in_(after), deadline_before: in_(before), count_only: 'true' })).total;
      expect([await between(-1, 8), await between(7, 31), await between(30, 91)]).toEqual([3, 2, 2]);
      expect(count(page.facets, 'deadline_within', 'later')).toBe(1);
    });

    it('counts contracts by their own statuses', async () => {
      const page = await run('contract', { status: 'open,closed', facets: 'status,funder' });
      expect(page.facets).toEqual({
        status: [
          { value: 'open', count: 2 },
          { value: 'closed', count: 2 },
        ],
        funder: [
          { value: 'Department of Defense', count: 3, id: funderIdOf('Department of Defense') },
          { value: 'General Services Administration', count: 1, id: funderIdOf('General Services Administration') },
        ],
      });
    });

    it('counts two funders of one name apart, each passed back by its id', async () => {
      const interior = '00000000-0000-4000-b000-00000000000a';
      const treasury = '00000000-0000-4000-b000-00000000000b';
      const offices = [
        grant(200, 'Offices one', { funder_name: 'Departmental Offices', funder_id: interior, deadline_date: in_(40) }),
        grant(201, 'Offices two', { funder_name: 'Departmental Offices', funder_id: interior, deadline_date: in_(40) }),
        grant(202, 'Offices three', { funder_name: 'DEPARTMENTAL OFFICES', funder_id: treasury, deadline_date: in_(40) }),
      ];
      await index.upsert('grant', offices);
      await harness.settle();
      try {
        const window = { deadline_after: in_(39), deadline_before: in_(41) };
        const page = await run('grant', { ...window, facets: 'funder' });
        expect(page.facets!.funder).toEqual([
          { value: 'Departmental Offices', count: 2, id: interior },
          { value: 'DEPARTMENTAL OFFICES', count: 1, id: treasury },
        ]);
        for (const value of page.facets!.funder!) expect((await run('grant', { ...window, funder_id: value.id!, count_only: 'true' })).total).toBe(value.count);
      } finally {
        await index.remove(
          'grant',
          offices.map((g) => g.id),
        );
        await harness.settle();
      }
    });

    it('lists at most 50 values of a term facet, most first, ties by value', async () => {
      const crowd = Array.from({ length: 60 }, (_, i) =>
        grant(100 + i, `Crowd ${i}`, {
          categories: [`Topic ${String(i).padStart(2, '0')}`],
          deadline_date: in_(10),
          funder_name: i < 3 ? 'Zeta Fund' : `Fund ${i}`,
        }),
      );
      await index.upsert('grant', crowd);
      await harness.settle();
      try {
        const page = await run('grant', { deadline_after: in_(9), deadline_before: in_(11), facets: 'category,funder' });
        expect(page.total).toBe(60);
        expect(page.facets!.category).toHaveLength(50);
        expect(page.facets!.category!.map((v) => v.value)).toEqual(Array.from({ length: 50 }, (_, i) => `Topic ${String(i).padStart(2, '0')}`));
        expect(page.facets!.funder![0]).toEqual({ value: 'Zeta Fund', count: 3, id: funderIdOf('Zeta Fund') });
        // Ties by value: "Fund 10" before "Fund 3" (as text).
        expect(page.facets!.funder!.slice(1, 4).map((v) => v.value)).toEqual(['Fund 10', 'Fund 11', 'Fund 12']);
        // At the cap, ties go to the smaller funder id (as OpenSearch's terms on funder_id choose): Fund 3 to Fund 51.
        const funders = new Set(page.facets!.funder!.map((v) => v.value));
        expect([funders.has('Fund 3'), funders.has('Fund 51'), funders.has('Fund 52')]).toEqual([true, true, false]);
      } finally {
        await index.remove(
          'grant',
          crowd.map((g) => g.id),
        );
        await harness.settle();
      }
    });
  });
}
