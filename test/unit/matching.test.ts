import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../lambdas/core/errors';
import { resolveApplicantLocation } from '../../lambdas/core/matching/applicant-location';
import { awardSizeFit, deadlineFit, eligibilityFit } from '../../lambdas/core/matching/grant-fit';
import { MATCH_LIMITS, type MatchRequest, parseMatchRequest } from '../../lambdas/core/matching/match-request';
import { MATCH_SCORING } from '../../lambdas/core/matching/scoring-config';
import { APPLICANT_TYPES } from '../../lambdas/core/records';
import { matchFilters } from '../../lambdas/core/use-cases/match-grants';
import { body, grant, request, TODAY } from './match-fixtures';

function issuesOf(body: string | null): { field: string; issue: string }[] {
  try {
    parseMatchRequest(body);
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).status).toBe(400);
    return (error as ServiceError).details ?? [];
  }
  throw new Error(`accepted: ${body}`);
}

describe('match request', () => {
  it('takes the interface fields, with defaults', () => {
    const parsed = parseMatchRequest(
      body({
        profile: {
          mission: '  Rural\u0000 health  ',
          sector: 'health',
          geography: 'Kansas',
          applicant_type: 'nonprofit',
          is_501c3: true,
          annual_budget_usd: 850_000,
          naics_code: '621498',
          certifications: ['8(a)'],
        },
        focus_keywords: ['telehealth', ' Telehealth ', 'rural health'],
      }),
    );
    expect(parsed).toEqual({
      profile: { mission: 'Rural health', sector: 'health', geography: 'Kansas', applicantType: 'nonprofit', is501c3: true, annualBudgetUsd: 850_000 },
      focusKeywords: ['telehealth', 'rural health'],
      limit: MATCH_LIMITS.default,
    });
  });

  it("treats null and blank optional fields as absent and forgives the applicant type's spelling", () => {
    expect(
      request({ sector: null, geography: '   ', applicant_type: 'For-Profit', is_501c3: null, annual_budget_usd: null }, { limit: null, focus_keywords: null }),
    ).toEqual({ profile: { mission: 'rural health clinics', applicantType: 'for_profit' }, focusKeywords: [], limit: 10 });
  });

  it.each([
    ['not JSON', '{"profile":', 'body'],
    ['an array', '[]', 'body'],
    ['a string', '"mission"', 'body'],
    ['no body', null, 'body'],
    ['no profile', body({ limit: 5 }), 'profile'],
    ['a profile that is not an object', body({ profile: 'nonprofit' }), 'profile'],
    ['no mission', body({ profile: {} }), 'profile.mission'],
    ['a blank mission', body({ profile: { mission: ' \n ' } }), 'profile.mission'],
    ['a mission of the wrong type', body({ profile: { mission: 42 } }), 'profile.mission'],
    ['a huge mission', body({ profile: { mission: 'x'.repeat(MATCH_LIMITS.missionMaxLength + 1) } }), 'profile.mission'],
    ['a huge sector', body({ profile: { mission: 'm', sector: 'x'.repeat(201) } }), 'profile.sector'],
    ['an unknown applicant type', body({ profile: { mission: 'm', applicant_type: 'martian' } }), 'profile.applicant_type'],
    ['a numeric applicant type', body({ profile: { mission: 'm', applicant_type: 3 } }), 'profile.applicant_type'],
    ['is_501c3 as a string', body({ profile: { mission: 'm', is_501c3: 'yes' } }), 'profile.is_501c3'],
    ['a negative budget', body({ profile: { mission: 'm', annual_budget_usd: -5 } }), 'profile.annual_budget_usd'],
    ['a zero budget', body({ profile: { mission: 'm', annual_budget_usd: 0 } }), 'profile.annual_budget_usd'],
    ['a budget as a string', body({ profile: { mission: 'm', annual_budget_usd: 'NaN' } }), 'profile.annual_budget_usd'],
    ['an absurd budget', body({ profile: { mission: 'm', annual_budget_usd: 1e300 } }), 'profile.annual_budget_usd'],
    ['a malformed NAICS code', body({ profile: { mission: 'm', naics_code: 'abc' } }), 'profile.naics_code'],
    ['certifications that are not strings', body({ profile: { mission: 'm', certifications: [1] } }), 'profile.certifications[0]'],
    ['focus keywords that are not an array', body({ profile: { mission: 'm' }, focus_keywords: 'telehealth' }), 'focus_keywords'],
    ['too many focus keywords', body({ profile: { mission: 'm' }, focus_keywords: Array.from({ length: 21 }, (_, i) => `k${i}`) }), 'focus_keywords'],
    ['an empty focus keyword', body({ profile: { mission: 'm' }, focus_keywords: ['ok', ''] }), 'focus_keywords[1]'],
    ['a long focus keyword', body({ profile: { mission: 'm' }, focus_keywords: ['x'.repeat(61)] }), 'focus_keywords[0]'],
    ['a limit of 0', body({ profile: { mission: 'm' }, limit: 0 }), 'limit'],
    ['a limit of 26', body({ profile: { mission: 'm' }, limit: 26 }), 'limit'],
    ['a fractional limit', body({ profile: { mission: 'm' }, limit: 2.5 }), 'limit'],
    ['a limit as a string', body({ profile: { mission: 'm' }, limit: '10' }), 'limit'],
  ])('rejects %s with a 400 naming the field', (_name, raw, field) => {
    const issues = issuesOf(raw);
    expect(issues.map((i) => i.field)).toContain(field);
    expect(issues.every((i) => i.issue.length > 0)).toBe(true);
  });

  it('accepts the limits at their bounds', () => {
    expect(parseMatchRequest(body({ profile: { mission: 'm' }, limit: 1 })).limit).toBe(1);
    expect(parseMatchRequest(body({ profile: { mission: 'm' }, limit: 25 })).limit).toBe(25);
    expect(parseMatchRequest(body({ profile: { mission: 'm' }, focus_keywords: Array.from({ length: 20 }, (_, i) => `k${i}`) })).focusKeywords).toHaveLength(
      20,
    );
  });
});

