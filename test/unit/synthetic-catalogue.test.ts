import { beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT_CATEGORY_NAMES, GRANT_CATEGORY_NAMES, grantCategoryName } from '../../lambdas/core/categories';
import { statesMentionedIn, US_STATE_CODES } from '../../lambdas/core/geo';
import { SET_ASIDE_CODES } from '../../lambdas/core/query/list-query';
import { type Contract, ContractSchema, type Funder, FunderSchema, type Grant, GrantSchema } from '../../lambdas/core/records';
import {
  type CatalogueSpec,
  catalogueWithGrants,
  DEFAULT_CATALOGUE,
  generateContracts,
  generateFunders,
  generateGrants,
} from '../../local/synthetic-catalogue';

const TODAY = '2026-11-21';
const SPEC: CatalogueSpec = { ...DEFAULT_CATALOGUE, today: TODAY };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function share<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  return items.filter(predicate).length / items.length;
}

function catalogue(spec: CatalogueSpec, batchSize?: number) {
  const funders = generateFunders(spec);
  return {
    funders,
    grants: [...generateGrants(spec, funders, batchSize)].flat(),
    contracts: [...generateContracts(spec, funders, batchSize)].flat(),
  };
}

describe('grant categories', () => {
  it('maps Grants.gov codes to names, tolerating case and padding', () => {
    expect(grantCategoryName('ST')).toBe('Science and Technology and other Research and Development');
    expect(grantCategoryName(' elt ')).toBe('Employment, Labor and Training');
    expect(grantCategoryName('constructor')).toBeUndefined();
    expect(grantCategoryName('XX')).toBeUndefined();
    expect(Object.keys(GRANT_CATEGORY_NAMES)).toHaveLength(26);
  });
});

