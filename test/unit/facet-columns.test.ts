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
 * without states (national), every status live or not, deadlines in and out of every window, and
 * funders sharing a name (the value's id is that of its record first by id).
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
  // Mostly the name's own funder, sometimes another one sharing it: the value's id is its first record's.
  funderId: fc.constantFrom('f-1', 'f-1', 'f-1', 'f-2'),
  categories: fc.array(fc.constantFrom('Health', 'health', 'HEALTH', 'Energy', 'Arts'), { maxLength: 3 }),
});

/** Rowids spread past the columns' first allocation (1,024 rows), so they grow while rows are written. */
const ROWID_STEP = 53;

describe('FacetColumns', () => {
  it('counts as FacetCounter does, over rowids, a filter bitmap and every row, after rows are rewritten and removed', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(row, { selector: (r) => r.id, minLength: 1, maxLength: 40 }),
        fc.subarray([...FACET_NAMES], { minLength: 1 }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        fc.array(fc.option(row, { freq: 3 }), { minLength: 40, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        (written, names, kept, rewrites, removals) => {
          const columns = new FacetColumns();
          const write = (index: number, r: (typeof written)[number]) => {
            const [lo, hi] = stateMasks(r.states);
            columns.set(index * ROWID_STEP, {
              status: r.status,
              live_until: r.liveUntil,
              deadline_date: r.deadline,
              states_lo: lo,
              states_hi: hi,
              funder_name: r.funder,
              funder_id: `${r.funder.toLowerCase()}/${r.funderId}`,
              category_names: JSON.stringify(r.categories),
            });
          };
          written.forEach((r, index) => write(index, r));
          // A rewrite keeps the record's id (its place in id order) and changes its values.
          const rows = written.map((r, index) => (rewrites[index] ? { ...rewrites[index]!, id: r.id } : r));
          rows.forEach((r, index) => rewrites[index] && write(index, r));
          const removed = new Set(rows.map((_, index) => index).filter((index) => removals[index] && index % 3 === 0));
          for (const index of removed) columns.delete(index * ROWID_STEP);
          const byId = [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
          const rankOf = (rowid: number) => byId.findIndex((r) => r.id === rows[rowid / ROWID_STEP]!.id);
          const expected = (indexes: number[]) => {
            const counter = new FacetCounter('grant', names, TODAY);
            for (const index of indexes.filter((i) => !removed.has(i))) {
              const r = rows[index]!;
              const [lo, hi] = stateMasks(r.states);
              counter.add({
                id: r.id,
                status: r.status,
                live: r.liveUntil >= TODAY,
                categories: r.categories,
                states: statesOfMasks(lo, hi),
                funder_name: r.funder,
                funder_id: `${r.funder.toLowerCase()}/${r.funderId}`,
                deadline_date: r.deadline,
              });
            }
            return counter.facets();
          };
          const some = rows.map((_, index) => index).filter((index) => kept[index]);
          expect(columns.count('grant', names, TODAY, { rowids: some.map((index) => index * ROWID_STEP) }, rankOf)).toEqual(expected(some));
          const bits = new Uint32Array(wordsFor(rows.length * ROWID_STEP));
          for (const index of some) setBit(bits, index * ROWID_STEP);
          expect(columns.count('grant', names, TODAY, { bits }, rankOf)).toEqual(expected(some));
          expect(columns.count('grant', names, TODAY, { all: true }, rankOf)).toEqual(expected(rows.map((_, index) => index)));
        },
      ),
      { numRuns: 300 },
    );
  });
});