describe('applicant location', () => {
  it.each([
    ['Austin, TX', ['TX']],
    ['Texas', ['TX']],
    ['tx', ['TX']],
    ['rural Kansas', ['KS']],
    ['Kansas City, MO', ['MO']],
    ['Portland, or 97201', ['OR']],
    ['Washington, DC', ['DC']],
    ['Washington D.C.', ['DC']],
    ['Seattle, Washington', ['WA']],
    ['Kansas and Missouri', ['KS', 'MO']],
    ['West Virginia', ['WV']],
  ])('reads %s as %j', (text, states) => {
    expect(resolveApplicantLocation(text)).toEqual({ kind: 'states', states });
  });

  it.each(['nationwide', 'USA', 'U.S.', 'United States', 'national', 'all 50 states', 'We work nationwide'])('reads %s as national', (text) => {
    expect(resolveApplicantLocation(text)).toEqual({ kind: 'national' });
  });

  it('keeps what it cannot resolve as unknown, with the text, and no geography as unknown without', () => {
    expect(resolveApplicantLocation('Gotham')).toEqual({ kind: 'unknown', text: 'Gotham' });
    expect(resolveApplicantLocation('in or near the city')).toEqual({ kind: 'unknown', text: 'in or near the city' });
    expect(resolveApplicantLocation(undefined)).toEqual({ kind: 'unknown', text: null });
  });
});

describe('hard filters', () => {
  const location = resolveApplicantLocation;
  it("keeps open grants of the applicant's states and national ones, for its type", () => {
    const req = request({ geography: 'Kansas', applicant_type: 'nonprofit', is_501c3: false });
    expect(matchFilters(req, location('Kansas'))).toEqual({
      opportunityType: 'open',
      status: [{ stored: 'posted', live: true }],
      includeNational: true,
      states: ['KS'],
      applicant: { type: 'nonprofit', lacks501c3: true },
    });
  });

  it('gives a national applicant national grants only, and an unknown location no place filter', () => {
    expect(matchFilters(request({}), location('nationwide')).states).toEqual([]);
    expect(matchFilters(request({}), location('Gotham')).states).toBeUndefined();
    expect(matchFilters(request({}), location(undefined)).applicant).toBeUndefined();
  });

  it('reads is_501c3 true without a type as a nonprofit, and applies 501(c)(3) only to nonprofits', () => {
    expect(matchFilters(request({ is_501c3: true }), location(undefined)).applicant).toEqual({ type: 'nonprofit', lacks501c3: false });
    expect(matchFilters(request({ applicant_type: 'academic', is_501c3: false }), location(undefined)).applicant).toEqual({
      type: 'academic',
      lacks501c3: false,
    });
  });
});

