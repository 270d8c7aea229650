import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SqliteSearchIndex } from '../../lambdas/adapters/embedded/sqlite-search-index';
import type { StateCode } from '../../lambdas/core/geo';
import { type ListQuery, parseListQuery, type SearchMode } from '../../lambdas/core/query/list-query';
import type { Grant } from '../../lambdas/core/records';
import type { SemanticQuery } from '../../lambdas/ports/search-index';
import { fixtureGrant } from '../support/record-fixtures';

/**
 * The embedded index ranks a filtered search two ways (cached-rankings.ts): by scoring only the
 * rows its filters keep (a text not searched before, filters keeping at most a tenth of the
 * records), or by narrowing the whole catalogue's ranking of the text. Both must give the same
 * records, in the same order, with the same relevance and total, in every mode.
 */

const TODAY = '2026-11-26';
const STATES: StateCode[] = ['TX', 'CA', 'NY', 'WA', 'OH', 'FL', 'IL', 'GA', 'PA', 'MI', 'AZ', 'CO', 'MN', 'OR', 'NV', 'UT', 'NM', 'KS', 'IA', 'ME'];
const WORDS = ['police', 'water', 'health', 'arts', 'rural', 'youth', 'equipment', 'training'];
const DIMENSIONS = 4;
const SPACE = { embedder: 'filtered-scoring-test', dimensions: DIMENSIONS };

const unit = (xs: number[]): Float32Array => {
  const norm = Math.hypot(...xs) || 1;
  return Float32Array.from(xs, (x) => x / norm);
};

const record = fc.record({
  words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
  state: fc.constantFrom(...STATES),
  vector: fc.option(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: DIMENSIONS, maxLength: DIMENSIONS }), { freq: 6 }),
});

function grant(n: number, words: string[], state: StateCode): Grant {
  return fixtureGrant(n, {
    title: words.join(' '),
    description: `About ${words.join(' and ')}.`,
    deadline_date: '2027-06-01',
    funder_id: '00000000-0000-4000-8000-999999999999',
    funder_name: 'Department of Tests',
    created_at: '2026-01-01T00:00:00.000Z',
    states: [state],
  });
}

const query = (params: Record<string, string>) =>
  parseListQuery('grant', Object.fromEntries(Object.entries({ limit: '100', ...params }).map(([k, v]) => [k, [v]])), TODAY) as ListQuery & { kind: 'grant' };

describe('a filtered search scored among the filtered rows alone', () => {
  it("equals the whole catalogue's ranking narrowed to the same filters, in every mode", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(record, { minLength: 60, maxLength: 160 }),
        fc.constantFrom<SearchMode>('keyword', 'semantic', 'hybrid'),
        fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }),
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: DIMENSIONS, maxLength: DIMENSIONS }),
        fc.double({ min: -0.2, max: 0.8, noNaN: true }),
        fc.constantFrom(...STATES),
        async (records, mode, words, vector, floor, state) => {
          const grants = records.map((r, n) => grant(n + 1, r.words, r.state));
          const vectors = records.map((r) => (r.vector ? unit(r.vector) : null));
          const semantic: SemanticQuery = {
            vector: unit(vector),
            scale: { floor, shortFloor: floor, lexicalFloor: floor - 0.2, profileFloor: floor, upper: 1 },
          };
          const [scoredAmong, narrowed] = [
            new SqliteSearchIndex({ filename: ':memory:', space: SPACE }),
            new SqliteSearchIndex({ filename: ':memory:', space: SPACE }),
          ];
          try {
            for (const index of [scoredAmong, narrowed]) await index.upsert('grant', grants, vectors);
            const search = { search: words.join(' '), search_mode: mode };
            // The whole catalogue's ranking first: the filtered query then narrows it.
            await narrowed.query('grant', query(search), semantic);
            const filtered = query({ ...search, states: state });
            const [a, b] = [await scoredAmong.query('grant', filtered, semantic), await narrowed.query('grant', filtered, semantic)];
            expect(a.total).toBe(b.total);
            expect(a.results.map((r) => [r.id, r.relevance])).toEqual(b.results.map((r) => [r.id, r.relevance]));
          } finally {
            scoredAmong.close();
            narrowed.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
