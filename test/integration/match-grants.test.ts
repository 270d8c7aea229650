import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkReason } from '../../bench/match-eval/reason-claims';
import { eligibilityViolations } from '../../bench/match-eval/violations';
import { loadWinkEmbedder } from '../../lambdas/adapters/embedded/wink-embedder';
import { MATCH_SCORING } from '../../lambdas/core/matching/scoring-config';
import type { ApplicantType, Grant } from '../../lambdas/core/records';
import { embeddingTextOf } from '../../lambdas/core/search/embedding-text';
import { similarityScaleOf } from '../../lambdas/core/search/relevance';
import type { Embedder } from '../../lambdas/ports/embedder';
import { generateFunders, generateGrants } from '../../local/synthetic-catalogue';
import { startTestApi, TEST_CATALOGUE, type TestApi } from '../support/api-server';

/**
 * POST /match-grants-api over real HTTP on the embedded stack, checked against the seeded
 * catalogue itself: every match must be a grant the profile may apply for (open, its type, its
 * state or national, 501(c)(3) when required), the candidate set must be every eligible grant
 * above the semantic floor (up to the window), and each reason must state facts of its grant.
 */

const PATH = '/match-grants-api';
let api: TestApi;
let today: string;
let grantsById: Map<string, Grant>;
let embedder: Embedder;
const outage = { on: false };

beforeAll(async () => {
  const wink = await loadWinkEmbedder();
  embedder = wink;
  const flaky: Embedder = { space: wink.space, embed: (texts) => (outage.on ? Promise.reject(new Error('model endpoint unreachable')) : wink.embed(texts)) };
  api = await startTestApi({ seed: TEST_CATALOGUE, embedder: flaky });
  const spec = api.stack.seededCatalogue!;
  today = spec.today;
  grantsById = new Map([...generateGrants(spec, generateFunders(spec))].flat().map((g) => [g.id, g]));
});
afterAll(async () => api?.close());

interface Profile {
  mission: string;
  sector?: string;
  geography?: string;
  applicant_type?: ApplicantType;
  is_501c3?: boolean;
  annual_budget_usd?: number;
}

const PROFILES: { name: string; profile: Profile; focus_keywords?: string[] }[] = [
  {
    name: 'a rural Kansas health nonprofit without 501(c)(3)',
    profile: {
      mission: 'Community health workers and clinics for rural families, with telehealth and behavioral health care.',
      sector: 'community health',
      geography: 'rural Kansas',
      applicant_type: 'nonprofit',
      is_501c3: false,
      annual_budget_usd: 850_000,
    },
    focus_keywords: ['rural health', 'telehealth'],
  },
  {
    name: 'a Texas city transit department',
    profile: {
      mission: 'We operate the city bus network and plan safer streets, bike lanes and transit access.',
      sector: 'transportation',
      geography: 'Austin, TX',
      applicant_type: 'municipality',
      annual_budget_usd: 90_000_000,
    },
  },
  {
    name: 'a tribal college in Montana',
    profile: {
      mission: 'A tribal college offering workforce training, STEM education and language preservation for Native students.',
      geography: 'mt',
      applicant_type: 'tribal',
      annual_budget_usd: 12_000_000,
    },
  },
  {
    name: 'a national education nonprofit with 501(c)(3)',
    profile: {
      mission: 'After-school literacy and STEM tutoring for low-income students.',
      geography: 'nationwide',
      applicant_type: 'nonprofit',
      is_501c3: true,
    },
  },
  {
    name: 'a for-profit manufacturer in Ohio',
    profile: {
      mission: 'Small manufacturer of energy-efficient components; we want to modernise our plant and train workers.',
      geography: 'Ohio',
      applicant_type: 'for_profit',
      annual_budget_usd: 6_000_000,
    },
    focus_keywords: ['manufacturing', 'energy efficiency'],
  },
  { name: 'an applicant who gives no type or place', profile: { mission: 'Wildfire prevention and forest restoration.' } },
];

