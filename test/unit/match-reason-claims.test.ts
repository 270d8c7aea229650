import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkReason } from '../../bench/match-eval/reason-claims';
import { resolveApplicantLocation } from '../../lambdas/core/matching/applicant-location';
import { parseMatchRequest } from '../../lambdas/core/matching/match-request';
import { rankMatches } from '../../lambdas/core/matching/rank-matches';
import { APPLICANT_TYPES, type Grant } from '../../lambdas/core/records';
import { generateFunders, generateGrants } from '../../local/synthetic-catalogue';

/**
 * Every claim of every reason, checked mechanically against the record (bench/match-eval/
 * reason-claims.ts), for generated profiles over a synthetic catalogue: profiles built from the
 * catalogue's own words, so that they share many, and from words built to collide with them
 * under a stemmer ("communication" for "community", "institutional" for "institute").
 */

const TODAY = '2026-11-22';
const SPEC = { seed: 7, today: TODAY, funders: 40, grants: 400, contracts: 0, awardedGrants: 0, awardedContracts: 0 };
const GRANTS: Grant[] = [...generateGrants(SPEC, generateFunders(SPEC))].flat().filter((g) => g.status === 'posted');
const VOCABULARY = [...new Set(GRANTS.flatMap((g) => `${g.title} ${g.description}`.split(/[^A-Za-z-]+/)).filter((w) => w.length > 1))];
const COLLIDERS = [
  'communication',
  'communications',
  'institutional',
  'designated',
  'resides',
  'using',
  'builds',
  'long-term',
  'after-school',
  'state-of-the-art',
  'term',
  'arts',
  'STEM',
  'two-year college',
  'Standing Rock',
];

const profiles = fc.record({
  words: fc.array(fc.oneof(fc.constantFrom(...VOCABULARY), fc.constantFrom(...COLLIDERS)), { minLength: 1, maxLength: 40 }),
  sector: fc.option(fc.constantFrom(...VOCABULARY), { nil: undefined }),
  keywords: fc.array(fc.oneof(fc.constantFrom(...VOCABULARY), fc.constantFrom(...COLLIDERS), fc.constantFrom('rural health', 'two-year college', 'STEM')), {
    maxLength: 4,
  }),
  type: fc.option(fc.constantFrom(...APPLICANT_TYPES), { nil: undefined }),
  is501c3: fc.option(fc.boolean(), { nil: undefined }),
  budget: fc.option(fc.integer({ min: 1_000, max: 50_000_000 }), { nil: undefined }),
  geography: fc.option(fc.constantFrom('Kansas', 'Austin, TX', 'nationwide', 'Gotham', 'Alaska and Hawaii'), { nil: undefined }),
  relevances: fc.array(fc.double({ min: 0.4, max: 1, noNaN: true }), { minLength: GRANTS.length, maxLength: GRANTS.length }),
});

describe('match reasons', () => {
  it('make only true claims, for generated profiles over a synthetic catalogue', () => {
    let checkedClaims = 0;
    fc.assert(
      fc.property(profiles, (p) => {
        const profile = {
          mission: p.words.join(' '),
          sector: p.sector,
          applicant_type: p.type,
          is_501c3: p.is501c3,
          annual_budget_usd: p.budget,
          geography: p.geography,
        };
        const request = parseMatchRequest(JSON.stringify({ profile, focus_keywords: p.keywords, limit: 25 }));
        const candidates = GRANTS.map((grant, i) => ({ grant, relevance: p.relevances[i]! }));
        const context = { request, location: resolveApplicantLocation(request.profile.geography), today: TODAY };
        const byId = new Map(GRANTS.map((g) => [g.id, g]));
        for (const match of rankMatches(candidates, context).matches) {
          const report = checkReason(
            match.why_it_fits,
            byId.get(match.id)!,
            { ...profile, mission: request.profile.mission, sector: request.profile.sector },
            request.focusKeywords,
            TODAY,
          );
          expect(report.false, match.why_it_fits).toEqual([]);
          expect(report.unchecked, match.why_it_fits).toEqual([]);
          checkedClaims += report.claims;
        }
      }),
      { numRuns: 150, seed: 20261126 },
    );
    // The property must have checked something: generated profiles do get matches with reasons.
    expect(checkedClaims).toBeGreaterThan(1_000);
  });

  it('catch a false claim: the checker fails reasons that cite fragments, stem collisions or absent keywords', () => {
    const grant = GRANTS.find((g) => g.deadline_date !== null)!;
    const profile = { mission: 'We improve communication in our community with long-term after-school tutoring.' };
    const base = `applications close on ${grant.deadline_date}`;
    expect(
      checkReason(`It shares your focus on term. ${base.replace(/^a/, 'A')}.`, { ...grant, description: 'A long-term plan.' }, profile, [], TODAY).false,
    ).not.toEqual([]);
    expect(checkReason(`It shares your focus on communication.`, { ...grant, description: 'Community services.' }, profile, [], TODAY).false).not.toEqual([]);
    expect(
      checkReason(`It mentions your keyword “two-year college”.`, { ...grant, description: 'A four-year college.' }, profile, ['two-year college'], TODAY)
        .false,
    ).not.toEqual([]);
    expect(
      checkReason(
        'It is open to nonprofits with no place restriction in its listing.',
        { ...grant, eligible_applicants: ['academic'] },
        { ...profile, applicant_type: 'nonprofit' },
        [],
        TODAY,
      ).false,
    ).not.toEqual([]);
    expect(checkReason('Something new the checker does not read.', grant, profile, [], TODAY).unchecked).toHaveLength(1);
  });
});
