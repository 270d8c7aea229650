import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FILTER_COLUMNS, FilterColumns, type FilterRow } from '../../lambdas/adapters/embedded/filter-columns';
import { filterSql, type Sql } from '../../lambdas/adapters/embedded/sqlite-index-filters';
import { schemaDdl, stateMasks } from '../../lambdas/adapters/embedded/sqlite-index-schema';
import { GEOGRAPHY_LEVELS, US_STATE_CODES } from '../../lambdas/core/geo';
import type { OpportunityFilters } from '../../lambdas/core/query/list-query';
import { APPLICANT_TYPES } from '../../lambdas/core/records';

/**
 * The in-memory filter columns of the embedded index against the SQL they stand in for: the same
 * rows, the same random filters, the same rowids. Values come from small domains so that filters
 * hit and miss, with nulls, ties at every bound and mixed-case geography.
 */

const TODAY = '2026-11-25';
const days = ['2026-11-24', TODAY, '2026-11-26', '2027-03-01', '9999-12-31'];
const states = ['CA', 'NY', 'TX', 'PR', 'GU', 'VI'] as const;
const someStates = fc.subarray([...states], { minLength: 1 });

const row = fc
  .record({
    created_at: fc.constantFrom('2026-11-24T23:00:00Z', '2026-11-25T00:00:00Z', '2026-11-26T08:00:00Z'),
    deadline_date: fc.option(fc.constantFrom(...days.slice(0, 4)), { nil: null }),
    live_until: fc.constantFrom(...days),
    amount_min: fc.option(fc.constantFrom(0, 5000, 10000), { nil: null }),
    amount_max: fc.option(fc.constantFrom(5000, 10000, 250000), { nil: null }),
    status: fc.constantFrom('posted', 'forecasted', 'closed', 'open', 'awarded'),
    awarded: fc.constantFrom(0, 1),
    categories: fc.subarray(['health', 'education', 'arts'], { minLength: 0 }).map((cs) => `|${cs.join('|')}|`),
    states: fc.subarray([...states]),
    geo_level: fc.constantFrom(...GEOGRAPHY_LEVELS),
    geography: fc.option(fc.constantFrom('Rural Texas', 'NEW YORK CITY', 'San Juan, Puerto Rico', 'Guam', 'Estado Libre Asociado, ÉTAT'), { nil: null }),
    naics: fc.option(fc.constantFrom('541511', '541330', '236220', '56'), { nil: null }),
    set_aside: fc.option(fc.constantFrom('SBA', '8A', 'WOSB'), { nil: null }),
    applicants: fc.constantFrom(0, 1, 3, 32, 63),
    requires_501c3: fc.option(fc.constantFrom(0, 1), { nil: null }),
  })
  .map(({ states: codes, ...rest }): FilterRow => {
    const [lo, hi] = stateMasks(codes);
    return { ...rest, states_lo: lo, states_hi: hi, national: codes.length === 0 ? 1 : 0 };
  });

const OPTIONAL_FILTERS = [
  'status',
  'category',
  'states',
  'geography',
  'deadlineAfter',
  'deadlineBefore',
  'createdFrom',
  'minAmount',
  'maxAmount',
  'naics',
  'setAside',
  'applicant',
] as const;

const everyFilter = fc.record({
  opportunityType: fc.constantFrom('open', 'awarded', 'all'),
  status: fc.array(fc.record({ stored: fc.constantFrom('posted', 'forecasted', 'closed', 'open'), live: fc.option(fc.boolean(), { nil: undefined }) }), {
    minLength: 1,
    maxLength: 3,
  }),
  category: fc.constantFrom('Health', 'arts', 'sports'),
  states: someStates,
  includeNational: fc.boolean(),
  geography: fc.oneof(
    fc.record({ level: fc.constantFrom(...GEOGRAPHY_LEVELS) }),
    fc.record({ states: someStates }),
    fc.record({ text: fc.constantFrom('texas', 'York', 'puerto rico', 'guam', 'x', 'État') }),
  ),
  deadlineAfter: fc.constantFrom(...days),
  deadlineBefore: fc.constantFrom(...days),
  createdFrom: fc.constantFrom('2026-11-25T00:00:00.000Z', '2026-11-26T00:00:00.000Z'),
  minAmount: fc.constantFrom(0.5, 5000, 10000),
  maxAmount: fc.constantFrom(0, 5000, 9999),
  naics: fc.subarray(['54', '5415', '541330', '23', '56'], { minLength: 1 }),
  setAside: fc.subarray(['SBA', '8A', 'HZC'], { minLength: 1 }),
  applicant: fc.record({ type: fc.constantFrom(...APPLICANT_TYPES), lacks501c3: fc.boolean() }),
});
/** One to three filters besides the type, so that a filter's own hits and misses show (all of them at once keep nothing). */
const filters: fc.Arbitrary<OpportunityFilters> = fc
  .tuple(everyFilter, fc.subarray([...OPTIONAL_FILTERS], { minLength: 1, maxLength: 3 }))
  .map(([every, chosen]) => {
    const kept: Record<string, unknown> = { opportunityType: every.opportunityType, includeNational: every.includeNational };
    for (const key of chosen) kept[key] = every[key];
    return kept as unknown as OpportunityFilters;
  });

describe('the embedded index filter columns', () => {
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
          const insert = db.prepare(
            `INSERT OR REPLACE INTO grant_rows (rowid, id, title, funder_name, category_names, ${FILTER_COLUMNS.join(', ')}) VALUES (@rowid, @id, 'a title', 'a funder', '[]', ${FILTER_COLUMNS.map((c) => `@${c}`).join(', ')})`,
          );
          const columns = new FilterColumns();
          rows.forEach((r, i) => {
            insert.run({ ...r, rowid: rowidOf(i), id: `g${i}` });
            columns.set(rowidOf(i), r);
          });
          // The day's live rows are made now, so the rewrites and the removal below must keep them up to date.
          columns.mask({ opportunityType: 'all', includeNational: false, status: [{ stored: 'posted', live: true }] }, TODAY);
          // A rewritten row keeps only its new values (its old status, states and type bits go).
          for (const [at, r] of rewrites) {
            if (at >= rows.length) continue;
            insert.run({ ...r, rowid: rowidOf(at), id: `g${at}` });
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
          }
          db.close();
        },
      ),
      { numRuns: 400 },
    );
  });

  it('covers every US state and territory code (both 32-bit halves of the state mask)', () => {
    const columns = new FilterColumns();
    US_STATE_CODES.forEach((code, i) => {
      const [lo, hi] = stateMasks([code]);
      columns.set(i, {
        created_at: '',
        deadline_date: null,
        live_until: TODAY,
        amount_min: null,
        amount_max: null,
        status: 'posted',
        awarded: 0,
        categories: '||',
        states_lo: lo,
        states_hi: hi,
        national: 0,
        geo_level: 'state',
        geography: null,
        naics: null,
        set_aside: null,
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