describe('synthetic catalogue', () => {
  let funders: Funder[];
  let grants: Grant[];
  let contracts: Contract[];

  beforeAll(() => {
    ({ funders, grants, contracts } = catalogue(SPEC));
  });

  it('is byte-identical for the same spec', () => {
    const again = catalogue(SPEC);
    expect(JSON.stringify(again)).toBe(JSON.stringify({ funders, grants, contracts }));
  });

  it('gives the same records whatever the batch size', () => {
    const rebatched = catalogue(SPEC, 337);
    expect(rebatched.grants).toEqual(grants);
    expect(rebatched.contracts).toEqual(contracts);
    const batchLengths = [...generateGrants(SPEC, funders, 1000)].map((batch) => batch.length);
    expect(batchLengths).toEqual([1000, 1000, 1000, 1000, 1000, 350]);
  });

  it('changes with the seed', () => {
    const other = catalogue({ ...SPEC, seed: SPEC.seed + 1, grants: 50, awardedGrants: 5, contracts: 20, awardedContracts: 2 });
    expect(other.grants[0]?.id).not.toBe(grants[0]?.id);
    expect(other.grants[0]?.title === grants[0]?.title && other.grants[0]?.description === grants[0]?.description).toBe(false);
  });

  it('makes the requested counts, awarded records last', () => {
    expect(funders).toHaveLength(SPEC.funders);
    expect(grants).toHaveLength(SPEC.grants);
    expect(contracts).toHaveLength(SPEC.contracts);
    const firstAwardedGrant = SPEC.grants - SPEC.awardedGrants;
    expect(grants.slice(0, firstAwardedGrant).every((g) => g.opportunity_type === 'open')).toBe(true);
    expect(grants.slice(firstAwardedGrant).every((g) => g.opportunity_type === 'awarded')).toBe(true);
    const firstAwardedContract = SPEC.contracts - SPEC.awardedContracts;
    expect(contracts.slice(0, firstAwardedContract).every((c) => c.opportunity_type === 'open')).toBe(true);
    expect(contracts.slice(firstAwardedContract).every((c) => c.opportunity_type === 'awarded')).toBe(true);
  });

  it('validates every record against its schema', () => {
    for (const funder of funders) expect(FunderSchema.safeParse(funder).success).toBe(true);
    for (const grant of grants) {
      const result = GrantSchema.safeParse(grant);
      if (!result.success) throw new Error(`${grant.id}: ${result.error.message}`);
    }
    for (const contract of contracts) {
      const result = ContractSchema.safeParse(contract);
      if (!result.success) throw new Error(`${contract.id}: ${result.error.message}`);
    }
  });

  it('uses unique lowercase UUID v4 ids, unique funder names and unique source ids', () => {
    const ids = [...funders, ...grants, ...contracts].map((record) => record.id);
    expect(ids.every((id) => UUID_V4.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(funders.map((f) => f.name)).size).toBe(funders.length);
    const sourceIds = [...funders, ...grants, ...contracts].map((record) => record.source_id);
    expect(new Set(sourceIds).size).toBe(sourceIds.length);
  });

  it('references generated funders by id and name', () => {
    const byId = new Map(funders.map((f) => [f.id, f]));
    for (const record of [...grants, ...contracts]) {
      expect(byId.get(record.funder_id)?.name).toBe(record.funder_name);
    }
  });

  it('mixes funder kinds with https websites and mostly non-null summaries', () => {
    expect(funders.some((f) => f.name.startsWith('U.S. Department of Agriculture — '))).toBe(true);
    expect(funders.some((f) => / Department of /.test(f.name) && !f.name.startsWith('U.S.'))).toBe(true);
    expect(funders.some((f) => /Foundation$/.test(f.name))).toBe(true);
    expect(funders.some((f) => /Giving Program$/.test(f.name))).toBe(true);
    expect(funders.every((f) => f.website?.startsWith('https://'))).toBe(true);
    expect(share(funders, (f) => f.summary === null)).toBeGreaterThan(0.03);
    expect(share(funders, (f) => f.summary === null)).toBeLessThan(0.2);
    const oldest = funders.map((f) => f.created_at).sort()[0] ?? '';
    expect(oldest < '2016-01-01').toBe(true);
    expect(funders.every((f) => f.created_at <= `${TODAY}T23:59:59.999Z` && f.created_at >= '2011-11-01')).toBe(true);
  });

  it('spreads grant statuses, deadlines and dates as specified', () => {
    const open = grants.filter((g) => g.opportunity_type === 'open');
    expect(share(open, (g) => g.status === 'posted')).toBeGreaterThan(0.5);
    expect(share(open, (g) => g.status === 'posted')).toBeLessThan(0.7);
    expect(share(open, (g) => g.status === 'forecasted')).toBeGreaterThan(0.12);
    expect(share(open, (g) => g.status === 'closed')).toBeGreaterThan(0.12);
    const posted = open.filter((g) => g.status === 'posted');
    const postedWithDeadline = posted.filter((g) => g.deadline_date !== null);
    expect(share(posted, (g) => g.deadline_date === null)).toBeGreaterThan(0.01);
    expect(share(postedWithDeadline, (g) => (g.deadline_date ?? '') >= TODAY)).toBeGreaterThan(0.75);
    expect(share(postedWithDeadline, (g) => (g.deadline_date ?? '') < TODAY)).toBeGreaterThan(0.05);
    for (const grant of posted) {
      if (grant.deadline_date) expect(grant.created_at.slice(0, 10) < grant.deadline_date).toBe(true);
    }
    expect(open.filter((g) => g.status === 'closed').every((g) => (g.deadline_date ?? '9999') < TODAY)).toBe(true);
    expect(open.filter((g) => g.status === 'forecasted').every((g) => g.deadline_date === null || g.deadline_date > TODAY)).toBe(true);
    expect(grants.every((g) => g.created_at >= '2023-11-01' && g.created_at <= `${TODAY}T23:59:59.999Z`)).toBe(true);
    expect(open.every((g) => g.project_end_date === null)).toBe(true);
  });

  it('spreads grant geography over every state code, consistent with the geography text', () => {
    expect(share(grants, (g) => g.states.length === 0)).toBeGreaterThan(0.25);
    expect(share(grants, (g) => g.states.length === 0)).toBeLessThan(0.45);
    expect(share(grants, (g) => g.states.length === 1)).toBeGreaterThan(0.4);
    expect(share(grants, (g) => g.states.length >= 2 && g.states.length <= 4)).toBeGreaterThan(0.08);
    expect(grants.every((g) => g.states.length <= 4)).toBe(true);
    const used = new Set(grants.flatMap((g) => g.states));
    expect(US_STATE_CODES.filter((code) => !used.has(code))).toEqual([]);
    for (const record of [...grants, ...contracts]) {
      expect(statesMentionedIn(record.geography ?? '')).toEqual(record.states);
      if (record.states.length === 0) expect(['National', 'International']).toContain(record.geography);
      if (record.states.length > 1) expect(record.geography).toBe(`Multi-state: ${record.states.join(', ')}`);
    }
    expect(grants.some((g) => g.geography === 'International')).toBe(true);
    expect(grants.some((g) => /^Local: [^,]+, [A-Z]{2}$/.test(g.geography ?? ''))).toBe(true);
    expect(grants.some((g) => g.geography === 'California')).toBe(true);
  });

  it('keeps grant amounts, categories and eligibility plausible', () => {
    const open = grants.filter((g) => g.opportunity_type === 'open');
    const categoryNames = new Set(Object.values(GRANT_CATEGORY_NAMES));
    for (const grant of grants) {
      if (grant.amount_min !== null && grant.amount_max !== null) expect(grant.amount_min).toBeLessThanOrEqual(grant.amount_max);
      expect(grant.categories.length).toBeGreaterThanOrEqual(1);
      expect(grant.categories.length).toBeLessThanOrEqual(3);
      expect(grant.categories.filter((category) => !categoryNames.has(category))).toEqual([]);
      if (grant.requires_501c3 === true) expect(grant.eligible_applicants).toContain('nonprofit');
    }
    const withMax = open.flatMap((g) => (g.amount_max === null ? [] : [g.amount_max]));
    expect(Math.min(...withMax)).toBeGreaterThanOrEqual(5_000);
    expect(Math.max(...withMax)).toBeLessThanOrEqual(50_000_000);
    expect(share(withMax, (amount) => amount < 100_000)).toBeGreaterThan(0.1);
    expect(share(withMax, (amount) => amount > 1_000_000)).toBeGreaterThan(0.1);
    expect(share(open, (g) => g.amount_min === null)).toBeGreaterThan(0.04);
    expect(share(open, (g) => g.amount_min === null)).toBeLessThan(0.15);
    expect(share(open, (g) => g.amount_min === null && g.amount_max === null)).toBeGreaterThan(0.02);
    expect(share(open, (g) => g.eligible_applicants.length > 0)).toBeGreaterThan(0.85);
    expect(open.some((g) => g.eligible_applicants.length === 0)).toBe(true);
    expect(share(grants, (g) => g.listing_url === null)).toBeLessThan(0.08);
    expect(grants.some((g) => g.listing_url?.startsWith('https://www.grants.gov/search-results-detail/'))).toBe(true);
    expect(grants.every((g) => g.source === 'synthetic' && /^SYN-GA?-[A-Z]+-\d{4}-\d{6}$/.test(g.source_id ?? ''))).toBe(true);
  });

  it('makes keyword search on topic words find matching grants', () => {
    const text = (g: Grant) => `${g.title} ${g.description}`.toLowerCase();
    for (const word of ['broadband', 'police', 'mental health', 'arts', 'veterans', 'climate', 'housing', 'water']) {
      expect(grants.filter((g) => text(g).includes(word)).length, word).toBeGreaterThan(30);
    }
    // A sentence ends after a lower-case word, so "St. Louis" and "U.S. Virgin Islands" do not split.
    const sentenceCount = (text: string) => text.split(/(?<=[a-z0-9]{2}\.)\s+(?=[A-Z])/).length;
    expect(grants.filter((g) => sentenceCount(g.description) < 2 || sentenceCount(g.description) > 5).map((g) => g.description)).toEqual([]);
  });

  it('gives awarded grants a project end date instead of a deadline', () => {
    const awarded = grants.filter((g) => g.opportunity_type === 'awarded');
    expect(awarded.every((g) => g.status === 'closed' && g.deadline_date === null && g.project_end_date !== null)).toBe(true);
    expect(awarded.some((g) => (g.project_end_date ?? '') < TODAY)).toBe(true);
    expect(awarded.some((g) => (g.project_end_date ?? '') > TODAY)).toBe(true);
    expect(awarded.every((g) => (g.project_end_date ?? '') <= '2030-11-21')).toBe(true);
    expect(share(awarded, (g) => g.amount_min !== null && g.amount_min === g.amount_max)).toBeGreaterThan(0.8);
  });

  it('shapes contracts like SAM.gov notices', () => {
    const solicitations = contracts.filter((c) => c.opportunity_type === 'open');
    const open = solicitations.filter((c) => c.status === 'open');
    expect(open.length / solicitations.length).toBeGreaterThan(0.65);
    expect(open.length / solicitations.length).toBeLessThan(0.85);
    expect(open.every((c) => c.naics !== null && /^\d{6}$/.test(c.naics))).toBe(true);
    expect(share(open, (c) => (c.deadline_date ?? '') < TODAY)).toBeGreaterThan(0.03);
    expect(share(open, (c) => (c.deadline_date ?? '') < TODAY)).toBeLessThan(0.2);
    expect(new Set(contracts.map((c) => c.naics)).size).toBeGreaterThan(25);
    const setAsides = contracts.flatMap((c) => (c.set_aside_code === null ? [] : [c.set_aside_code]));
    expect(setAsides.every((code) => (SET_ASIDE_CODES as readonly string[]).includes(code))).toBe(true);
    expect(setAsides.length / contracts.length).toBeGreaterThan(0.5);
    expect(setAsides.length / contracts.length).toBeLessThan(0.7);
    expect(share(contracts, (c) => c.primary_contact_email !== null)).toBeGreaterThan(0.85);
    expect(share(contracts, (c) => c.listing_url?.startsWith('https://sam.gov/opp/') ?? false)).toBeGreaterThan(0.8);
    expect(share(contracts, (c) => c.states.length === 0)).toBeGreaterThan(0.1);
    expect(share(contracts, (c) => c.states.length === 0)).toBeLessThan(0.3);
    expect(share(solicitations, (c) => c.amount_max === null)).toBeGreaterThan(0.2);
    expect(share(contracts, (c) => c.funder_name.startsWith('U.S.') || c.funder_name.startsWith('National'))).toBeGreaterThan(0.8);
    for (const contract of contracts) {
      expect(contract.categories.length).toBeGreaterThanOrEqual(1);
      expect(contract.categories.length).toBeLessThanOrEqual(2);
      for (const category of contract.categories) expect(CONTRACT_CATEGORY_NAMES).toContain(category);
      if (contract.amount_min !== null && contract.amount_max !== null) expect(contract.amount_min).toBeLessThanOrEqual(contract.amount_max);
    }
    const awarded = contracts.filter((c) => c.opportunity_type === 'awarded');
    expect(awarded.every((c) => c.status === 'closed' && c.deadline_date === null && c.project_end_date !== null)).toBe(true);
    expect(awarded.every((c) => c.amount_min !== null && c.amount_min === c.amount_max)).toBe(true);
  });

  it('rejects inconsistent specs', () => {
    expect(() => generateFunders({ ...SPEC, today: '2026-02-30' })).toThrow(RangeError);
    expect(() => [...generateGrants({ ...SPEC, awardedGrants: SPEC.grants + 1 }, funders)]).toThrow(RangeError);
    expect(() => [...generateGrants(SPEC, [])]).toThrow(RangeError);
    expect(() => [...generateContracts(SPEC, funders, 0)]).toThrow(RangeError);
  });

  it('streams 100,000 grants in batches', () => {
    let count = 0;
    let largestBatch = 0;
    for (const batch of generateGrants({ ...SPEC, grants: 100_000, awardedGrants: 7_000 }, funders, 5_000)) {
      count += batch.length;
      largestBatch = Math.max(largestBatch, batch.length);
    }
    expect(count).toBe(100_000);
    expect(largestBatch).toBe(5_000);
  });
});

describe('catalogueWithGrants (npm start -- --grants N)', () => {
  it('keeps the default counts of the other kinds from 700 grants up, and the default catalogue without a size', () => {
    expect(catalogueWithGrants()).toEqual(DEFAULT_CATALOGUE);
    expect(catalogueWithGrants(5_000)).toEqual({ ...DEFAULT_CATALOGUE, grants: 5_000 });
    expect(catalogueWithGrants(100_000)).toEqual({ ...DEFAULT_CATALOGUE, grants: 100_000 });
    expect(catalogueWithGrants(700)).toEqual({ ...DEFAULT_CATALOGUE, grants: 700 });
  });

  it.each([1, 2, 50, 200, 349, 699])('shrinks every kind in proportion below that, so %i grants generate with mostly open ones', (grants) => {
    const spec = { ...catalogueWithGrants(grants), today: '2026-11-26' };
    expect(spec.awardedGrants).toBeLessThan(Math.max(1, grants / 2));
    const generated = [...generateGrants(spec, generateFunders(spec))].flat();
    expect(generated).toHaveLength(grants);
    expect(generated.filter((g) => g.opportunity_type === 'open').length).toBe(grants - spec.awardedGrants);
  });
});
