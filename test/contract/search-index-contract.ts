import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../lambdas/core/errors';
import type { ListQuery } from '../../lambdas/core/query/list-query';
import { parseListQuery } from '../../lambdas/core/query/list-query';
import type { ApplicantType, Contract, Grant, ResourceKind } from '../../lambdas/core/records';
import { HYBRID_SEMANTIC_WEIGHT } from '../../lambdas/core/search/fusion';
import { FLOOR_SPREAD } from '../../lambdas/core/search/query-floor';
import { relevanceOfCosine, type SimilarityScale } from '../../lambdas/core/search/relevance';
import type { VectorSpace } from '../../lambdas/ports/embedder';
import type { IndexPage, SearchIndex, SemanticQuery } from '../../lambdas/ports/search-index';
import { fixtureContract, fixtureGrant } from '../support/record-fixtures';
import { describeSearchIndexFacetsContract } from './search-index-facets-contract';
import { describeSearchIndexFiltersContract } from './search-index-filters-contract';

/**
 * The behaviour every SearchIndex adapter owes the service (the port's doc comment), as one suite
 * run against each adapter: SQLite always, OpenSearch when a live domain is given. Vectors are
 * hand-made in 4 dimensions so the expected cosines are known exactly.
 */

export const CONTRACT_SPACE: VectorSpace = { embedder: 'contract-test', dimensions: 4 };
const TODAY = '2026-11-22';

