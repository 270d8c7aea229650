import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListQuery } from '../../lambdas/core/query/list-query';
import { parseListQuery } from '../../lambdas/core/query/list-query';
import type { ApplicantType, Contract, Grant, ResourceKind } from '../../lambdas/core/records';
import { HYBRID_SEMANTIC_WEIGHT } from '../../lambdas/core/search/fusion';
import { relevanceOfCosine, type SimilarityScale } from '../../lambdas/core/search/relevance';
import type { VectorSpace } from '../../lambdas/ports/embedder';
import type { SearchIndex, SemanticQuery } from '../../lambdas/ports/search-index';
import { describeSearchIndexFacetsContract } from './search-index-facets-contract';

/**
 * The behaviour every SearchIndex adapter owes the service (the port's doc comment), as one suite
 * run against each adapter: SQLite always, OpenSearch when a live domain is given. Vectors are
 * hand-made in 4 dimensions so the expected cosines are known exactly.
 */

export const CONTRACT_SPACE: VectorSpace = { embedder: 'contract-test', dimensions: 4 };
const TODAY = '2026-11-22';

export interface ContractHarness {
  index: SearchIndex;
  /** Makes writes visible to search (OpenSearch refreshes; SQLite needs nothing). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

const unit = (...xs: number[]): Float32Array => {
  const norm = Math.hypot(...xs);
  return Float32Array.from(xs, (x) => x / norm);
};

function grant(n: number, title: string, description: string, extra: Partial<Grant> = {}): Grant {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    title, description, amount_min: null, amount_max: null, deadline_date: null, status: 'posted', geography: null,
    funder_id: '00000000-0000-4000-8000-999999999999', funder_name: 'Department of Justice', listing_url: null,
    created_at: `2026-0${1 + (n % 9)}-01T00:00:00.000Z`, categories: [], opportunity_type: 'open', project_end_date: null, archive_date: null,
    states: [], source: 'contract-test', source_id: String(n), eligible_applicants: [], requires_501c3: null, ...extra,
  };
}

// Directions: x = policing, y = water, z = health, w = arts.
const CATALOGUE: { record: Grant; vector: Float32Array | null }[] = [
  { record: grant(1, 'Police equipment program', 'Body cameras and radios for local police departments.', { deadline_date: '2027-03-01', amount_max: 500_000, states: ['TX'], eligible_applicants: ['municipality'] }), vector: unit(1, 0, 0, 0) },
  { record: grant(2, 'Law enforcement technology', 'Modernising tools for sheriffs and officers.', { deadline_date: '2027-01-15', amount_max: 90_000, eligible_applicants: ['nonprofit', 'academic'], requires_501c3: true }), vector: unit(0.9, 0, 0.1, 0) },
  { record: grant(3, 'Community policing and youth', 'Mentoring programs; equipment is not funded.', { amount_max: 20_000, states: ['CA'] }), vector: unit(0.7, 0, 0.3, 0.1) },
  { record: grant(4, 'Rural water systems', 'Drinking water infrastructure for small towns.', { deadline_date: '2026-12-31', states: ['TX'] }), vector: unit(0, 1, 0, 0) },
  { record: grant(5, 'Clinic equipment', 'Medical equipment for rural health clinics.', { deadline_date: '2025-01-01' }), vector: unit(0, 0.1, 1, 0) },
  { record: grant(6, 'Arts in schools', 'Music and theatre for students.', { status: 'forecasted' }), vector: unit(0, 0, 0, 1) },
  { record: grant(7, 'Equipment for first responders', 'Police, fire and EMS equipment grants.', { opportunity_type: 'awarded', project_end_date: '2024-06-30' }), vector: unit(0.8, 0, 0.2, 0) },
  { record: grant(8, 'Police equipment program', 'Duplicate posting with the same text as record 1.', { eligible_applicants: ['nonprofit', 'municipality'], requires_501c3: false }), vector: unit(1, 0, 0, 0) },
  { record: grant(9, 'Untitled notice', 'No text a model would embed.'), vector: null },
  // Lapsed listings: stale (open-ended, posted 2014), archived, a placeholder deadline on an old posting.
  { record: grant(10, 'Police radio upgrade', 'Radios for police.', { created_at: '2014-03-01T00:00:00.000Z' }), vector: null },
  { record: grant(11, 'Police training academy', 'Training.', { deadline_date: '2027-06-01', archive_date: '2026-10-01' }), vector: null },
  { record: grant(12, 'Police youth leagues', 'Sports.', { deadline_date: '2102-04-13', created_at: '2012-03-16T00:00:00.000Z' }), vector: null },
  // The same words, adjacent in one title and far apart in the other.
  { record: grant(13, 'Water systems for small and rural towns', 'Pipes.', { categories: ['Environment'] }), vector: null },
  { record: grant(14, 'Water for small and rural towns: systems', 'Pipes.'), vector: null },
  { record: grant(15, 'Equipment for theatres', 'Stage lighting.', { funder_name: 'National Endowment for the Arts' }), vector: unit(0, 0, 0, 1) },
];

const byN = (n: number) => CATALOGUE[n - 1]!.record.id;

function contract(n: number, title: string): Contract {
  return {
    id: `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`,
    title, description: 'Solicitation notice.', amount_min: null, amount_max: null, deadline_date: null, status: 'open', geography: null,
    funder_id: '00000000-0000-4000-8000-999999999999', funder_name: 'Department of Justice', listing_url: null,
    created_at: '2026-10-01T00:00:00.000Z', categories: [], opportunity_type: 'open', project_end_date: null, archive_date: null,
    states: [], source: 'contract-test', source_id: `c${n}`, document_url: null, naics: null, primary_contact_email: null, set_aside_code: null,
  };
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
  ...Array.from({ length: 80 }, (_, i) => ({ record: contract(100 + i, `Office supplies lot ${i}`), vector: unit(0, 0, 0, 1) })),
];
const byContract = (n: number) => DRONE_CONTRACTS.find((c) => c.record.source_id === `c${n}`)!.record.id;

/** A query vector and a scale whose floor is `floor` (relevance 1 at cosine 1). */
const semanticQuery = (vector: Float32Array | null, floor: number, gatesKeywords = false): SemanticQuery => ({ vector, scale: { floor, upper: 1, gatesKeywords } });

/**
 * A hybrid page's relevance, as fuseHybrid gives it: the weighted semantic relevance of the
 * records that pass the floor, plus up to 1 - HYBRID_SEMANTIC_WEIGHT for keyword matches, in
 * proportion to their BM25, which each engine computes its own way: 1 - HYBRID_SEMANTIC_WEIGHT
 * exactly for the best keyword match, less for the others, none for records only the vector found.
 */
function expectFusedRelevance(results: { id: string; relevance?: number }[], cosines: Map<string, number>, keywordIds: readonly string[], bestKeywordId: string, scale: SimilarityScale): void {
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
async function expectKeysetWalkMatchesOffsets(index: SearchIndex, kind: 'grant' | 'contract', params: Record<string, string>, semantic: SemanticQuery | undefined, limit: number): Promise<string[]> {
  const label = JSON.stringify({ ...params, limit });
  const byOffset: string[] = [];
  let total = -1;
  for (let offset = 0; ; offset += 100) {
    const page = await index.query(kind, query({ ...params, limit: '100', offset: String(offset) }, kind), semantic);
    total = page.total;
    byOffset.push(...page.results.map((r) => r.id));
    expect(page.next === undefined, `${label}: next on the offset page at ${offset}`).toBe(offset + page.results.length >= total);
    if (page.results.length < 100) break;
  }
  const byKeyset: string[] = [];
  let after: ListQuery['after'];
  for (let pages = 0; ; pages++) {
    expect(pages, `${label}: the walk does not end`).toBeLessThanOrEqual(total / limit + 1);
    const page = await index.query(kind, { ...query({ ...params, limit: String(limit) }, kind), ...(after ? { after } : {}) }, semantic);
    expect(page.total, label).toBe(total);
    byKeyset.push(...page.results.map((r) => r.id));
    if (!page.next) break;
    expect(page.results, `${label}: a page with next is full`).toHaveLength(limit);
    after = page.next;
  }
  expect(byKeyset, label).toEqual(byOffset);
  expect(new Set(byKeyset).size, label).toBe(total);
  return byKeyset;
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
      await index.upsert('grant', CATALOGUE.map((c) => c.record), CATALOGUE.map((c) => c.vector));
      await index.upsert('contract', DRONE_CONTRACTS.map((c) => c.record), DRONE_CONTRACTS.map((c) => c.vector));
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

      it('searches the funder and the categories too', async () => {
        expect(await ids({ search: 'endowment' })).toEqual([byN(15)]);
        expect(await ids({ search: 'environment' })).toEqual([byN(13)]);
      });

      it('ranks the words as a phrase above the same words far apart', async () => {
        const found = await ids({ search: 'water systems' });
        expect([...found].sort()).toEqual([4, 13, 14].map(byN).sort());
        expect(found.indexOf(byN(13))).toBeLessThan(found.indexOf(byN(14)));
      });

      it('matches plural and singular alike', async () => {
        expect((await ids({ search: 'clinics', status: 'closed' }))).toEqual([byN(5)]);
        expect((await ids({ search: 'clinic', status: 'closed' }))).toEqual([byN(5)]);
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

      it('finds nothing for words no record has, or only stop words', async () => {
        expect(await index.query('grant', query({ search: 'qwxz zzkv' }))).toEqual({ total: 0, results: [] });
        expect((await index.query('grant', query({ search: 'the of and' }))).total).toBe(0);
        expect((await index.query('grant', query({ search: 'they are not there' }))).total).toBe(0);
      });
    });

    describe('keyword matches held to the floor, and partial matches', () => {
      const text = 'drone surveillance training';
      const gate = semanticQuery(unit(1, 0, 0, 0), 0.75, true);
      const contractIds = async (params: Record<string, string>, semantic?: SemanticQuery) =>
        (await index.query('contract', query({ search: text, ...params }, 'contract'), semantic)).results.map((r) => r.id);

      it('keep the full matches that reach the floor, then the partial ones that do (a telling word), never an off-topic record', async () => {
        const found = await contractIds({}, gate);
        // Full: 1 (three words, cosine 1) and 2 (two, 0.8); 3 has two words but cosine 0.2. Partial: 4 (0.995); 5 has cosine 0.
        expect(found.slice(0, 2)).toEqual([byContract(1), byContract(2)]);
        expect(found.slice(2)).toEqual([byContract(4)]);
        expect((await index.query('contract', query({ search: text, count_only: 'true' }, 'contract'), gate)).total).toBe(3);
        expect(await contractIds({ offset: '2' }, gate)).toEqual([byContract(4)]);
        expect(await contractIds({ sort_by: 'title', order: 'asc' }, gate)).toEqual([4, 1, 2].map(byContract));
        // A floor over 0.8 holds record 2 back too.
        expect(await contractIds({}, semanticQuery(unit(1, 0, 0, 0), 0.9, true))).toEqual([byContract(1), byContract(4)]);
      });

      it('are not held to the floor by an embedder that cannot tell topics apart, nor without a vector: every full match stays, no partial one', async () => {
        expect((await contractIds({}, semanticQuery(unit(1, 0, 0, 0), 0.75, false))).sort()).toEqual([1, 2, 3].map(byContract).sort());
        expect((await contractIds({}, semanticQuery(null, 0.75, true))).sort()).toEqual([1, 2, 3].map(byContract).sort());
        expect((await contractIds({})).sort()).toEqual([1, 2, 3].map(byContract).sort());
      });

      it('join the keyword list of hybrid search, whose total is the union', async () => {
        const page = await index.query('contract', query({ search: text, search_mode: 'hybrid' }, 'contract'), gate);
        // Semantic (cosine 0.75 or more): 1, 2 and 4; keyword: 1, 2, 4, record 1 holding every word.
        expect(page.results.map((r) => r.id).sort()).toEqual([1, 2, 4].map(byContract).sort());
        expect(page.total).toBe(3);
        const cosines = new Map(DRONE_CONTRACTS.map((c) => [c.record.id, c.vector[0]!]));
        expectFusedRelevance(page.results, cosines, [1, 2, 4].map(byContract), byContract(1), gate.scale);
        expect(page.results[0]!.id).toBe(byContract(1));
        expect(page.results[0]!.relevance).toBeCloseTo(1, 4);
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
        expect(await ids({ search: 'policing', search_mode: 'semantic', sort_by: 'deadline_date', order: 'asc' }, policing)).toEqual([byN(2), byN(1), byN(3), byN(8)]);
        const pages = [];
        for (let offset = 0; offset < 4; offset += 3) pages.push(...await ids({ search: 'policing', search_mode: 'semantic', limit: '3', offset: String(offset) }, policing));
        expect(pages).toEqual([byN(1), byN(8), byN(2), byN(3)]);
      });

      it('matches nothing for a null vector or a floor no record reaches', async () => {
        expect(await index.query('grant', query({ search: 'qwxz', search_mode: 'semantic' }), semanticQuery(null, 0.5))).toEqual({ total: 0, results: [] });
        expect((await index.query('grant', query({ search: 'x', search_mode: 'semantic' }), semanticQuery(unit(-1, -1, -1, -1), 0.1))).total).toBe(0);
      });

      it('counts without results for count_only', async () => {
        expect(await index.query('grant', query({ search: 'policing', search_mode: 'semantic', count_only: 'true' }), policing)).toEqual({ total: 4, results: [] });
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
        const cosines = new Map(CATALOGUE.filter((c) => c.vector).map((c) => [c.record.id, c.vector!.reduce((sum, x, d) => sum + x * semantic.vector![d]!, 0)]));
        expectFusedRelevance(page.results, cosines, keywordIds, keywordIds[0]!, semantic.scale);
        // Clinic equipment (5), the one semantic match (cosine 1), has the word in its title too.
        expect(page.results[0]!.id).toBe(byN(5));
      });

      it('holds keyword matches to the floor; the total is the whole union', async () => {
        const policing = semanticQuery(unit(1, 0, 0, 0), 0.95, true);
        // Keyword matches 1, 3, 8 and 15 (cosines 1, 0.91, 1, 0): 3 and 15 are under the floor; semantic 1, 8 and 2 (0.994).
        const page = await index.query('grant', query({ search: 'equipment', search_mode: 'hybrid', limit: '2' }), policing);
        expect(page.total).toBe(3);
        const all = await ids({ search: 'equipment', search_mode: 'hybrid' }, policing);
        expect([...all].sort()).toEqual([1, 2, 8].map(byN).sort());
        expect(page.results.map((r) => r.id)).toEqual(all.slice(0, 2));
      });

      it('keeps only records that match the keywords or pass the floor, and is empty for nonsense', async () => {
        const page = await index.query('grant', query({ search: 'water', search_mode: 'hybrid' }), semanticQuery(unit(0, 0, 0, 1), 0.99));
        // Water: 4, 13, 14 by keyword (13 and 14 have no vector; this scale holds no keyword match to the floor); arts: 6 and 15 by vector.
        expect(page.results.map((r) => r.id).sort()).toEqual([byN(4), byN(6), byN(13), byN(14), byN(15)].sort());
        expect(await index.query('grant', query({ search: 'qwxz zzkv', search_mode: 'hybrid' }), semanticQuery(null, 0.5))).toEqual({ total: 0, results: [] });
      });
    });

    describe('keyset paging (after: a page\'s next)', () => {
      const policing = semanticQuery(unit(1, 0, 0, 0), 0.5);
      const gate = semanticQuery(unit(1, 0, 0, 0), 0.75, true);
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
        expect(one.length, 'the case has results to page').toBeGreaterThan(1);
        await expectKeysetWalkMatchesOffsets(index, 'grant', params, semantic, 2);
      });

      it('walks keyword matches held to the floor, full matches then partial ones', async () => {
        const walked = await expectKeysetWalkMatchesOffsets(index, 'contract', { search: 'drone surveillance training' }, gate, 1);
        expect(walked).toEqual([byContract(1), byContract(2), byContract(4)]);
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

    describe('restricted to some records (ids: a saved search\'s matches among changed records)', () => {
      const CASES: [string, Record<string, string>, SemanticQuery | undefined][] = [
        ['a listing', { status: 'open,closed' }, undefined],
        ['a filtered listing', { states: 'TX', include_national: 'true' }, undefined],
        ['a keyword search', { search: 'equipment', status: 'open,closed' }, undefined],
        ['a semantic search', { search: 'equipment', search_mode: 'semantic', status: 'open,closed' }, semanticQuery(unit(0, 0.1, 1, 0), 0.9)],
        ['a hybrid search with a gating floor', { search: 'equipment', search_mode: 'hybrid' }, semanticQuery(unit(1, 0, 0, 0), 0.95, true)],
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
        await index.upsert('grant', [{ ...phrase, title: apart.title }, { ...apart, title: phrase.title }]);
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
        await harness.index.upsert('grant', batch.map((n) => grant(1_000 + n, `Police program ${n}`, 'Equipment.', { deadline_date: '2027-01-01' })), batch.map(crowdVector));
      }
      await harness.index.upsert('grant', WATER.map((_, i) => grant(10_000 + i, `Water system ${i}`, 'Pipes.', { deadline_date: '2027-01-01' })), WATER);
      await harness.settle();
    }, 120_000);
    afterAll(async () => harness?.close());

    it('walks the whole crowd by keyset pages in every mode, as offset paging orders it', async () => {
      const policing = semanticQuery(unit(1, 0, 0, 0), 0.5);
      const cases: [Record<string, string>, SemanticQuery | undefined][] = [
        [{}, undefined],
        [{ sort_by: 'title', order: 'asc' }, undefined],
        [{ search: 'police program' }, undefined],
        [{ search: 'police', search_mode: 'semantic' }, policing],
        [{ search: 'police water', search_mode: 'hybrid', order: 'asc' }, policing],
      ];
      for (const [params, semantic] of cases) {
        const walked = await expectKeysetWalkMatchesOffsets(harness.index, 'grant', params, semantic, 100);
        expect(walked.length, JSON.stringify(params)).toBeGreaterThan(2_900);
      }
    }, 120_000);

    it('finds every record above the floor, however far from the rest of the catalogue, with and without filters', async () => {
      const water = WATER.map((_, i) => grant(10_000 + i, '', '').id).sort();
      for (const params of [{}, { deadline_before: '2027-06-01' }, { status: 'open' }] as Record<string, string>[]) {
        const page = await harness.index.query('grant', query({ search: 'water', search_mode: 'semantic', limit: '100', ...params }), semanticQuery(unit(0, 1, 0, 0), 0.99));
        expect(page.results.map((r) => r.id).sort(), JSON.stringify(params)).toEqual(water);
        expect(page.total).toBe(3);
      }
    });
  });
}
