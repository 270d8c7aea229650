import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SqliteSearchIndex } from '../../lambdas/adapters/embedded/sqlite-search-index';
import { type ListQuery, parseListQuery } from '../../lambdas/core/query/list-query';
import type { Grant } from '../../lambdas/core/records';
import { matches, sortRecords } from '../support/oracle';
import { fixtureGrant } from '../support/record-fixtures';

/**
 * Pages in a field order (field-orders.ts) walk only the positions the filters' bounds on the
 * sort column leave (a deadline range, a minimum or maximum amount). Values land on the bounds
 * often here (few distinct deadlines and amounts), so a walk cut one position short loses a row;
 * every page is checked against the plain-code oracle (test/support/oracle.ts).
 */

const TODAY = '2026-11-26';
const DAYS = ['2026-11-20', '2026-11-26', '2026-11-27', '2026-12-01', '2027-01-15', '2027-03-01'];
const AMOUNTS = [5_000, 10_000, 25_000, 50_000];

const grantOf = (n: number, r: { deadline: string | null; min: number | null; max: number | null }): Grant =>
  fixtureGrant(n, {
    title: `Grant ${n % 7}`,
    description: 'A grant.',
    amount_min: r.min,
    amount_max: r.max === null || r.min === null ? r.max : Math.max(r.min, r.max),
    deadline_date: r.deadline,
    funder_id: '00000000-0000-4000-8000-999999999999',
    funder_name: 'Department of Tests',
    created_at: '2026-01-01T00:00:00.000Z',
  });

const row = fc.record({
  deadline: fc.option(fc.constantFrom(...DAYS), { freq: 5 }),
  min: fc.option(fc.constantFrom(...AMOUNTS), { freq: 4 }),
  max: fc.option(fc.constantFrom(...AMOUNTS), { freq: 4 }),
});

const params = fc
  .record({
    sort_by: fc.constantFrom('deadline_date', 'amount_min', 'amount_max'),
    order: fc.constantFrom('asc', 'desc'),
    deadline_after: fc.option(fc.constantFrom(...DAYS), { nil: undefined }),
    deadline_before: fc.option(fc.constantFrom(...DAYS), { nil: undefined }),
    min_amount: fc.option(fc.constantFrom(...AMOUNTS).map(String), { nil: undefined }),
    max_amount: fc.option(fc.constantFrom(...AMOUNTS).map(String), { nil: undefined }),
    offset: fc.constantFrom('0', '3', '10'),
  })
  .map((p) => ({
    ...p,
    // The parser refuses an empty range (a 400): such a pair is left out.
    deadline_before: p.deadline_after && p.deadline_before && p.deadline_before <= p.deadline_after ? undefined : p.deadline_before,
    max_amount: p.min_amount && p.max_amount && Number(p.max_amount) < Number(p.min_amount) ? undefined : p.max_amount,
  }))
  .map((p) => Object.fromEntries(Object.entries({ ...p, opportunity_type: 'all', limit: '5' }).filter(([, v]) => v !== undefined)) as Record<string, string>);

const query = (p: Record<string, string>) =>
  parseListQuery('grant', Object.fromEntries(Object.entries(p).map(([k, v]) => [k, [v]])), TODAY) as ListQuery & { kind: 'grant' };

describe('pages in a field order, bounded by the filters', () => {
  it("give the oracle's page for every sort field, direction, bound and offset", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 20, maxLength: 60 }), fc.array(params, { minLength: 1, maxLength: 6 }), async (rows, queries) => {
        const grants = rows.map((r, n) => grantOf(n + 1, r));
        const index = new SqliteSearchIndex({ filename: ':memory:', space: { embedder: 'field-order-test', dimensions: 2 } });
        try {
          await index.upsert('grant', grants);
          for (const p of queries) {
            const expected = sortRecords(
              grants.filter((g) => matches(g, p, TODAY)),
              p.sort_by!,
              p.order as 'asc' | 'desc',
            );
            const page = await index.query('grant', query(p));
            expect(page.total).toBe(expected.length);
            const offset = Number(p.offset);
            expect(
              page.results.map((r) => r.id),
              JSON.stringify(p),
            ).toEqual(expected.slice(offset, offset + 5).map((g) => g.id));
          }
        } finally {
          index.close();
        }
      }),
      { numRuns: 150 },
    );
  });
});