export interface ContractHarness {
  index: SearchIndex;
  /** The most nearest candidates a semantic or hybrid query ranks (OpenSearch's window); absent: every record (an exact scan). */
  window?: number;
  /** Makes writes visible to search (OpenSearch refreshes; SQLite needs nothing). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

const unit = (...xs: number[]): Float32Array => {
  const norm = Math.hypot(...xs);
  return Float32Array.from(xs, (x) => x / norm);
};

function grant(n: number, title: string, description: string, extra: Partial<Grant> = {}): Grant {
  return fixtureGrant(n, {
    title,
    description,
    funder_id: '00000000-0000-4000-8000-999999999999',
    funder_name: 'Department of Justice',
    created_at: `2026-0${1 + (n % 9)}-01T00:00:00.000Z`,
    source: 'contract-test',
    ...extra,
  });
}

// Directions: x = policing, y = water, z = health, w = arts.
const CATALOGUE: { record: Grant; vector: Float32Array | null }[] = [
  {
    record: grant(1, 'Police equipment program', 'Body cameras and radios for local police departments.', {
      deadline_date: '2027-03-01',
      amount_max: 500_000,
      states: ['TX'],
      eligible_applicants: ['municipality'],
    }),
    vector: unit(1, 0, 0, 0),
  },
  {
    record: grant(2, 'Law enforcement technology', 'Modernising tools for sheriffs and officers.', {
      deadline_date: '2027-01-15',
      amount_max: 90_000,
      eligible_applicants: ['nonprofit', 'academic'],
      requires_501c3: true,
    }),
    vector: unit(0.9, 0, 0.1, 0),
  },
  {
    record: grant(3, 'Community policing and youth', 'Mentoring programs; equipment is not funded.', { amount_max: 20_000, states: ['CA'] }),
    vector: unit(0.7, 0, 0.3, 0.1),
  },
  {
    record: grant(4, 'Rural water systems', 'Drinking water infrastructure for small towns.', { deadline_date: '2026-12-31', states: ['TX'] }),
    vector: unit(0, 1, 0, 0),
  },
  { record: grant(5, 'Clinic equipment', 'Medical equipment for rural health clinics.', { deadline_date: '2025-01-01' }), vector: unit(0, 0.1, 1, 0) },
  { record: grant(6, 'Arts in schools', 'Music and theatre for students.', { status: 'forecasted' }), vector: unit(0, 0, 0, 1) },
  {
    record: grant(7, 'Equipment for first responders', 'Police, fire and EMS equipment grants.', {
      opportunity_type: 'awarded',
      project_end_date: '2024-06-30',
    }),
    vector: unit(0.8, 0, 0.2, 0),
  },
  {
    record: grant(8, 'Police equipment program', 'Duplicate posting with the same text as record 1.', {
      eligible_applicants: ['nonprofit', 'municipality'],
      requires_501c3: false,
    }),
    vector: unit(1, 0, 0, 0),
  },
  { record: grant(9, 'Untitled notice', 'No text a model would embed.'), vector: null },
  // Lapsed listings: stale (open-ended, posted 2014), archived, a placeholder deadline on an old posting.
  { record: grant(10, 'Police radio upgrade', 'Radios for police.', { created_at: '2014-03-01T00:00:00.000Z' }), vector: null },
  { record: grant(11, 'Police training academy', 'Training.', { deadline_date: '2027-06-01', archive_date: '2026-10-01' }), vector: null },
  { record: grant(12, 'Police youth leagues', 'Sports.', { deadline_date: '2102-04-13', created_at: '2012-03-16T00:00:00.000Z' }), vector: null },
  // The same words, adjacent in one title and far apart in the other.
  { record: grant(13, 'Water systems for small and rural towns', 'Pipes.', { categories: ['Environment'] }), vector: null },
  { record: grant(14, 'Water for small and rural towns: systems', 'Pipes.'), vector: null },
  { record: grant(15, 'Equipment for theatres', 'Stage lighting.', { funder_name: 'National Endowment for the Arts' }), vector: unit(0, 0, 0, 1) },
  // A past award with identifiers: its opportunity number, Assistance Listing (and its program's title) and agency code.
  {
    record: grant(16, 'Court improvements', 'Case management.', {
      opportunity_type: 'awarded',
      project_end_date: '2025-09-30',
      source_id: 'PAR-25-098',
      agency_code: 'USDOJ-OJP-BJA',
      assistance_listings: [{ number: '16.608', program_title: 'Tribal Court Assistance Program' }],
    }),
    vector: null,
  },
];

const byN = (n: number) => CATALOGUE[n - 1]!.record.id;

function contract(n: number, title: string, extra: Partial<Contract> = {}): Contract {
  return fixtureContract(n, {
    title,
    description: 'Solicitation notice.',
    funder_id: '00000000-0000-4000-8000-999999999999',
    funder_name: 'Department of Justice',
    created_at: '2026-10-01T00:00:00.000Z',
    source: 'contract-test',
    ...extra,
  });
}

/**
 * Partial keyword matches need telling words (in at most 5% of a kind's records), so these
 * contracts sit among 80 others that share none of their words ("drone", in 4 of 85, is the
 * commonest). Direction x is the query's topic.
 */
const DRONE_CONTRACTS: { record: Contract; vector: Float32Array }[] = [
  { record: contract(1, 'Drone surveillance training'), vector: unit(1, 0, 0, 0) }, // all three words, on topic
  { record: contract(2, 'Training for drone pilots'), vector: unit(0.8, 0.6, 0, 0) }, // two words, cosine 0.8
  { record: contract(3, 'Drone surveillance radar'), vector: unit(0.2, 1, 0, 0) }, // two words, cosine 0.2: off topic
  { record: contract(4, 'Drone repair'), vector: unit(1, 0.1, 0, 0) }, // one word, cosine 0.995: a partial match
  { record: contract(5, 'Surveillance cameras'), vector: unit(0, 1, 0, 0) }, // one word, cosine 0: off topic
  // A notice with codes: its solicitation number (another in its title), NAICS (and industry) and PSC code.
  {
    record: contract(6, 'J019--Hull repair 36C24827Q0012', {
      solicitation_number: 'W912DY-26-R-0012',
      naics: '336611',
      naics_description: 'Ship Building and Repairing',
      psc_code: 'J019',
    }),
    vector: unit(0, 0, 1, 0),
  },
  ...Array.from({ length: 80 }, (_, i) => ({ record: contract(100 + i, `Office supplies lot ${i}`), vector: unit(0, 0, 0, 1) })),
];
const byContract = (n: number) => DRONE_CONTRACTS.find((c) => c.record.source_id === `c${n}`)!.record.id;

/**
 * A query vector and a scale whose floor is `floor` for every query (relevance 1 at cosine 1),
 * and whose lexical floor is `lexicalFloor` (a query whose full keyword matches reach it is on topic).
 */
const semanticQuery = (vector: Float32Array | null, floor: number, lexicalFloor = floor): SemanticQuery => ({
  vector,
  scale: { floor, shortFloor: floor, lexicalFloor, profileFloor: floor, upper: 1 },
});

/**
 * A hybrid page's relevance, as fuseHybrid gives it: the weighted semantic relevance of the
 * records that pass the floor, plus up to 1 - HYBRID_SEMANTIC_WEIGHT for keyword matches, in
 * proportion to their BM25, which each engine computes its own way: 1 - HYBRID_SEMANTIC_WEIGHT
 * exactly for the best keyword match, less for the others, none for records only the vector found.
 */
function expectFusedRelevance(
  results: { id: string; relevance?: number }[],
  cosines: Map<string, number>,
  keywordIds: readonly string[],
  bestKeywordId: string,
  scale: SimilarityScale,
): void {
  const keywordShare = 1 - HYBRID_SEMANTIC_WEIGHT;
  for (const result of results) {
    const cosine = cosines.get(result.id);
    const semanticPart = cosine !== undefined && cosine >= scale.floor ? HYBRID_SEMANTIC_WEIGHT * relevanceOfCosine(cosine, scale) : 0;
    const keywordPart = result.relevance! - semanticPart;
    if (result.id === bestKeywordId) expect(keywordPart, result.id).toBeCloseTo(keywordShare, 3);
    else if (keywordIds.includes(result.id)) {
      expect(keywordPart, result.id).toBeGreaterThan(0);
      expect(keywordPart, result.id).toBeLessThanOrEqual(keywordShare + 1e-4);
    } else expect(keywordPart, result.id).toBeCloseTo(0, 3);
  }
  const relevance = results.map((r) => r.relevance!);
  expect(relevance).toEqual([...relevance].sort((a, b) => b - a));
}

function query(params: Record<string, string>, kind: ResourceKind = 'grant'): ListQuery & { kind: 'grant' } {
  const raw = Object.fromEntries(Object.entries({ limit: '100', ...params }).map(([k, v]) => [k, [v]]));
  return parseListQuery(kind, raw, TODAY) as ListQuery & { kind: 'grant' };
}

/**
 * Every result of a query, walked by keyset pages of `limit` (SearchIndex `after`, a page's
 * `next`), and by offset pages of 100: the two must give the same records in the same order,
 * each once, as many as the total.
 */
/** A page, or null when the index refuses it as past its window (a 400 naming offset or cursor). */
async function pageWithinWindow(
  index: SearchIndex,
  kind: 'grant' | 'contract',
  listQuery: ListQuery,
  semantic: SemanticQuery | undefined,
): Promise<IndexPage<'grant' | 'contract'> | null> {
  try {
    return await index.query(kind, listQuery as ListQuery & { kind: typeof kind }, semantic);
  } catch (error) {
    if (error instanceof ServiceError && error.status === 400 && /window of nearest candidates/.test(JSON.stringify(error.details))) return null;
    throw error;
  }
}

/**
 * Walks a query by offset pages and by keyset pages (each as far as the index pages it) and
 * checks that both give the same records in the same order, each once; every record the total
 * counts when the walk was not stopped by a window.
 */
async function expectKeysetWalkMatchesOffsets(
  index: SearchIndex,
  kind: 'grant' | 'contract',
  params: Record<string, string>,
  semantic: SemanticQuery | undefined,
  limit: number,
): Promise<{ ids: string[]; total: number; windowed: boolean }> {
  const label = JSON.stringify({ ...params, limit });
  const byOffset: string[] = [];
  let total = -1;
  let windowed = false;
  for (let offset = 0; ; offset += 100) {
    const page = await pageWithinWindow(index, kind, query({ ...params, limit: '100', offset: String(offset) }, kind), semantic);
    if (!page) {
      windowed = true;
      break;
    }
    total = page.total;
    windowed ||= page.totalRelation === 'gte';
    byOffset.push(...page.results.map((r) => r.id));
    expect(page.next === undefined, `${label}: next on the offset page at ${offset}`).toBe(offset + page.results.length >= total);
    if (page.results.length < 100 || offset + page.results.length >= total) break;
  }
  const byKeyset: string[] = [];
  let after: ListQuery['after'];
  for (let pages = 0; ; pages++) {
    expect(pages, `${label}: the walk does not end`).toBeLessThanOrEqual(total / limit + 1);
    const page = await pageWithinWindow(index, kind, { ...query({ ...params, limit: String(limit) }, kind), ...(after ? { after } : {}) }, semantic);
    if (!page) break;
    expect(page.total, label).toBe(total);
    byKeyset.push(...page.results.map((r) => r.id));
    if (!page.next) break;
    expect(page.results, `${label}: a page with next is full`).toHaveLength(limit);
    after = page.next;
  }
  expect(byKeyset, label).toEqual(byOffset);
  expect(new Set(byKeyset).size, label).toBe(windowed ? byKeyset.length : total);
  return { ids: byKeyset, total, windowed };
}

export function describeSearchIndexContract(name: string, start: () => Promise<ContractHarness>): void {
  describe(`SearchIndex contract: ${name}`, () => {
    let harness: ContractHarness;
    let index: SearchIndex;
    const ids = async (params: Record<string, string>, semantic?: SemanticQuery) =>
      (await index.query('grant', query(params), semantic)).results.map((r) => r.id);

    beforeAll(async () => {
      harness = await start();
      index = harness.index;
      await index.upsert(
        'grant',
        CATALOGUE.map((c) => c.record),
        CATALOGUE.map((c) => c.vector),
      );
      await index.upsert(
        'contract',
        DRONE_CONTRACTS.map((c) => c.record),
        DRONE_CONTRACTS.map((c) => c.vector),
      );
      await harness.settle();
    });
    afterAll(async () => harness?.close());

    describe('keyword', () => {
      it('needs both words of a two-word query, stemmed, in any searched field, title matches first', async () => {
        const found = await ids({ search: 'grants for police equipment' });
        // 1 has both words in the title and "police" again below; 8 both in the title; 3 "policing"
        // in the title and "equipment" below; 7 is an award; 2, 5 and 15 lack a word; 10-12 lapsed.
        expect(found[0]).toBe(byN(1));
        expect([...found].sort()).toEqual([byN(1), byN(3), byN(8)].sort());
      });

      it('needs most words of a longer query (2 of 3), ranking records with more of them first', async () => {
        const found = await ids({ search: 'police equipment cameras' });
        expect(found[0]).toBe(byN(1));
        expect([...found].sort()).toEqual([byN(1), byN(3), byN(8)].sort());
        // "rural clinic water": 5 (closed) has rural + clinics, 4 rural + water, 13 and 14 rural + water.
        expect((await ids({ search: 'rural clinic water', status: 'open,closed' })).sort()).toEqual([byN(4), byN(5), byN(13), byN(14)].sort());
        expect(await ids({ search: 'police cameras clinic' })).toEqual([byN(1)]);
      });

      it("searches the funder, a grant's program titles and a contract's industry too, but not the categories", async () => {
        expect(await ids({ search: 'endowment' })).toEqual([byN(15)]);
        expect(await ids({ search: 'tribal', opportunity_type: 'all' })).toEqual([byN(16)]);
        expect((await index.query('contract', query({ search: 'shipbuilding building', status: 'open,closed' }, 'contract'))).results.map((r) => r.id)).toEqual(
          [byContract(6)],
        );
        expect(await ids({ search: 'environment' })).toEqual([]);
      });

      it('ranks the words as a phrase above the same words far apart', async () => {
        const found = await ids({ search: 'water systems' });
        expect([...found].sort()).toEqual([4, 13, 14].map(byN).sort());
        expect(found.indexOf(byN(13))).toBeLessThan(found.indexOf(byN(14)));
      });

      it('matches plural and singular alike', async () => {
        expect(await ids({ search: 'clinics', status: 'closed' })).toEqual([byN(5)]);
        expect(await ids({ search: 'clinic', status: 'closed' })).toEqual([byN(5)]);
      });

      it('treats query syntax as plain text (a field prefix is just another word)', async () => {
        for (const text of ['"police', 'police*', 'police:equipment', '(police', 'police AND -equipment', 'police OR', '\u{1F680} police']) {
          const found = await ids({ search: text });
          expect(found, text).toContain(byN(1));
        }
        // Operators and field names are words like any other; one in no record cannot match and is not counted.
        expect((await ids({ search: 'title:police' })).sort()).toEqual((await ids({ search: 'police' })).sort());
        expect((await ids({ search: 'police NEAR equipment' })).sort()).toEqual([1, 3, 8].map(byN).sort());
      });

      it('finds nothing for words no record has, or only stop words, and says which', async () => {
        expect(await index.query('grant', query({ search: 'qwxz zzkv' }))).toEqual({ total: 0, results: [], empty: { reason: 'no_match' } });
        expect(await index.query('grant', query({ search: 'the of and' }))).toEqual({ total: 0, results: [], empty: { reason: 'no_terms' } });
        expect((await index.query('grant', query({ search: 'they are not there' }))).empty).toEqual({ reason: 'no_terms' });
      });

      it('says how many records the text matches when the filters exclude them all', async () => {
        // 10, 11 and 12 lapsed (closed); 1, 3 and 8 are open; 7 is an award: 7 records hold "police" in all.
        expect(await index.query('grant', query({ search: 'police', states: 'NY' }))).toEqual({
          total: 0,
          results: [],
          empty: { reason: 'filtered_out', matchesWithoutFilters: 7 },
        });
      });
    });

    describe('identifiers', () => {
      const contractIds = async (text: string, mode = 'keyword', semantic?: SemanticQuery) =>
        (await index.query('contract', query({ search: text, search_mode: mode, status: 'open,closed' }, 'contract'), semantic)).results.map((r) => r.id);

      it('find their record first, whatever the spacing, case and hyphens they are typed with', async () => {
        for (const text of ['PAR-25-098', 'par 25 098', 'PAR25098', 'opportunity PAR-25-098']) {
          expect((await ids({ search: text, opportunity_type: 'all' }))[0], text).toBe(byN(16));
        }
        for (const text of ['16.608', 'CFDA 16.608', 'USDOJ-OJP-BJA', 'BJA']) {
          expect(await ids({ search: text, opportunity_type: 'all' }), text).toEqual([byN(16)]);
        }
        for (const text of ['W912DY-26-R-0012', 'w912dy26r0012', 'NAICS 336611', '336611', 'J019', '36C24827Q0012']) {
          expect((await contractIds(text))[0], text).toBe(byContract(6));
        }
      });

      it('lead hybrid search too, an identifier alone answering it, while semantic search does not read them', async () => {
        // The query vector points nowhere near record 6 (cosine 0): the identifier alone answers.
        const elsewhere = semanticQuery(unit(1, 0, 0, 0), 0.99);
        expect((await contractIds('W912DY-26-R-0012', 'hybrid', elsewhere))[0]).toBe(byContract(6));
        const page = await index.query('contract', query({ search: 'W912DY-26-R-0012', search_mode: 'hybrid', status: 'open,closed' }, 'contract'), elsewhere);
        expect(page.results[0]!.relevance).toBe(1);
        expect(page.floor).toMatchObject({ basis: 'similarity' });
        // A vector no notice is near (every cosine 0 or less): the query is answered on its identifier alone.
        const nowhere = semanticQuery(unit(-1, 0, 0, 0), 0.5);
        const semantic = await index.query(
          'contract',
          query({ search: 'W912DY-26-R-0012', search_mode: 'semantic', status: 'open,closed' }, 'contract'),
          nowhere,
        );
        expect(semantic).toMatchObject({
          total: 0,
          empty: { reason: 'below_floor', identifierOnly: true },
          floor: { basis: 'identifier', semanticFloor: null },
        });
        const hybrid = await index.query('contract', query({ search: 'W912DY-26-R-0012', search_mode: 'hybrid', status: 'open,closed' }, 'contract'), nowhere);
        // The identifier first; then only what the words match ("26" is a word of "Office supplies lot 26"), no semantic match.
        expect(hybrid.results.map((r) => r.id)).toEqual([byContract(6), byContract(126)]);
      });
    });

    describe('partial matches, and no semantic gate', () => {
      const text = 'drone surveillance training';
      const contractIds = async (params: Record<string, string>, semantic?: SemanticQuery) =>
        (await index.query('contract', query({ search: text, ...params }, 'contract'), semantic)).results.map((r) => r.id);

      it('keep every full match and every partial one (a telling word), by BM25, whatever a vector says', async () => {
        const found = await contractIds({});
        // Full: 1 (three words), 2 and 3 (two); partial: 4 and 5 (one telling word each).
        expect(found[0]).toBe(byContract(1));
        expect([...found].sort()).toEqual([1, 2, 3, 4, 5].map(byContract).sort());
        expect((await index.query('contract', query({ search: text, count_only: 'true' }, 'contract'))).total).toBe(5);
        expect(await contractIds({ sort_by: 'title', order: 'asc' })).toEqual([4, 3, 1, 5, 2].map(byContract));
        // A query vector changes nothing in keyword mode.
        expect(await contractIds({}, semanticQuery(unit(1, 0, 0, 0), 0.99))).toEqual(found);
      });

      it('join the keyword list of hybrid search whole, whose total is the union with the semantic matches', async () => {
        const policing = semanticQuery(unit(1, 0, 0, 0), 0.75);
        const page = await index.query('contract', query({ search: text, search_mode: 'hybrid' }, 'contract'), policing);
        // Best cosine 1: semantic matches from 1 - FLOOR_SPREAD, records 1 (1) and 4 (0.995); keyword: 1 to 5.
        expect(page.results.map((r) => r.id).sort()).toEqual([1, 2, 3, 4, 5].map(byContract).sort());
        expect(page.total).toBe(5);
        const cosines = new Map(DRONE_CONTRACTS.map((c) => [c.record.id, c.vector[0]!]));
        expectFusedRelevance(page.results, cosines, [1, 2, 3, 4, 5].map(byContract), byContract(1), { ...policing.scale, floor: 1 - FLOOR_SPREAD });
        expect(page.results[0]!.id).toBe(byContract(1));
      });

      it('answer nothing in hybrid mode when the query is off topic: no record reaches the floor, and the words do not lift it', async () => {
        // Away from every contract (cosines 0 or less), though the words match five.
        const offTopic = semanticQuery(unit(-1, 0, 0, 0), 0.9, 0.5);
        const page = await index.query('contract', query({ search: text, search_mode: 'hybrid' }, 'contract'), offTopic);
        expect(page).toMatchObject({ total: 0, results: [], empty: { reason: 'below_floor' }, floor: { basis: 'none' } });
        expect((await contractIds({}, offTopic)).length).toBe(5);
      });

      it('lower the floor to the lexical floor when a record the words match in full is near enough: a short query is answered', async () => {
        // Floor 0.99: the best record, 4 (one word), reaches 0.982 only. Lexical floor 0.7: record 1, a full match, is at 0.958.
        const vector = unit(1, 0.3, 0, 0);
        const cosineOf = (n: number) => DRONE_CONTRACTS.find((c) => c.record.id === byContract(n))!.vector.reduce((sum, x, d) => sum + x * vector[d]!, 0);
        const page = await index.query('contract', query({ search: text, search_mode: 'semantic' }, 'contract'), semanticQuery(vector, 0.99, 0.7));
        expect(page.floor).toMatchObject({ basis: 'words' });
        expect(page.floor!.semanticFloor).toBeCloseTo(Math.max(0.7, cosineOf(4) - FLOOR_SPREAD), 5);
        // From there: 4 (0.982), 1 (0.958), 2 (0.938); 3 is at 0.47.
        expect(page.results.map((r) => r.id)).toEqual([4, 1, 2].map(byContract));
        // Without the words' evidence (a lexical floor over record 1's cosine), nothing.
        expect((await index.query('contract', query({ search: text, search_mode: 'semantic' }, 'contract'), semanticQuery(vector, 0.99, 0.96))).total).toBe(0);
      });
    });

    describe('what can be applied for', () => {
      const listed = async (params: Record<string, string>) => (await ids({ sort_by: 'title', order: 'asc', ...params })).sort();

      it('lists live posted and forecasted grants by default: not past the deadline, the archive date or the stale horizon', async () => {
        expect(await listed({})).toEqual([1, 2, 3, 4, 6, 8, 9, 13, 14, 15].map(byN).sort());
      });

      it('counts the lapsed ones as closed, and an explicit status decides', async () => {
        expect(await listed({ status: 'closed' })).toEqual([5, 10, 11, 12].map(byN).sort());
        expect(await listed({ status: 'open' })).toEqual([1, 2, 3, 4, 8, 9, 13, 14, 15].map(byN).sort());
        expect(await listed({ status: 'forecasted' })).toEqual([byN(6)]);
        expect(await listed({ status: 'posted' })).toEqual([1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15].map(byN).sort());
        expect(await listed({ opportunity_type: 'all' })).toEqual(CATALOGUE.map((c) => c.record.id).sort());
      });

      it('applies to keyword search too', async () => {
        expect((await ids({ search: 'police' })).sort()).toEqual([1, 3, 8].map(byN).sort());
        expect((await ids({ search: 'police', status: 'closed' })).sort()).toEqual([10, 11, 12].map(byN).sort());
      });
    });

    describe('semantic', () => {
      // Floor 0.5 and upper reference 1: relevance is the cosine itself.
      const policing = semanticQuery(unit(1, 0, 0, 0), 0.5);

      it('returns every record above the floor that passes the filters, relevance on the scale (here the cosine), ties by id', async () => {
        const page = await index.query('grant', query({ search: 'policing', search_mode: 'semantic' }), policing);
        expect(page.results.map((r) => r.id)).toEqual([byN(1), byN(8), byN(2), byN(3)]);
        expect(page.total).toBe(4);
        expect(page.results[0]!.relevance).toBeCloseTo(1, 4);
        expect(page.results[2]!.relevance).toBeCloseTo(0.9 / Math.hypot(0.9, 0.1), 4);
      });

      it('filters inside the k-NN search, never after a top-k cut', async () => {
        expect(await ids({ search: 'policing', search_mode: 'semantic', states: 'CA' }, policing)).toEqual([byN(3)]);
        expect(await ids({ search: 'policing', search_mode: 'semantic', opportunity_type: 'awarded' }, policing)).toEqual([byN(7)]);
        expect(await ids({ search: 'policing', search_mode: 'semantic', min_amount: '50000' }, policing)).toEqual([byN(1), byN(2)]);
      });

      it('keeps the grants an applicant type may apply for (listed or unknown), and 501(c)(3)-only ones for holders only', async () => {
        const applicantIds = async (type: ApplicantType, lacks501c3: boolean) => {
          const q = query({ search: 'policing', search_mode: 'semantic' });
          q.filters!.applicant = { type, lacks501c3 };
          return (await index.query('grant', q, policing)).results.map((r) => r.id);
        };
        expect(await applicantIds('nonprofit', false)).toEqual([byN(8), byN(2), byN(3)]);
        expect(await applicantIds('nonprofit', true)).toEqual([byN(8), byN(3)]);
        expect(await applicantIds('municipality', false)).toEqual([byN(1), byN(8), byN(3)]);
        expect(await applicantIds('academic', false)).toEqual([byN(2), byN(3)]);
        expect(await applicantIds('for_profit', false)).toEqual([byN(3)]);
      });

      it('keeps national records only for an empty state list with include_national', async () => {
        const q = query({ search: 'policing', search_mode: 'semantic' });
        q.filters!.states = [];
        q.filters!.includeNational = true;
        expect((await index.query('grant', q, policing)).results.map((r) => r.id)).toEqual([byN(8), byN(2)]);
      });

      it('orders by an explicit field, nulls last, and pages without overlap', async () => {
        expect(await ids({ search: 'policing', search_mode: 'semantic', sort_by: 'deadline_date', order: 'asc' }, policing)).toEqual([
          byN(2),
          byN(1),
          byN(3),
          byN(8),
        ]);
        const pages = [];
        for (let offset = 0; offset < 4; offset += 3)
          pages.push(...(await ids({ search: 'policing', search_mode: 'semantic', limit: '3', offset: String(offset) }, policing)));
        expect(pages).toEqual([byN(1), byN(8), byN(2), byN(3)]);
      });

      it('matches nothing for a null vector or a floor no record reaches', async () => {
        expect(await index.query('grant', query({ search: 'qwxz', search_mode: 'semantic' }), semanticQuery(null, 0.5))).toMatchObject({
          total: 0,
          results: [],
          empty: { reason: 'below_floor' },
        });
        const nowhere = await index.query('grant', query({ search: 'x', search_mode: 'semantic' }), semanticQuery(unit(-1, -1, -1, -1), 0.1));
        expect(nowhere).toMatchObject({ total: 0, results: [], empty: { reason: 'below_floor' }, floor: { basis: 'none', semanticFloor: null } });
      });

      it('counts without results for count_only', async () => {
        expect(await index.query('grant', query({ search: 'policing', search_mode: 'semantic', count_only: 'true' }), policing)).toMatchObject({
          total: 4,
          results: [],
        });
      });

      it('reaches FLOOR_SPREAD below the best record, never below the floor, and carries the floor it set', async () => {
        // The best record at cosine 1: matches from 0.85 (the floor 0.5 is lower), so record 3 (0.911) is in, record 7 an award.
        const page = await index.query('grant', query({ search: 'policing', search_mode: 'semantic' }), policing);
        expect(page.floor).toMatchObject({ basis: 'similarity', evidence: { bestCosine: expect.closeTo(1, 5) } });
        expect(page.floor!.semanticFloor).toBeCloseTo(1 - FLOOR_SPREAD, 6);
        const strict = await index.query('grant', query({ search: 'policing', search_mode: 'semantic' }), semanticQuery(unit(1, 0, 0, 0), 0.95));
        expect(strict.results.map((r) => r.id)).toEqual([byN(1), byN(8), byN(2)]);
      });
    });

    describe('hybrid', () => {
      it('fuses the keyword and semantic lists by score: the union, best first', async () => {
        const semantic = semanticQuery(unit(0, 0.1, 1, 0), 0.9);
        const keywordIds = await ids({ search: 'equipment', status: 'open,closed' });
        const semanticIds = await ids({ search: 'equipment', search_mode: 'semantic', status: 'open,closed' }, semantic);
        const page = await index.query('grant', query({ search: 'equipment', search_mode: 'hybrid', status: 'open,closed' }), semantic);
        const union = new Set([...keywordIds, ...semanticIds]);
        expect(page.results.map((r) => r.id).sort()).toEqual([...union].sort());
        expect(page.total).toBe(union.size);
        const cosines = new Map(
          CATALOGUE.filter((c) => c.vector).map((c) => [c.record.id, c.vector!.reduce((sum, x, d) => sum + x * semantic.vector![d]!, 0)]),
        );
        expectFusedRelevance(page.results, cosines, keywordIds, keywordIds[0]!, semantic.scale);
        // Clinic equipment (5), the one semantic match (cosine 1), has the word in its title too.
        expect(page.results[0]!.id).toBe(byN(5));
      });

      it("takes the keyword matches whole and the semantic matches at the query's floor; the total is the union", async () => {
        const policing = semanticQuery(unit(1, 0, 0, 0), 0.95);
        // Keyword matches 1, 3, 8 and 15 (cosines 1, 0.91, 1, 0), none held back; semantic 1, 8 and 2 (0.994).
        const page = await index.query('grant', query({ search: 'equipment', search_mode: 'hybrid', limit: '2' }), policing);
        expect(page.total).toBe(5);
        const all = await ids({ search: 'equipment', search_mode: 'hybrid' }, policing);
        expect([...all].sort()).toEqual([1, 2, 3, 8, 15].map(byN).sort());
        expect(page.results.map((r) => r.id)).toEqual(all.slice(0, 2));
      });

      it('keeps only records that match the keywords or pass the floor, and is empty for nonsense', async () => {
        const page = await index.query('grant', query({ search: 'water', search_mode: 'hybrid' }), semanticQuery(unit(0, 0, 0, 1), 0.99));
        // Water: 4, 13, 14 by keyword (13 and 14 have no vector); arts: 6 and 15 by vector.
        expect(page.results.map((r) => r.id).sort()).toEqual([byN(4), byN(6), byN(13), byN(14), byN(15)].sort());
        // Without a vector (the model did not answer): the keyword list alone, here nothing.
        expect(await index.query('grant', query({ search: 'qwxz zzkv', search_mode: 'hybrid' }), semanticQuery(null, 0.5))).toMatchObject({
          total: 0,
          results: [],
          empty: { reason: 'no_match' },
        });
      });
    });

    describe("keyset paging (after: a page's next)", () => {
      const policing = semanticQuery(unit(1, 0, 0, 0), 0.5);
      const cases: [string, Record<string, string>, SemanticQuery | undefined][] = [
        ['a listing, newest first', { opportunity_type: 'all', status: 'open,closed,forecasted' }, undefined],
        ['a listing by deadline, nulls last', { opportunity_type: 'all', sort_by: 'deadline_date', order: 'asc' }, undefined],
        ['a listing by deadline, descending', { opportunity_type: 'all', sort_by: 'deadline_date', order: 'desc' }, undefined],
        ['a listing by title (ties between equal titles by id)', { opportunity_type: 'all', sort_by: 'title', order: 'asc' }, undefined],
        ['a listing by amount, descending, with a filter', { opportunity_type: 'all', sort_by: 'amount_max', order: 'desc', status: 'posted' }, undefined],
        ['keyword relevance (two records tie)', { search: 'police equipment', status: 'open,closed' }, undefined],
        ['keyword relevance, ascending', { search: 'police equipment', status: 'open,closed', order: 'asc' }, undefined],
        ['keyword by a field', { search: 'equipment', status: 'open,closed', sort_by: 'created_at' }, undefined],
        ['semantic relevance (equal cosines)', { search: 'policing', search_mode: 'semantic', status: 'open,closed,forecasted' }, policing],
        ['semantic relevance, ascending', { search: 'policing', search_mode: 'semantic', order: 'asc' }, policing],
        ['semantic by deadline', { search: 'policing', search_mode: 'semantic', sort_by: 'deadline_date', order: 'asc' }, policing],
        ['hybrid relevance', { search: 'equipment', search_mode: 'hybrid', status: 'open,closed' }, policing],
        ['hybrid relevance, ascending', { search: 'equipment', search_mode: 'hybrid', status: 'open,closed', order: 'asc' }, policing],
        ['hybrid by title', { search: 'equipment', search_mode: 'hybrid', sort_by: 'title', order: 'desc' }, policing],
      ];
      it.each(cases)('walks %s one and two results at a time, as offset paging orders it', async (_name, params, semantic) => {
        const one = await expectKeysetWalkMatchesOffsets(index, 'grant', params, semantic, 1);
        expect(one.ids.length, 'the case has results to page').toBeGreaterThan(1);
        expect(one.windowed, 'the catalogue fits in the window').toBe(false);
        await expectKeysetWalkMatchesOffsets(index, 'grant', params, semantic, 2);
      });

      it('walks keyword matches, full and partial ones by BM25 alike', async () => {
        const { ids: walked } = await expectKeysetWalkMatchesOffsets(index, 'contract', { search: 'drone surveillance training' }, undefined, 1);
        expect([...walked].sort()).toEqual([1, 2, 3, 4, 5].map(byContract).sort());
        expect(walked[0]).toBe(byContract(1));
      });

      it('has no next on the last page, with count_only, or when nothing matches', async () => {
        const last = await index.query('grant', query({ opportunity_type: 'all', limit: '100' }), undefined);
        expect(last.next).toBeUndefined();
        expect((await index.query('grant', query({ opportunity_type: 'all', limit: '1', count_only: 'true' }), undefined)).next).toBeUndefined();
        expect((await index.query('grant', query({ search: 'qwxz zzkv' }), undefined)).next).toBeUndefined();
        const first = await index.query('grant', query({ opportunity_type: 'all', limit: '1' }), undefined);
        expect(first.next).toBeDefined();
      });
    });

    describe("restricted to some records (ids: a saved search's matches among changed records)", () => {
      const CASES: [string, Record<string, string>, SemanticQuery | undefined][] = [
        ['a listing', { status: 'open,closed' }, undefined],
        ['a filtered listing', { states: 'TX', include_national: 'true' }, undefined],
        ['a keyword search', { search: 'equipment', status: 'open,closed' }, undefined],
        ['a semantic search', { search: 'equipment', search_mode: 'semantic', status: 'open,closed' }, semanticQuery(unit(0, 0.1, 1, 0), 0.9)],
        ['a hybrid search at a high floor', { search: 'equipment', search_mode: 'hybrid' }, semanticQuery(unit(1, 0, 0, 0), 0.95)],
      ];
      it.each(CASES)('%s: exactly the records among them that the unrestricted query returns', async (_name, params, semantic) => {
        const all = new Set(await ids(params, semantic));
        // Every other record of the catalogue, matching or not, and an id no record has.
        const some = [...CATALOGUE.filter((_, i) => i % 2 === 0).map((c) => c.record.id), '00000000-0000-4000-8000-00000000dead'];
        const restricted = await index.query('grant', { ...query(params), ids: some }, semantic);
        const expected = some.filter((id) => all.has(id));
        expect(restricted.results.map((r) => r.id).sort()).toEqual([...expected].sort());
        expect(restricted.total).toBe(expected.length);
        // In the unrestricted query's order.
        expect(restricted.results.map((r) => r.id)).toEqual([...all].filter((id) => expected.includes(id)));
      });
    });

    describe('writes', () => {
      it('keep ties in id order as records arrive, change and go', async () => {
        const policing = semanticQuery(unit(1, 0, 0, 0), 0.999);
        // Records 1 and 8 tie (the same vector); a new record with it, whose id sorts first, joins the tie in front.
        const first = { ...CATALOGUE[0]!.record, id: '00000000-0000-4000-7000-000000000001', source_id: 'tie' };
        await index.upsert('grant', [first], [unit(1, 0, 0, 0)]);
        await harness.settle();
        expect(await ids({ search: 'policing', search_mode: 'semantic' }, policing)).toEqual([first.id, byN(1), byN(8)]);
        // An update keeps every place; a removal drops the record from the tie.
        await index.upsert('grant', [{ ...CATALOGUE[7]!.record, title: 'Police equipment program, reposted' }], [unit(1, 0, 0, 0)]);
        await index.remove('grant', [first.id]);
        await harness.settle();
        expect(await ids({ search: 'policing', search_mode: 'semantic' }, policing)).toEqual([byN(1), byN(8)]);
        await index.upsert('grant', [CATALOGUE[7]!.record], [CATALOGUE[7]!.vector]);
        await harness.settle();
      });

      it('change which records hold the words as a phrase', async () => {
        const [phrase, apart] = [CATALOGUE[12]!.record, CATALOGUE[13]!.record];
        // Swap the titles: the phrase moves from record 13 to record 14.
        await index.upsert('grant', [
          { ...phrase, title: apart.title },
          { ...apart, title: phrase.title },
        ]);
        await harness.settle();
        const found = await ids({ search: 'water systems' });
        expect(found.indexOf(byN(14))).toBeLessThan(found.indexOf(byN(13)));
        await index.upsert('grant', [phrase, apart]);
        await harness.settle();
        const restored = await ids({ search: 'water systems' });
        expect(restored.indexOf(byN(13))).toBeLessThan(restored.indexOf(byN(14)));
      });

      it('replaces a record and its vector, and removes records', async () => {
        const moved = { ...CATALOGUE[5]!.record, title: 'Arts and policing' };
        await index.upsert('grant', [moved], [unit(1, 0, 0, 0)]);
        await harness.settle();
        expect(await ids({ search: 'policing', search_mode: 'semantic', status: 'forecasted' }, semanticQuery(unit(1, 0, 0, 0), 0.99))).toEqual([byN(6)]);
        await index.remove('grant', [byN(6)]);
        await harness.settle();
        expect(await ids({ search: 'music' })).toEqual([]);
        await index.upsert('grant', [CATALOGUE[5]!.record], [CATALOGUE[5]!.vector]);
        await harness.settle();
      });
    });
  });

  describeSearchIndexFacetsContract(name, start);
  describeSearchIndexFiltersContract(name, start);

  describe(`SearchIndex contract at scale: ${name}`, () => {
    let harness: ContractHarness;
    // Enough records that an engine searches a graph rather than scanning (OpenSearch's HNSW).
    const CROWD = 3_000;
    /** A record's vector: the crowd spread around policing (x), three water grants (y) far from it. */
    const crowdVector = (n: number) => unit(1, 0.3 * Math.sin(n), 0.3 * Math.cos(n), 0.2 * Math.sin(3 * n));
    const WATER = [unit(0.05, 1, 0, 0), unit(0, 1, 0.05, 0), unit(0, 1, 0, 0.05)];

    beforeAll(async () => {
      harness = await start();
      for (let first = 0; first < CROWD; first += 500) {
        const batch = Array.from({ length: Math.min(500, CROWD - first) }, (_, i) => first + i);
        await harness.index.upsert(
          'grant',
          batch.map((n) => grant(1_000 + n, `Police program ${n}`, 'Equipment.', { deadline_date: '2027-01-01' })),
          batch.map(crowdVector),
        );
      }
      await harness.index.upsert(
        'grant',
        WATER.map((_, i) => grant(10_000 + i, `Water system ${i}`, 'Pipes.', { deadline_date: '2027-01-01' })),
        WATER,
      );
      await harness.settle();
    }, 120_000);
    afterAll(async () => harness?.close());

    it('walks the whole crowd by keyset pages in every mode, as offset paging orders it, as far as the window', async () => {
      const policing = semanticQuery(unit(1, 0, 0, 0), 0.5);
      const cases: [Record<string, string>, SemanticQuery | undefined][] = [
        [{}, undefined],
        [{ sort_by: 'title', order: 'asc' }, undefined],
        [{ search: 'police program' }, undefined],
        [{ search: 'police', search_mode: 'semantic' }, policing],
        [{ search: 'police', search_mode: 'semantic', sort_by: 'title' }, policing],
        [{ search: 'police water', search_mode: 'hybrid', order: 'asc' }, policing],
      ];
      for (const [params, semantic] of cases) {
        const walked = await expectKeysetWalkMatchesOffsets(harness.index, 'grant', params, semantic, 100);
        const label = JSON.stringify(params);
        if (semantic && harness.window !== undefined) {
          // Every record of the crowd reaches the floor: the window fills, and the walk ends with it.
          expect(walked.windowed, label).toBe(true);
          expect(walked.ids.length, label).toBeGreaterThanOrEqual(harness.window);
          if (params.search_mode === 'semantic') expect(walked.total, label).toBe(harness.window);
        } else {
          expect(walked.windowed, label).toBe(false);
          expect(walked.ids.length, label).toBeGreaterThan(2_900);
        }
      }
    }, 120_000);

    it('says when a total is a lower bound, and refuses a page past the window with how far pages go', async () => {
      const policing = semanticQuery(unit(1, 0, 0, 0), 0.5);
      const semantic = await harness.index.query('grant', query({ search: 'police', search_mode: 'semantic', count_only: 'true' }), policing);
      const hybrid = await harness.index.query('grant', query({ search: 'police', search_mode: 'hybrid', count_only: 'true' }), policing);
      const keyword = await harness.index.query('grant', query({ search: 'police', count_only: 'true' }));
      expect(keyword).toMatchObject({ total: CROWD });
      expect(keyword.totalRelation ?? 'eq').toBe('eq');
      // A narrow filter leaves few enough records for all of them to be ranked: exact again.
      const narrow = await harness.index.query(
        'grant',
        { ...query({ search: 'police', search_mode: 'semantic' }), ids: [grant(1_000, '', '').id, grant(1_001, '', '').id] },
        policing,
      );
      expect(narrow.total).toBe(2);
      expect(narrow.totalRelation ?? 'eq').toBe('eq');
      if (harness.window === undefined) {
        expect([semantic.total, semantic.totalRelation ?? 'eq', hybrid.total, hybrid.totalRelation ?? 'eq']).toEqual([CROWD, 'eq', CROWD, 'eq']);
        return;
      }
      expect([semantic.total, semantic.totalRelation]).toEqual([harness.window, 'gte']);
      // Hybrid's result set is the fused lists, each read to the window: a lower bound here.
      expect(hybrid.totalRelation).toBe('gte');
      expect(hybrid.total).toBeGreaterThanOrEqual(harness.window);
      expect(hybrid.total).toBeLessThanOrEqual(2 * harness.window);
      for (const [params, field] of [
        [{ search_mode: 'semantic', offset: String(harness.window) }, 'offset'],
        [{ search_mode: 'hybrid', offset: '2500' }, 'offset'],
      ] as const) {
        const refused = harness.index.query('grant', query({ search: 'police', ...params }), policing);
        await expect(refused, JSON.stringify(params)).rejects.toMatchObject({
          status: 400,
          details: [
            {
              field,
              issue: expect.stringMatching(
                /^goes past the [\d,]+ best results (semantic|hybrid) search ranks here .*pages reach result [\d,]+\. Narrow the search with filters/,
              ),
            },
          ],
        });
      }
    });

    it('finds every record above the floor, however far from the rest of the catalogue, with and without filters', async () => {
      const water = WATER.map((_, i) => grant(10_000 + i, '', '').id).sort();
      for (const params of [{}, { deadline_before: '2027-06-01' }, { status: 'open' }] as Record<string, string>[]) {
        const page = await harness.index.query(
          'grant',
          query({ search: 'water', search_mode: 'semantic', limit: '100', ...params }),
          semanticQuery(unit(0, 1, 0, 0), 0.99),
        );
        expect(page.results.map((r) => r.id).sort(), JSON.stringify(params)).toEqual(water);
        expect(page.total).toBe(3);
      }
    });
  });
}