describe('award size fit', () => {
  const sizeFit = (min: number | null, max: number | null, budget?: number) => awardSizeFit(grant({ amount_min: min, amount_max: max }), budget);
  const { lossPerDecade, minimum, unknown } = MATCH_SCORING.awardSize;

  it('scores awards between 5% and 50% of the budget 1', () => {
    expect(sizeFit(null, 50_000, 1_000_000)).toMatchObject({ score: 1, budget: { band: 'within', lowShare: 0.05, highShare: 0.05 } });
    expect(sizeFit(null, 500_000, 1_000_000).score).toBe(1);
    // A range counts by its point nearest the band.
    expect(sizeFit(10_000, 2_000_000, 1_000_000)).toMatchObject({ score: 1, budget: { band: 'within', lowShare: 0.01, highShare: 2 } });
  });

  it('loses lossPerDecade per factor of ten outside the band, down to the minimum', () => {
    expect(sizeFit(null, 5_000, 1_000_000).score).toBeCloseTo(1 - lossPerDecade, 10);
    expect(sizeFit(5_000_000, 5_000_000, 1_000_000).score).toBeCloseTo(1 - lossPerDecade, 10);
    expect(sizeFit(null, 1, 1_000_000).score).toBe(minimum);
    expect(sizeFit(null, 5_000, 1_000_000).budget).toEqual({ usd: 1_000_000, band: 'below', lowShare: 0.005, highShare: 0.005 });
  });

  it('is neutral without a budget or a published amount', () => {
    expect(sizeFit(null, 50_000)).toEqual({ score: unknown, amountMin: null, amountMax: 50_000 });
    expect(sizeFit(null, null, 1_000_000).score).toBe(unknown);
    expect(sizeFit(0, 0, 1_000_000).score).toBe(unknown);
  });
});

describe('deadline fit', () => {
  const { today, none, comfortableDays } = MATCH_SCORING.deadline;
  it('rises from `today` on the day to 1 at comfortableDays, and is neutral without a deadline', () => {
    expect(deadlineFit(grant({ deadline_date: TODAY }), TODAY)).toEqual({ score: today, date: TODAY, daysLeft: 0 });
    expect(deadlineFit(grant({ deadline_date: '2026-11-29' }), TODAY).score).toBeCloseTo(today + ((1 - today) * 7) / comfortableDays, 10);
    expect(deadlineFit(grant({ deadline_date: '2026-12-06' }), TODAY).score).toBe(1);
    expect(deadlineFit(grant({ deadline_date: null }), TODAY)).toEqual({ score: none, date: null, daysLeft: null });
  });
});

describe('eligibility fit', () => {
  const profile = (extra: Partial<MatchRequest['profile']> = {}) => ({ mission: 'm', ...extra });
  const e = MATCH_SCORING.eligibility;

  it('confirms a listed type; unknown types and a missing profile type are neutral', () => {
    expect(eligibilityFit(grant(), profile({ applicantType: 'nonprofit' }), { kind: 'states', states: ['KS'] })).toEqual({
      score: e.confirmed * e.national,
      applicants: { kind: 'confirmed', type: 'nonprofit', everyType: false },
      narrowerGroup: null,
      charity501c3: null,
      geography: { kind: 'unrestricted' },
    });
    expect(eligibilityFit(grant({ eligible_applicants: [] }), profile({ applicantType: 'nonprofit' }), { kind: 'national' }).score).toBeCloseTo(
      e.unknownApplicantTypes * e.national,
      10,
    );
    expect(eligibilityFit(grant(), profile(), { kind: 'national' }).applicants).toEqual({ kind: 'type_not_given', types: ['nonprofit'], everyType: false });
    expect(eligibilityFit(grant({ eligible_applicants: [...APPLICANT_TYPES] }), profile(), { kind: 'national' }).score).toBeCloseTo(
      e.confirmed * e.national,
      10,
    );
  });

  it("scores a grant for the applicant's own state above a national one, and a state grant for an unknown location low", () => {
    const inState = eligibilityFit(grant({ states: ['KS', 'MO'] }), profile({ applicantType: 'nonprofit' }), { kind: 'states', states: ['KS'] });
    expect(inState.geography).toEqual({ kind: 'in_state', states: ['KS'], evidence: null });
    expect(inState.score).toBe(e.inApplicantState);
    const unknown = eligibilityFit(grant({ states: ['TX'] }), profile({ applicantType: 'nonprofit' }), { kind: 'unknown', text: 'Gotham' });
    expect(unknown).toMatchObject({ geography: { kind: 'state_unconfirmed', states: ['TX'] }, score: e.stateGrantUnknownLocation });
  });

  it('records the 501(c)(3) requirement as met or unconfirmed', () => {
    const restricted = grant({ requires_501c3: true });
    expect(eligibilityFit(restricted, profile({ applicantType: 'nonprofit', is501c3: true }), { kind: 'national' }).charity501c3).toBe('holds');
    const unconfirmed = eligibilityFit(restricted, profile({ applicantType: 'nonprofit' }), { kind: 'national' });
    expect(unconfirmed.charity501c3).toBe('not_stated');
    expect(unconfirmed.score).toBeCloseTo(e.confirmed * e.unconfirmed501c3 * e.national, 10);
    expect(
      eligibilityFit(grant({ requires_501c3: true, eligible_applicants: ['nonprofit', 'academic'] }), profile({ applicantType: 'academic' }), {
        kind: 'national',
      }).charity501c3,
    ).toBeNull();
  });
});
