import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columnValueOf, DECLARED_COLUMNS, type DeclaredColumn } from '../../lambdas/adapters/embedded/declared-columns';
import { FILTER_COLUMNS, FilterColumns, type FilterRow } from '../../lambdas/adapters/embedded/filter-columns';
import { filterSql, type Sql } from '../../lambdas/adapters/embedded/sqlite-index-filters';
import { schemaDdl, stateMasks } from '../../lambdas/adapters/embedded/sqlite-index-schema';
import { GEOGRAPHY_LEVELS, US_STATE_CODES } from '../../lambdas/core/geo';
import { LIST_FILTERS, type ListFilter } from '../../lambdas/core/query/filter-registry';
import type { OpportunityFilters } from '../../lambdas/core/query/list-query';
import { APPLICANT_TYPES, RECORD_SCHEMAS } from '../../lambdas/core/records';

/**
 * The in-memory filter columns of the embedded index against the SQL they stand in for: the same
 * rows, the same random filters, the same rowids. The declared filters (filter-registry.ts) and
 * their columns are drawn from the registry by shape, so a new entry is tested here with no edit.
 * Values come from small domains so that filters hit and miss, with nulls, ties at every bound and
 * mixed case.
 */

const TODAY = '2026-11-25';
const days = ['2026-11-24', TODAY, '2026-11-26', '2027-03-01', '9999-12-31'];
const states = ['CA', 'NY', 'TX', 'PR', 'GU', 'VI'] as const;
const someStates = fc.subarray([...states], { minLength: 1 });

/** The values of each shape, as records hold them and as parsed filters give them. */
const DOMAINS = {
  terms: { stored: ['Alpha', 'alpha', 'BETA', 'Gamma', 'gamma'], given: ['alpha', 'Beta', 'GAMMA', 'delta'] },
  prefix: { stored: ['541511', '541330', '236220', '56'], given: ['54', '5415', '541330', '23', '56'] },
  number: { stored: [0, 5000, 10000, 250000], given: [0, 0.5, 5000, 9999, 10000] },
  date: { stored: days.slice(0, 4), given: days },
  timestamp: {
    stored: ['2026-11-24T23:00:00Z', '2026-11-25T00:00:00Z', '2026-11-26T08:00:00Z'],
    given: ['2026-11-25T00:00:00.000Z', '2026-11-26T00:00:00.000Z'],
  },
} as const;

const domainOf = (shape: ListFilter['shape']) => (shape.type === 'range' ? DOMAINS[shape.of] : DOMAINS[shape.type]);
/** Whether the record schema lets the column's field be null (a non-null column, such as created_at, never is). */
const nullable = (column: DeclaredColumn) =>
  column.filters[0]!.kinds.some(
    (kind) => (RECORD_SCHEMAS[kind].shape as Record<string, { _zod: { def: { type: string } } } | undefined>)[column.name]?._zod.def.type === 'nullable',
  );

/** A declared column's value in a row, encoded as the row writer encodes a record's value. */
function declaredColumnArbitrary(column: DeclaredColumn): fc.Arbitrary<string | number | null> {
  const stored = domainOf(column.shape).stored as readonly (string | number)[];
  const value: fc.Arbitrary<unknown> = column.list
    ? fc.subarray([...stored])
    : nullable(column)
      ? fc.option(fc.constantFrom(...stored), { nil: null })
      : fc.constantFrom(...stored);
  return value.map((v) => columnValueOf(column, v));
}

/** A declared filter's value, as parseListQuery gives it (a text parameter gives one value). */
function declaredFilterArbitrary(filter: ListFilter): fc.Arbitrary<unknown> {
  const given = domainOf(filter.shape).given as readonly (string | number)[];
  if (filter.shape.type === 'range' || filter.spec.kind.type === 'text') return fc.constantFrom(...given);
  return fc.subarray([...given], { minLength: 1 });
}

const row = fc
  .record({
    live_until: fc.constantFrom(...days),
    status: fc.constantFrom('posted', 'forecasted', 'closed', 'open', 'awarded'),
    awarded: fc.constantFrom(0, 1),
    states: fc.subarray([...states]),
    geo_level: fc.constantFrom(...GEOGRAPHY_LEVELS),
    geography: fc.option(fc.constantFrom('Rural Texas', 'NEW YORK CITY', 'San Juan, Puerto Rico', 'Guam', 'Estado Libre Asociado, ÉTAT'), { nil: null }),
    applicants: fc.constantFrom(0, 1, 3, 32, 63),
    requires_501c3: fc.option(fc.constantFrom(0, 1), { nil: null }),
    declared: fc.record(Object.fromEntries(DECLARED_COLUMNS.map((column) => [column.name, declaredColumnArbitrary(column)]))),
  })
  .map(({ states: codes, declared, ...rest }): FilterRow => {
    const [lo, hi] = stateMasks(codes);
    return { ...rest, ...declared, states_lo: lo, states_hi: hi, national: codes.length === 0 ? 1 : 0 };
  });

const OPTIONAL_FILTERS = ['status', 'states', 'geography', 'applicant', ...LIST_FILTERS.map((filter) => filter.key)];