type Match = {
  id: string;
  title: string;
  funder: string;
  match_score: number;
  why_it_fits: string;
  deadline: string | null;
  url: string | null;
  amount_min: number | null;
  amount_max: number | null;
  confidence: string;
  score_components: Record<string, number>;
};

async function match(body: unknown, key?: string) {
  const response = await api.post(PATH, body, key === undefined ? {} : { key });
  return response as { status: number; body: { count: number; matches: Match[]; meta: any; error?: any }; headers: Headers };
}

describe('POST /match-grants-api', () => {
  it('is for the pro and developer tiers only', async () => {
    const body = { profile: { mission: 'community health clinics' } };
    const basic = await match(body, api.keys.basic);
    expect(basic.status).toBe(403);
    expect(basic.body.error.code).toBe('NO_API_ACCESS');
    expect(basic.headers.get('x-ratelimit-limit')).toBe('1000');
    expect((await match(body, api.keys.free)).body.error.code).toBe('NO_API_ACCESS');
    expect((await match(body, null as unknown as string)).status).toBe(401);
    const pro = await match(body, api.keys.pro);
    expect(pro.status).toBe(200);
    expect(pro.headers.get('x-ratelimit-limit')).toBe('10000');
    expect((await match(body, api.keys.developer)).status).toBe(200);
  });

  it.each(PROFILES)('returns only grants $name may apply for, best first', async ({ profile, focus_keywords }) => {
    const { status, body } = await match({ profile, focus_keywords, limit: 25 });
    expect(status).toBe(200);
    expect(body.count).toBe(body.matches.length);
    expect(body.count).toBeGreaterThan(0);
    expect(body.count).toBeLessThanOrEqual(25);
    const scores = body.matches.map((m) => m.match_score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const m of body.matches) {
      const grant = grantsById.get(m.id);
      expect(grant, m.id).toBeDefined();
      expect(eligibilityViolations(grant!, profile, today), m.title).toEqual([]);
      expect(Number.isInteger(m.match_score) && m.match_score >= 0 && m.match_score <= 100).toBe(true);
      expect(m).toMatchObject({
        title: grant!.title,
        funder: grant!.funder_name,
        deadline: grant!.deadline_date,
        url: grant!.listing_url,
        amount_min: grant!.amount_min,
        amount_max: grant!.amount_max,
      });
    }
  });

  it('scores every eligible grant above the floor, up to the window: the filters apply inside the k-NN search', async () => {
    const { profile, focus_keywords } = PROFILES[0]!;
    const { body } = await match({ profile, focus_keywords });
    const floor = similarityScaleOf(embedder.space, api.stack.services.semanticFloor).profileFloor;
    const [query] = await embedder.embed([[profile.mission, profile.sector, ...(focus_keywords ?? [])].join('\n')]);
    const pool = [...grantsById.values()].filter((g) => eligibilityViolations(g, profile, today).length === 0);
    const vectors = await embedder.embed(pool.map((g) => embeddingTextOf('grant', g)));
    const above = vectors.filter((v) => v && v.reduce((sum, x, i) => sum + x * query![i]!, 0) >= floor - 1e-6).length;
    expect(above).toBeGreaterThan(body.count);
    expect(body.meta.candidates).toBe(Math.min(MATCH_SCORING.candidateWindow, above));
  });

  it('answers the same request the same way every time', async () => {
    const request = { profile: PROFILES[1]!.profile, limit: 25 };
    const first = await match(request);
    const second = await match(request);
    expect(second.body.matches).toEqual(first.body.matches);
    expect(first.body.meta.profile).toEqual({ applicant_type: 'municipality', location: { resolved_as: 'states', states: ['TX'] } });
  });

  it('explains each match with facts of that grant, every claim checked against the record, blockers first', async () => {
    let claims = 0;
    for (const { profile, focus_keywords } of PROFILES) {
      const { body } = await match({ profile, focus_keywords, limit: 25 });
      for (const m of body.matches) {
        const grant = grantsById.get(m.id)!;
        const why = m.why_it_fits;
        const report = checkReason(why, grant, profile, focus_keywords ?? [], today);
        expect(report.false, why).toEqual([]);
        expect(report.unchecked, why).toEqual([]);
        claims += report.claims;
        if (grant.deadline_date) expect(why).toContain(grant.deadline_date);
        else expect(why.toLowerCase()).toContain('no application deadline is published');
        if (grant.amount_max) expect(why).toContain(`$${grant.amount_max.toLocaleString('en-US')}`);
        else if (!grant.amount_min) expect(why).not.toMatch(/award/);
        if (profile.annual_budget_usd === undefined) expect(why).not.toContain('budget');
        if (grant.eligible_applicants.length === 0)
          expect(why).toMatch(/^Check your eligibility first: the listing does not say which types of applicant may apply/);
      }
    }
    expect(claims).toBeGreaterThan(100);
  });

  it("puts a grant for the applicant's own state in its reason, and says a national one names no place restriction", async () => {
    const { body } = await match({
      profile: { mission: 'Public safety, police and emergency response equipment for our county.', geography: 'California', applicant_type: 'municipality' },
      limit: 25,
    });
    const states = body.matches.map((m) => grantsById.get(m.id)!.states);
    expect(states.some((s) => s.length > 0)).toBe(true);
    for (const m of body.matches) {
      const grant = grantsById.get(m.id)!;
      expect(m.why_it_fits).toMatch(grant.states.length > 0 ? / in California[.,]/ : /no place restriction/);
      if (grant.eligible_applicants.length > 0) expect(m.why_it_fits).toMatch(/open to (?:state or local governments|every type of applicant)/);
    }
  });

  it('treats a geography it cannot resolve as unknown, keeping state grants with a caveat and lower confidence', async () => {
    const { status, body } = await match({
      profile: { mission: 'Public safety, police and emergency response equipment for our county.', geography: 'Gotham', applicant_type: 'municipality' },
      limit: 25,
    });
    expect(status).toBe(200);
    expect(body.meta.profile.location).toEqual({ resolved_as: 'unknown', states: [] });
    for (const m of body.matches) {
      expect(m.confidence).not.toBe('high');
      if (grantsById.get(m.id)!.states.length > 0)
        expect(m.why_it_fits).toMatch(/^Check your eligibility first: .*it is only for applicants in .+?, and your location “Gotham” names no US state/);
    }
  });

  it('defaults to 10 matches and honours the limit', async () => {
    const mission = { profile: { mission: 'education and workforce training' } };
    expect((await match(mission)).body.count).toBe(10);
    expect((await match({ ...mission, limit: 3 })).body.count).toBe(3);
  });

  it('returns no matches for a mission with no word the model knows', async () => {
    const { status, body } = await match({ profile: { mission: 'qwxz zzkv' } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ count: 0, matches: [], meta: { candidates: 0 } });
  });

  it('says there are no strong matches, in meta.note, for a mission in another language', async () => {
    const { status, body } = await match({ profile: { mission: 'Nous soignons les familles rurales et les personnes âgées dans nos villages.' } });
    expect(status).toBe(200);
    expect(body.count).toBe(0);
    expect(body.meta.note).toMatch(/^No strong matches: /);
  });

  it('answers a one-word mission with true reasons, and notes a shortfall exactly when fewer matches than the limit pass the cut-off', async () => {
    const full = await match({ profile: { mission: 'education and workforce training' }, limit: 3 });
    expect(full.body.count).toBe(3);
    expect(full.body.meta.note).toBeUndefined();
    for (const mission of ['health', 'beekeeping', 'telescopes']) {
      const { status, body } = await match({ profile: { mission }, limit: 25 });
      expect(status).toBe(200);
      if (body.count < 25) expect(body.meta.note).toMatch(new RegExp(`^(?:Only ${body.count} strong match(?:es)?|No strong matches): `));
      else expect(body.meta.note).toBeUndefined();
      for (const m of body.matches) expect(checkReason(m.why_it_fits, grantsById.get(m.id)!, { mission }, [], today).false).toEqual([]);
    }
  });

  it('scores a for-profit that also says is_501c3: true as a for-profit, and reads several states', async () => {
    const { status, body } = await match({
      profile: {
        mission: 'Public safety, police and emergency response equipment.',
        applicant_type: 'for_profit',
        is_501c3: true,
        geography: 'Kansas and Missouri',
      },
      limit: 25,
    });
    expect(status).toBe(200);
    expect(body.meta.profile).toEqual({ applicant_type: 'for_profit', location: { resolved_as: 'states', states: ['KS', 'MO'] } });
    for (const m of body.matches) {
      const grant = grantsById.get(m.id)!;
      expect(grant.eligible_applicants.length === 0 || grant.eligible_applicants.includes('for_profit')).toBe(true);
      expect(grant.states.length === 0 || grant.states.some((s) => s === 'KS' || s === 'MO')).toBe(true);
      expect(m.why_it_fits).not.toContain('501(c)(3) status, as you do');
    }
  });

  it.each([
    ['a body that is not JSON', '{"profile": {', 'body'],
    ['an array', '[{"profile": {"mission": "x"}}]', 'body'],
    ['a huge mission', { profile: { mission: 'health '.repeat(100_000) } }, 'profile.mission'],
    ['a negative budget', { profile: { mission: 'health', annual_budget_usd: -1 } }, 'profile.annual_budget_usd'],
    ['a budget that is not a number', { profile: { mission: 'health', annual_budget_usd: 'NaN' } }, 'profile.annual_budget_usd'],
    ['an unknown applicant type', { profile: { mission: 'health', applicant_type: 'charity' } }, 'profile.applicant_type'],
    ['an empty focus keyword', { profile: { mission: 'health' }, focus_keywords: [''] }, 'focus_keywords[0]'],
    ['a wrong type', { profile: { mission: 'health', is_501c3: 1 } }, 'profile.is_501c3'],
    ['a limit over 25', { profile: { mission: 'health' }, limit: 100 }, 'limit'],
  ])('answers %s with a 400 naming the field', async (_name, body, field) => {
    const response = await match(body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('INVALID_PARAMETER');
    expect(response.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('accepts naics_code, certifications and an empty keyword list without changing the answer', async () => {
    const plain = await match({ profile: { mission: 'energy efficient manufacturing', applicant_type: 'for_profit' } });
    const extra = await match({
      profile: { mission: 'energy efficient manufacturing', applicant_type: 'for_profit', naics_code: '332', certifications: ['ISO 9001'] },
      focus_keywords: [],
    });
    expect(extra.status).toBe(200);
    expect(extra.body.matches).toEqual(plain.body.matches);
  });

  it('refuses unknown fields and query parameters, naming each', async () => {
    const fields = await match({ profile: { mission: 'food bank', favourite_colour: 'green', budget: 90_000 }, focus_keyword: ['food'] });
    expect(fields.status).toBe(400);
    expect(fields.body.error.details).toEqual([
      { field: 'profile.favourite_colour', issue: expect.stringMatching(/^is not a field of profile \(it takes: mission, /) },
      { field: 'profile.budget', issue: 'is not a field of profile; did you mean annual_budget_usd?' },
      { field: 'focus_keyword', issue: 'is not a field of the request body; did you mean focus_keywords?' },
    ]);
    const query = await api.post(`${PATH}?limit=3`, { profile: { mission: 'food bank' } });
    expect(query.status).toBe(400);
    expect(query.body.error.details).toEqual([{ field: 'limit', issue: 'is not a parameter of this endpoint (it takes none)' }]);
  });

  it('is a 503 SEARCH_UNAVAILABLE while the embedding model is down', async () => {
    outage.on = true;
    try {
      const { status, body } = await match({ profile: { mission: 'a mission no cache has seen: coral reef restoration' } });
      expect(status).toBe(503);
      expect(body.error.code).toBe('SEARCH_UNAVAILABLE');
    } finally {
      outage.on = false;
    }
  });
});
