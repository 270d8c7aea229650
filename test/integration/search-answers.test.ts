import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Contract, Grant } from '../../lambdas/core/records';
import { NO_RESULTS_REASONS } from '../../lambdas/core/search/no-results';
import { loadLocalEmbedder } from '../../local/local-embedder';
import { seededRecords, startTestApi, TEST_CATALOGUE, type TestApi } from '../support/api-server';
import { matches } from '../support/oracle';

/**
 * What a new user types first, over real HTTP on the embedded stack with the sentence model: an
 * opportunity, listing, solicitation or NAICS number (however typed), one topical word, a search
 * its filters empty, and text that is not a query at all. Every answer is records or an empty list
 * with its reason in meta.no_results.
 */

let api: TestApi;
let today: string;
let grants: Grant[];
let contracts: Contract[];

beforeAll(async () => {
  api = await startTestApi({ seed: TEST_CATALOGUE, embedder: await loadLocalEmbedder() });
  ({ today, grants, contracts } = seededRecords(api.stack));
});
afterAll(async () => {
  await api?.close();
});

type Body = {
  results: { id: string; title: string; description: string; relevance?: number }[];
  pagination: { total: number };
  meta: { no_results?: { reason: string; message: string; matches_without_filters?: number } };
};

async function search(path: string, params: Record<string, string>): Promise<Body> {
  const res = await api.get(`${path}?${new URLSearchParams(params)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as Body;
}

const openGrants = () => grants.filter((grant) => matches(grant, {}, today));
const openContracts = () => contracts.filter((contract) => matches(contract, {}, today));

describe('identifier queries', () => {
  it.each(['keyword', 'hybrid'])('%s search finds a grant by its opportunity number at rank 1, typed with any case and spacing', async (mode) => {
    const grant = openGrants()[7]!;
    const number = grant.source_id!;
    for (const typed of [number, number.toLowerCase(), number.replaceAll('-', ' '), ` ${number.replaceAll('-', '')} `]) {
      const body = await search('/grants-api', { search: typed, search_mode: mode });
      expect(body.results[0]?.id, typed).toBe(grant.id);
      if (mode === 'hybrid') expect(body.results[0]?.relevance).toBe(1);
    }
  });

  it('finds the grants of an Assistance Listing first, alone or after "CFDA"', async () => {
    const listed = openGrants().find((grant) => grant.assistance_listings.length > 0)!;
    const number = listed.assistance_listings[0]!.number;
    const holders = new Set(
      openGrants()
        .filter((grant) => grant.assistance_listings.some((listing) => listing.number === number))
        .map((grant) => grant.id),
    );
    for (const typed of [number, `CFDA ${number}`]) {
      const body = await search('/grants-api', { search: typed, search_mode: 'keyword', limit: '100' });
      expect(
        body.results
          .slice(0, holders.size)
          .map((r) => r.id)
          .sort(),
        typed,
      ).toEqual([...holders].sort());
    }
  });

  it.each(['keyword', 'hybrid'])('%s search finds a contract by its solicitation number at rank 1, and by its NAICS code among the first', async (mode) => {
    const contract = openContracts().find((notice) => notice.solicitation_number !== null && notice.naics !== null)!;
    const bySolicitation = await search('/contracts-api', { search: contract.solicitation_number!.toLowerCase(), search_mode: mode });
    expect(bySolicitation.results[0]?.id).toBe(contract.id);
    const industry = openContracts()
      .filter((notice) => notice.naics === contract.naics)
      .map((notice) => notice.id);
    const byNaics = await search('/contracts-api', { search: `NAICS ${contract.naics}`, search_mode: mode, limit: '100' });
    expect(
      byNaics.results
        .slice(0, industry.length)
        .map((r) => r.id)
        .sort(),
    ).toEqual(industry.sort());
  });

  it('semantic search, which does not read identifiers, says to search by keyword or hybrid instead', async () => {
    const body = await search('/grants-api', { search: openGrants()[7]!.source_id!, search_mode: 'semantic' });
    expect(body.results).toEqual([]);
    expect(body.meta.no_results).toMatchObject({ reason: 'below_floor', message: expect.stringContaining('search_mode=keyword or hybrid') });
  });
});

describe('one topical word', () => {
  const WORD = 'youth';
  const holds = (record: Grant) => new RegExp(`\\b${WORD}\\b`, 'i').test(`${record.title} ${record.description} ${record.funder_name}`);

  it('finds in keyword mode every open grant that holds it, and only grants that hold a form of it', async () => {
    const holders = openGrants()
      .filter(holds)
      .map((grant) => grant.id);
    expect(holders.length, 'the catalogue has grants about youth').toBeGreaterThan(5);
    const body = await search('/grants-api', { search: WORD, limit: '100' });
    expect(body.pagination.total).toBeGreaterThanOrEqual(holders.length);
    const found = new Set(body.results.map((r) => r.id));
    expect(holders.filter((id) => !found.has(id))).toEqual([]);
    for (const result of body.results) expect(`${result.title} ${result.description}`.toLowerCase(), result.title).toMatch(/youth/);
  });

  it.each(['semantic', 'hybrid'])('is answered in %s mode, mostly by grants that hold it', async (mode) => {
    const body = await search('/grants-api', { search: WORD, search_mode: mode, limit: '10' });
    expect(body.results.length).toBe(10);
    const holding = body.results.filter((result) => /youth/i.test(`${result.title} ${result.description}`)).length;
    expect(holding).toBeGreaterThanOrEqual(8);
  });
});

describe('an empty answer says why', () => {
  it.each(['keyword', 'semantic', 'hybrid'])(
    '%s: filters that exclude every match give filtered_out with the count the text matches without them',
    async (mode) => {
      const text = 'youth mentoring';
      const unfiltered = await search('/grants-api', { search: text, search_mode: mode, opportunity_type: 'all', limit: '1' });
      expect(unfiltered.pagination.total).toBeGreaterThan(0);
      const body = await search('/grants-api', { search: text, search_mode: mode, min_amount: '999999999999' });
      expect(body).toMatchObject({ results: [], pagination: { total: 0 } });
      expect(body.meta.no_results).toMatchObject({ reason: 'filtered_out', matches_without_filters: unfiltered.pagination.total });
    },
  );

  it('a list its filters empty says no record passes them, and a found page has no reason', async () => {
    const empty = await search('/contracts-api', { min_amount: '999999999999' });
    expect(empty.meta.no_results).toEqual({ reason: 'no_match', message: 'No record passes these filters.' });
    expect((await search('/contracts-api', {})).meta.no_results).toBeUndefined();
  });
});

describe('text that is not an ordinary query', () => {
  const TEXTS = [
    'the of and to',
    '?!... ---',
    '"unbalanced',
    'title:(water OR health)',
    'health AND NOT water',
    'water^10 health~2',
    '*',
    '\\',
    'health*',
    '(rural',
    'water NEAR health',
    '-water',
    'sch\u00f6ol \u00e9t\u00e9 caf\u00e9',
    '\u0000\u0007 water',
    '\u{1F680}\u{1F30D}',
    'a'.repeat(500),
    `${'rural health '.repeat(38)}care`.slice(0, 500),
    '农村 卫生 补助金',
    'منح الصحة الريفية',
    'subventions pour la santé rurale',
    'Förderung ländlicher Gesundheit',
    'PAR 25 098',
    'par-25-098',
    '  R01 ',
    'hhs-nih11',
  ];

  it.each(TEXTS.flatMap((text) => ['keyword', 'semantic', 'hybrid'].map((mode) => [mode, text] as const)))(
    '%s search for %j gives results, or none and a reason',
    async (mode, text) => {
      for (const path of ['/grants-api', '/contracts-api']) {
        const body = await search(path, { search: text, search_mode: mode });
        if (body.results.length > 0) {
          expect(body.meta.no_results).toBeUndefined();
          continue;
        }
        expect(body.pagination.total).toBe(0);
        expect(NO_RESULTS_REASONS, `${path} ${text}`).toContain(body.meta.no_results?.reason);
        expect(body.meta.no_results?.message.length).toBeGreaterThan(20);
      }
    },
  );

  it.each(['keyword', 'semantic', 'hybrid'])('%s: stop words, punctuation and symbols alone have nothing to search for', async (mode) => {
    for (const text of ['the of and to', '?!... ---', '\u{1F680}\u{1F30D}', '*']) {
      const body = await search('/grants-api', { search: text, search_mode: mode });
      expect(body.results, text).toEqual([]);
      expect(body.meta.no_results?.reason, text).toBe('no_terms');
    }
  });
});