const everyFilter = fc
  .record({
    opportunityType: fc.constantFrom('open', 'awarded', 'all'),
    status: fc.array(fc.record({ stored: fc.constantFrom('posted', 'forecasted', 'closed', 'open'), live: fc.option(fc.boolean(), { nil: undefined }) }), {
      minLength: 1,
      maxLength: 3,
    }),
    states: someStates,
    includeNational: fc.boolean(),
    geography: fc.oneof(
      fc.record({ level: fc.constantFrom(...GEOGRAPHY_LEVELS) }),
      fc.record({ states: someStates }),
      fc.record({ text: fc.constantFrom('texas', 'York', 'puerto rico', 'guam', 'x', 'État') }),
    ),
    applicant: fc.record({ type: fc.constantFrom(...APPLICANT_TYPES), lacks501c3: fc.boolean() }),
    declared: fc.record(Object.fromEntries(LIST_FILTERS.map((filter) => [filter.key, declaredFilterArbitrary(filter)]))),
  })
  .map(({ declared, ...explicit }) => ({ ...explicit, ...declared }));
/** One to three filters besides the type, so that a filter's own hits and misses show (all of them at once keep nothing). */
const filters: fc.Arbitrary<OpportunityFilters> = fc
  .tuple(everyFilter, fc.subarray([...OPTIONAL_FILTERS], { minLength: 1, maxLength: 3 }))
  .map(([every, chosen]) => {
    const kept: Record<string, unknown> = { opportunityType: every.opportunityType, includeNational: every.includeNational };
    for (const key of chosen) kept[key] = (every as Record<string, unknown>)[key];
    return kept as unknown as OpportunityFilters;
  });

describe('the embedded index filter columns', () => {
  /** The declared filters seen keeping some rows and dropping some, so none passes vacuously. */
  const keptSome = new Set<string>();
  const droppedSome = new Set<string>();

  it('keep exactly the rows the SQL filter keeps, for any rows and filters', () => {
    // Rowids spread over many 32-row words (the bitmaps' unit), and rows rewritten with new values.
    const rowidOf = (i: number) => 1 + i * 13;
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 39 }),
        fc.array(fc.tuple(fc.nat(39), row), { maxLength: 8 }),
        fc.array(filters, { minLength: 1, maxLength: 5 }),
        (rows, deleted, rewrites, queries) => {
          const db = new Database(':memory:');
          for (const stmt of schemaDdl()) db.exec(stmt);
          // The columns no filter reads, then the filter columns (funder_id among them).
          const columnNames = [...new Set(['rowid', 'id', 'title', 'funder_name', 'funder_id', 'category_names', ...FILTER_COLUMNS])];
          const insert = db.prepare(`INSERT OR REPLACE INTO grant_rows (${columnNames.join(', ')}) VALUES (${columnNames.map((c) => `@${c}`).join(', ')})`);
          const columns = new FilterColumns();
          rows.forEach((r, i) => {
            insert.run({ title: 'a title', funder_name: 'a funder', funder_id: 'f', category_names: '[]', ...r, rowid: rowidOf(i), id: `g${i}` });
            columns.set(rowidOf(i), r);
          });
          // The day's live rows are made now, so the rewrites and the removal below must keep them up to date.
          columns.mask({ opportunityType: 'all', includeNational: false, status: [{ stored: 'posted', live: true }] }, TODAY);
          // A rewritten row keeps only its new values (its old status, states and type bits go).
          for (const [at, r] of rewrites) {
            if (at >= rows.length) continue;
            insert.run({ title: 'a title', funder_name: 'a funder', funder_id: 'f', category_names: '[]', ...r, rowid: rowidOf(at), id: `g${at}` });
            columns.set(rowidOf(at), r);
          }
          // A removed row must drop out of both.
          if (deleted < rows.length) {
            db.prepare('DELETE FROM grant_rows WHERE rowid = ?').run(rowidOf(deleted));
            columns.delete(rowidOf(deleted));
          }
          for (const f of queries) {
            const sql: Sql = { where: [], params: [] };
            filterSql(f, TODAY, sql);
            const where = sql.where.length > 0 ? ` WHERE ${sql.where.join(' AND ')}` : '';
            const bySql = db
              .prepare(`SELECT r.rowid FROM grant_rows r${where} ORDER BY r.rowid`)
              .pluck()
              .all(...sql.params) as number[];
            const mask = columns.mask(f, TODAY);
            const byColumns = [...mask.keys()].filter((rowid) => mask[rowid] === 1);
            expect(byColumns, JSON.stringify(f)).toEqual(bySql);
            const present = db.prepare('SELECT count(*) FROM grant_rows').pluck().get() as number;
            for (const filter of LIST_FILTERS) {
              if ((f as unknown as Record<string, unknown>)[filter.key] === undefined) continue;
              if (bySql.length > 0) keptSome.add(filter.key);
              if (bySql.length < present) droppedSome.add(filter.key);
            }
          }
          db.close();
        },
      ),
      { numRuns: 400 },
    );
    expect([...keptSome].sort()).toEqual(LIST_FILTERS.map((filter) => filter.key).sort());
    expect([...droppedSome].sort()).toEqual(LIST_FILTERS.map((filter) => filter.key).sort());
  });

  it('covers every US state and territory code (both 32-bit halves of the state mask)', () => {
    const columns = new FilterColumns();
    US_STATE_CODES.forEach((code, i) => {
      const [lo, hi] = stateMasks([code]);
      columns.set(i, {
        live_until: TODAY,
        status: 'posted',
        awarded: 0,
        states_lo: lo,
        states_hi: hi,
        national: 0,
        geo_level: 'state',
        geography: null,
        applicants: 0,
        requires_501c3: null,
      });
    });
    for (const [i, code] of US_STATE_CODES.entries()) {
      const mask = columns.mask({ opportunityType: 'all', includeNational: false, states: [code] }, TODAY);
      expect([...mask.keys()].filter((rowid) => mask[rowid] === 1)).toEqual([i]);
    }
  });
});
