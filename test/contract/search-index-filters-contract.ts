import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../lambdas/core/dates';
import { filtersOf, type ListFilter, type OpportunityKind } from '../../lambdas/core/query/filter-registry';
import { type ListQuery, parseListQuery } from '../../lambdas/core/query/list-query';
import { parseParams } from '../../lambdas/core/query/params';
import type { Contract, Grant } from '../../lambdas/core/records';
import type { SearchIndex } from '../../lambdas/ports/search-index';
import { matches, type Opportunity } from '../support/oracle';
import { fixtureContract, fixtureGrant } from '../support/record-fixtures';
import type { ContractHarness } from './search-index-contract';

/**
 * The declared list filters (lambdas/core/query/filter-registry.ts) as every SearchIndex adapter
 * owes them: for each entry, values drawn from this catalogue (each stored value, in another case,
 * two at once, prefixes, each bound and its neighbours, a value no record has) keep exactly the
 * records the test oracle keeps, in a listing and in a keyword search. A new entry is tested here
 * on both engines with no edit, and fails here if the catalogue gives it nothing to tell apart.
 */

const TODAY = '2026-11-22';
/** In every title, so a keyword search for it matches every record and leaves the filter to decide. */
const EVERY_TITLE_WORD = 'filtered';

const funder = (n: number) => `00000000-0000-4000-b000-${String(n).padStart(12, '0')}`;

const grant = (n: number, extra: Partial<Grant>): Grant =>
  fixtureGrant(n, { title: `Filtered grant ${n}`, description: 'A listing for the filter contract.', funder_id: funder(1), source: 'filter-test', ...extra });

const contract = (n: number, extra: Partial<Contract>): Contract =>
  fixtureContract(n, {
    title: `Filtered contract ${n}`,
    description: 'A notice for the filter contract.',
    funder_id: funder(3),
    source: 'filter-test',
    ...extra,
  });

// Values repeat (ties at every bound), some are missing, and text comes in more than one case.
const GRANTS: Grant[] = [
  grant(1, { categories: ['Health'], deadline_date: '2026-12-01', amount_min: 0, amount_max: 50_000, created_at: '2026-02-28T23:59:59.000Z' }),
  grant(2, {
    categories: ['health', 'Education'],
    deadline_date: '2027-01-15',
    amount_min: 10_000,
    amount_max: 250_000,
    created_at: '2026-03-01T00:00:00.000Z',
    funder_id: funder(2),
    funder_name: 'Department of Education',
  }),
  grant(3, { categories: ['Arts'], deadline_date: '2027-01-15', amount_min: 50_000, amount_max: 50_000, created_at: '2026-03-01T08:30:00.000Z' }),
  grant(4, { categories: [], amount_max: 1_000, created_at: '2025-12-31T12:00:00.000Z', funder_id: funder(2), funder_name: 'Department of Education' }),
  grant(5, {
    categories: ['EDUCATION'],
    deadline_date: '2026-11-30',
    amount_min: 250_000,
    created_at: '2026-09-15T00:00:00.000Z',
    opportunity_type: 'awarded',
    status: 'closed',
    project_end_date: '2025-06-30',
  }),
];
const CONTRACTS: Contract[] = [
  contract(1, { naics: '541512', set_aside_code: 'SBA', categories: ['Information Technology'], deadline_date: '2026-12-15', amount_max: 1_000_000 }),
  contract(2, {
    naics: '541330',
    set_aside_code: 'wosb',
    categories: ['Engineering'],
    amount_min: 5_000,
    funder_id: funder(4),
    funder_name: 'General Services Administration',
  }),
  contract(3, {
    naics: '236220',
    set_aside_code: '8A',
    deadline_date: '2027-02-01',
    amount_min: 5_000,
    amount_max: 20_000,
    created_at: '2026-10-01T00:00:00.000Z',
  }),
  contract(4, {
    naics: null,
    set_aside_code: null,
    categories: ['information technology'],
    status: 'closed',
    funder_id: funder(4),
    funder_name: 'General Services Administration',
  }),
];
const RECORDS: Record<OpportunityKind, readonly Opportunity[]> = { grant: GRANTS, contract: CONTRACTS };

const swapCase = (text: string) => [...text].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
const valuesOf = (records: readonly Opportunity[], field: string) => [
  ...new Set(
    records.flatMap((r) => {
      const stored = (r as unknown as Record<string, unknown>)[field];
      return stored === null || stored === undefined ? [] : Array.isArray(stored) ? stored.map(String) : [String(stored)];
    }),
  ),
];

