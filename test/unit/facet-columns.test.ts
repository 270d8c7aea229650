import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FacetColumns, statesOfMasks } from '../../lambdas/adapters/embedded/facet-columns';
import { setBit, wordsFor } from '../../lambdas/adapters/embedded/row-bitmap';
import { stateMasks } from '../../lambdas/adapters/embedded/sqlite-index-schema';
import { FACET_NAMES, FacetCounter, statusFacetClauses } from '../../lambdas/core/query/facets';

/**
 * The embedded index counts facets over codes (facet-columns.ts); FacetCounter
 * (lambdas/core/query/facets.ts) states the meaning record by record. Both must give the same
 * facets for any rows: spellings that differ only in case, a value twice in one record, records
 * without states (national), every status live or not, deadlines in and out of every window.
 */

const TODAY = '2026-11-26';
const STORED = [...new Set(statusFacetClauses('grant').flatMap(({ clauses }) => clauses.map((c) => c.stored)))];
const DAYS = ['2026-11-20', '2026-11-26', '2026-12-02', '2026-12-20', '2027-02-01', '2027-09-01'];

const row = fc.record({
  id: fc.stringMatching(/^[0-9a-f]{6}$/),
  status: fc.constantFrom(...STORED),
  liveUntil: fc.constantFrom(...DAYS),
  deadline: fc.option(fc.constantFrom(...DAYS), { nil: null }),
  states: fc.subarray(['TX', 'CA', 'NY', 'WA', 'PR']),
  funder: fc.constantFrom('Dept of Energy', 'dept of energy', 'NSF', 'Nsf', 'NIH'),
  categories: fc.array(fc.constantFrom('Health', 'health', 'HEALTH', 'Energy', 'Arts'), { maxLength: 3 }),
});

describe('FacetColumns', () => {
  it('counts as FacetCounter does, over rowids, a filter bitmap and every row', () => {
    fc.assert(fc.property(fc.uniqueArray(row, { selector: (r) => r.id, minLength: 1, maxLength: 40 }), fc.subarray([...FACET_NAMES], { minLength: 1 }), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), (rows, names, kept) => {
      const columns = new FacetColumns();
      rows.forEach((r, rowid) => {
        const [lo, hi] = stateMasks(r.states);
        columns.set(rowid, {
          status: r.status, live_until: r.liveUntil, deadline_date: r.deadline, states_lo: lo, states_hi: hi,
          funder_name: r.funder, category_names: JSON.stringify(r.categories),
        });
      });
      const rankOf = (rowid: number) => [...rows].sort((a, b) => (a.id < b.id ? -1 : 1)).findIndex((r) => r.id === rows[rowid]!.id);
      const expected = (rowids: number[]) => {
        const counter = new FacetCounter('grant', names, TODAY);
        for (const rowid of rowids) {
          const r = rows[rowid]!;
          const [lo, hi] = stateMasks(r.states);
          counter.add({ id: r.id, status: r.status, live: r.liveUntil >= TODAY, categories: r.categories, states: statesOfMasks(lo, hi), funder_name: r.funder, deadline_date: r.deadline });
        }
        return counter.facets();
      };
      const some = rows.map((_, rowid) => rowid).filter((rowid) => kept[rowid]);
      expect(columns.count('grant', names, TODAY, { rowids: some }, rankOf)).toEqual(expected(some));
      const bits = new Uint32Array(wordsFor(rows.length));
      for (const rowid of some) setBit(bits, rowid);
      expect(columns.count('grant', names, TODAY, { bits }, rankOf)).toEqual(expected(some));
      expect(columns.count('grant', names, TODAY, { all: true }, rankOf)).toEqual(expected(rows.map((_, rowid) => rowid)));
    }), { numRuns: 300 });
  });
});