/** Parameter values for a filter, from the catalogue by its shape, kept when the parameter accepts them. */
function samplesOf(filter: ListFilter, records: readonly Opportunity[]): string[] {
  const stored = valuesOf(records, filter.field);
  const { shape, spec } = filter;
  const kind = spec.kind;
  const single = kind.type === 'text' || kind.type === 'date' || kind.type === 'number';
  let candidates: string[];
  if (shape.type === 'range') {
    const points = shape.of === 'number' ? stored.map(Number) : [...new Set(stored.map((v) => v.slice(0, 10)))];
    candidates = points.flatMap((p) => (typeof p === 'number' ? [p - 1, p, p + 1].map(String) : [addDays(p, -1), p, addDays(p, 1)]));
  } else {
    const given = shape.type === 'prefix' ? stored.flatMap((v) => [v, v.slice(0, 2), v.slice(0, 4)]) : stored.flatMap((v) => [v, swapCase(v)]);
    const missing =
      kind.type === 'enumList'
        ? kind.values.filter((v) => !stored.some((s) => s.toUpperCase() === v.toUpperCase())).slice(0, 1)
        : kind.type === 'patternList'
          ? [kind.example]
          : ['no such value'];
    candidates = [...given, ...missing, ...(single || stored.length < 2 ? [] : [`${stored[0]},${stored[stored.length - 1]}`])];
  }
  const accepted = (raw: string) => parseParams([{ name: filter.param, ...spec }], { [filter.param]: [raw] }).issues.length === 0;
  return [...new Set(candidates)].filter(accepted);
}

function query(kind: OpportunityKind, params: Record<string, string>): ListQuery & { kind: OpportunityKind } {
  const raw = Object.fromEntries(Object.entries({ limit: '100', opportunity_type: 'all', ...params }).map(([k, v]) => [k, [v]]));
  return parseListQuery(kind, raw, TODAY) as ListQuery & { kind: OpportunityKind };
}

const expectedIds = (kind: OpportunityKind, params: Record<string, string>) =>
  RECORDS[kind]
    .filter((r) => matches(r, { opportunity_type: 'all', ...params }, TODAY))
    .map((r) => r.id)
    .sort();

type Case = [string, OpportunityKind, Record<string, string>];
const CASES: Case[] = (['grant', 'contract'] as const).flatMap((kind) =>
  filtersOf(kind).flatMap((filter) => samplesOf(filter, RECORDS[kind]).map((raw): Case => [`${kind} ${filter.param}=${raw}`, kind, { [filter.param]: raw }])),
);
/** Two filters at once: each filter's first sample that keeps some records but not all, with the next filter's. */
const PAIRS: Case[] = (['grant', 'contract'] as const).flatMap((kind) => {
  const telling = filtersOf(kind).flatMap((filter) => {
    const raw = samplesOf(filter, RECORDS[kind]).find((r) => {
      const n = expectedIds(kind, { [filter.param]: r }).length;
      return n > 0 && n < RECORDS[kind].length;
    });
    return raw === undefined ? [] : [[filter.param, raw] as const];
  });
  return telling.slice(1).map(([param, raw], i): Case => {
    const [before, beforeRaw] = telling[i]!;
    return [`${kind} ${before}=${beforeRaw}&${param}=${raw}`, kind, { [before]: beforeRaw, [param]: raw }];
  });
});

export function describeSearchIndexFiltersContract(name: string, start: () => Promise<ContractHarness>): void {
  describe(`SearchIndex contract, declared filters: ${name}`, () => {
    let harness: ContractHarness;
    let index: SearchIndex;
    const idsOf = async (kind: OpportunityKind, params: Record<string, string>) =>
      (await index.query(kind, query(kind, params))).results.map((r) => r.id).sort();

    beforeAll(async () => {
      harness = await start();
      index = harness.index;
      await index.upsert('grant', GRANTS);
      await index.upsert('contract', CONTRACTS);
      await harness.settle();
    });
    afterAll(async () => harness?.close());

    it('have samples that keep some records and drop others, for every filter of every kind', () => {
      for (const kind of ['grant', 'contract'] as const) {
        for (const filter of filtersOf(kind)) {
          const counts = samplesOf(filter, RECORDS[kind]).map((raw) => expectedIds(kind, { [filter.param]: raw }).length);
          expect(
            counts.some((n) => n > 0),
            `${kind} ${filter.param}: no sample keeps a record (give the catalogue values of ${filter.field})`,
          ).toBe(true);
          expect(
            counts.some((n) => n < RECORDS[kind].length),
            `${kind} ${filter.param}: no sample drops a record`,
          ).toBe(true);
        }
      }
    });

    it.each([...CASES, ...PAIRS])('%s: a listing and a keyword search keep the records the oracle keeps', async (_label, kind, params) => {
      const expected = expectedIds(kind, params);
      expect(await idsOf(kind, params)).toEqual(expected);
      expect(await idsOf(kind, { ...params, search: EVERY_TITLE_WORD })).toEqual(expected);
      expect((await index.query(kind, query(kind, { ...params, count_only: 'true' }))).total).toBe(expected.length);
    });
  });
}
