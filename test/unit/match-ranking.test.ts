import { describe, expect, it } from 'vitest';
import { resolveApplicantLocation } from '../../lambdas/core/matching/applicant-location';
import { cutoffFor, type GrantMatch, type MatchCandidate, rankMatches } from '../../lambdas/core/matching/rank-matches';
import { MATCH_SCORING } from '../../lambdas/core/matching/scoring-config';
import { TopicScorer } from '../../lambdas/core/matching/topic-fit';
import { termsOf } from '../../lambdas/core/matching/topic-terms';
import { shortfallNote } from '../../lambdas/core/use-cases/match-grants';
import { grant, request, TODAY } from './match-fixtures';

const keyTokens = (text: string) => termsOf(text).tokens;

describe('topic fit', () => {
  it('keys words by inflection, not stem, keeps compounds whole and drops stop words, grant boilerplate and generic verbs', () => {
    expect(keyTokens('Supporting the communities of rural Kansas through program grants').map((t) => t.word)).toEqual(['communities', 'rural', 'Kansas']);
    expect(keyTokens('communities')[0]!.key).toBe(keyTokens('community')[0]!.key);
    // Porter stems collide on these pairs; inflection keys do not.
    for (const [a, b] of [
      ['community', 'communication'],
      ['institutional', 'Institute'],
      ['design', 'designated'],
      ['residencies', 'resides'],
      ['arts', 'state-of-the-art'],
      ['term', 'long-term'],
      ['after', 'after-school'],
    ]) {
      expect(
        keyTokens(`the ${a}`).map((t) => t.key),
        `${a} / ${b}`,
      ).not.toEqual(keyTokens(`the ${b}`).map((t) => t.key));
    }
    expect(keyTokens('long-term after-school programs using state-of-the-art tools').map((t) => t.word)).toEqual([
      'long-term',
      'after-school',
      'state-of-the-art',
      'tools',
    ]);
    expect(keyTokens('It builds, delivers and expands high quality care').map((t) => t.word)).toEqual(['quality', 'care']);
    // Names and acronyms keep their capitals; a capital that only starts a sentence does not.
    expect(keyTokens('Clinics treat HIV in Kansas. Rural towns').map((t) => t.word)).toEqual(['clinics', 'treat', 'HIV', 'Kansas', 'rural', 'towns']);
  });

  it('finds a focus keyword only as whole words, never inside a longer compound', () => {
    const medication = grant({ description: 'This fund funds medication-assisted treatment.' });
    const scorer = new TopicScorer('We treat opioid use disorder', ['medication', 'medication-assisted treatment', 'assisted treatment'], [medication]);
    expect(scorer.fit(medication, 0.9).keywords).toEqual(['medication-assisted treatment']);
  });

  it('scales the semantic relevance from the floor (0.5) to 1, cites shared phrases and boosts focus keywords found', () => {
    const candidates = [
      grant(),
      grant({
        id: '00000000-0000-4000-8000-000000000002',
        title: 'Bridge Repair',
        description: 'Highway bridges and culverts.',
        categories: ['Transportation'],
      }),
    ];
    const scorer = new TopicScorer('We run rural health clinics and telehealth services', ['telehealth', 'oncology'], candidates);
    const fit = scorer.explain(candidates[0]!, scorer.fit(candidates[0]!, 0.75));
    expect(fit.semantic).toBeCloseTo(0.5, 10);
    expect(fit.keywords).toEqual(['telehealth']);
    expect(fit.sharedTerms).toContain('rural health');
    expect(fit.sharedTerms).not.toContain('telehealth'); // cited as a keyword instead
    const { semanticShare, focusKeywordBoost } = MATCH_SCORING.topic;
    // The only candidate sharing terms has the best BM25, so its lexical rank part is 1.
    expect(fit.lexical).toBeGreaterThan(0);
    expect(fit.lexical).toBeLessThan(1);
    expect(fit.score).toBeCloseTo(Math.min(1, semanticShare * 0.5 + (1 - semanticShare) * 1 + focusKeywordBoost), 10);
    const offTopic = scorer.explain(candidates[1]!, scorer.fit(candidates[1]!, 0.45));
    expect(offTopic).toMatchObject({ semantic: 0, lexical: 0, evidence: 0, sharedTerms: [], keywords: [] });
  });
  it('ranks with words that say who applies, but takes no topic evidence from them', () => {
    const tribalResearch = grant({
      title: 'Tribal Undergraduate Research Training',
      description: 'Research training for tribal college students in biomedical science.',
      categories: ['Education'],
    });
    const bridges = grant({
      id: '00000000-0000-4000-8000-000000000002',
      title: 'Bridge Repair',
      description: 'Highway bridges and culverts.',
      categories: ['Transportation'],
    });
    const casino = new TopicScorer('Our tribal enterprise is expanding its casino hotel and resort', [], [tribalResearch, bridges]);
    const fit = casino.fit(tribalResearch, 0.9);
    expect(fit.lexical).toBe(0);
    expect(fit.evidence).toBe(0);
    expect(fit.score).toBeGreaterThan(casino.fit(bridges, 0.9).score); // "tribal" still ranks it
    const college = new TopicScorer('Our tribal college runs undergraduate research training in biomedical science', [], [tribalResearch, bridges]);
    expect(college.fit(tribalResearch, 0.9).lexical).toBeGreaterThan(0);
  });
});

describe('ranking and reasons', () => {
  const candidates: MatchCandidate[] = [
    { grant: grant(), relevance: 0.8715 },
    {
      grant: grant({
        id: '00000000-0000-4000-8000-000000000002',
        title: 'Kansas Rural Health Clinic Capital Grants',
        states: ['KS'],
        amount_min: 10_000,
        amount_max: 100_000,
        deadline_date: '2026-11-27',
        requires_501c3: true,
      }),
      relevance: 0.843,
    },
    {
      grant: grant({
        id: '00000000-0000-4000-8000-000000000003',
        title: 'Arts Education',
        description: 'Music and theatre in schools.',
        categories: ['Arts'],
        eligible_applicants: [],
        amount_max: null,
        deadline_date: null,
      }),
      relevance: 0.5285,
    },
  ];
  const req = request(
    {
      mission: 'We run rural health clinics in western Kansas',
      geography: 'rural Kansas',
      applicant_type: 'nonprofit',
      is_501c3: true,
      annual_budget_usd: 800_000,
    },
    { focus_keywords: ['telehealth'] },
  );
  const context = { request: req, location: resolveApplicantLocation('rural Kansas'), today: TODAY };

  it('returns integer scores from 0 to 100, best first, the same every time', () => {
    const first = rankMatches(candidates, context).matches;
    expect(first.map((m) => m.match_score)).toEqual([...first.map((m) => m.match_score)].sort((a, b) => b - a));
    for (const m of first) expect(Number.isInteger(m.match_score) && m.match_score >= 0 && m.match_score <= 100).toBe(true);
    expect(rankMatches([...candidates].reverse(), context).matches).toEqual(first);
    // The arts grant shares no word with the mission: under the cut-off, whatever its eligibility.
    expect(first.map((m) => m.id).sort()).toEqual(['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002']);
    expect(rankMatches(candidates, context).belowCutoff).toBe(1);
  });

  it('returns nothing for a profile whose best candidate is under the cut-off, and drops grants whose text excludes the applicant', () => {
    const weak = { request: request({ mission: 'We sell handmade wedding cakes' }), location: resolveApplicantLocation(undefined), today: TODAY };
    expect(rankMatches(candidates, weak)).toMatchObject({ matches: [], belowCutoff: 3 });
    expect(rankMatches(candidates, weak).bestEvidence).toBeLessThan(MATCH_SCORING.cutoff.minEvidence);
    const noIndividuals = {
      ...candidates[0]!,
      grant: {
        ...candidates[0]!.grant,
        eligible_applicants: [],
        eligibility_evidence: [
          {
            field: 'eligible_applicants' as const,
            effect: 'excludes' as const,
            values: ['individual'],
            detail: null,
            source: 'eligibility_text' as const,
            quote: 'Individuals are not eligible.',
          },
        ],
      },
    };
    const individual = { ...context, request: { ...req, profile: { ...req.profile, applicantType: 'individual' as const } } };
    expect(rankMatches([noIndividuals], individual)).toEqual({ matches: [], belowCutoff: 0, bestEvidence: 0 });
    expect(rankMatches([noIndividuals], context).matches).toHaveLength(1);
  });

  it('returns nothing unless some candidate is a strong match, and then every candidate over the minimum', () => {
    const { strongEvidence, minEvidence } = MATCH_SCORING.cutoff;
    expect(strongEvidence).toBeGreaterThan(minEvidence);
    expect(cutoffFor(strongEvidence - 0.001)).toBe(Number.POSITIVE_INFINITY);
    expect(cutoffFor(strongEvidence)).toBe(minEvidence);
    // A grant on topic, but far in meaning, is no strong match: alone it gets nothing; beside a strong match it is returned.
    const second = { ...candidates[1]!, relevance: 0.6 };
    const alone = rankMatches([second], context);
    expect(alone.bestEvidence).toBeLessThan(strongEvidence);
    expect(alone.matches).toEqual([]);
    const both = rankMatches([candidates[0]!, second], context);
    expect(both.bestEvidence).toBeGreaterThanOrEqual(strongEvidence);
    expect(both.matches.map((m) => m.id)).toContain(second.grant.id);
  });

  it('ranks by topic first: eligibility, award size and deadline move a score by at most a fifth', () => {
    // The same listing twice: nearer in meaning with every practical part poor, and farther with every one ideal.
    const onTopic = { relevance: 0.87, grant: { ...candidates[0]!.grant, eligible_applicants: [], amount_max: 100_000_000, deadline_date: TODAY } };
    const convenient = { relevance: 0.7, grant: { ...candidates[0]!.grant, id: '00000000-0000-4000-8000-000000000009', amount_max: 250_000 } };
    const nearer = rankMatches([convenient, onTopic], context).matches;
    expect(nearer.map((m) => m.id)).toEqual([onTopic.grant.id, convenient.grant.id]);
    expect(nearer[1]!.score_components.topic).toBeLessThan(nearer[0]!.score_components.topic);
    expect(nearer[1]!.score_components.eligibility).toBeGreaterThan(nearer[0]!.score_components.eligibility);
    for (const m of nearer) {
      const c = m.score_components;
      const w = MATCH_SCORING.practicalWeights;
      const practical = (w.eligibility * c.eligibility + w.award_size * c.award_size + w.deadline * c.deadline) / 100;
      expect(m.match_score).toBeGreaterThanOrEqual(Math.round(c.topic * (1 - MATCH_SCORING.practicalShare)) - 1);
      expect(m.match_score).toBeCloseTo(c.topic * (1 - MATCH_SCORING.practicalShare + MATCH_SCORING.practicalShare * practical), -0.5);
    }
  });

  it('explains each match with its own facts', () => {
    const byId = new Map(rankMatches(candidates, context).matches.map((m) => [m.id, m]));
    const national = byId.get('00000000-0000-4000-8000-000000000001')!;
    expect(national.why_it_fits).toBe(
      'It shares your focus on rural health and mentions your keyword “telehealth”. It is open to nonprofits with no place restriction in its listing. ' +
        'Its awards of up to $250,000 fit your budget well (31% of your $800,000 budget), and applications close on 2027-01-15 (in 54 days).',
    );
    expect(national.confidence).toBe('high');
    const kansas = byId.get('00000000-0000-4000-8000-000000000002')!;
    expect(kansas.why_it_fits).toContain('It is open to nonprofits in Kansas, and nonprofits must hold 501(c)(3) status, as you do.');
    expect(kansas.why_it_fits).toContain('applications close soon, on 2026-11-27 (in 5 days)');
    expect(kansas.why_it_fits).toContain('awards of $10,000 to $100,000 fit your budget well (1.3% to 13% of your $800,000 budget)');
    const unknownTypes = rankMatches(
      [{ ...candidates[0]!, grant: { ...candidates[0]!.grant, eligible_applicants: [], amount_max: null, deadline_date: null } }],
      context,
    ).matches[0]!;
    expect(unknownTypes.why_it_fits).toBe(
      'Check your eligibility first: the listing does not say which types of applicant may apply. ' +
        'It shares your focus on rural health and mentions your keyword “telehealth”. Its listing names no place restriction. No application deadline is published.',
    );
    expect(unknownTypes.confidence).toBe('medium');
    expect(unknownTypes.score_components).toMatchObject({ eligibility: 54, award_size: 50, deadline: 80 });
  });

  it('opens with a caveat quoting the listing when its text names a narrower group than the applicant type', () => {
    const stateOnly = {
      ...candidates[0]!,
      grant: {
        ...candidates[0]!.grant,
        eligible_applicants: ['municipality' as const],
        eligibility_evidence: [
          {
            field: 'eligible_applicants' as const,
            effect: 'only' as const,
            values: ['municipality'],
            detail: 'state governments',
            source: 'eligibility_text' as const,
            quote: 'Eligibility is limited to State governments.',
          },
        ],
      },
    };
    const city = { ...context, request: { ...req, profile: { ...req.profile, applicantType: 'municipality' as const, is501c3: undefined } } };
    const [match] = rankMatches([stateOnly], city).matches;
    expect(match!.why_it_fits).toMatch(
      /^Check your eligibility first: only state governments may apply \(its eligibility notes: “Eligibility is limited to State governments\.”\)\. It shares/,
    );
    expect(match!.confidence).toBe('medium');
    const e = MATCH_SCORING.eligibility;
    expect(match!.score_components.eligibility).toBe(Math.round(100 * e.confirmed * e.narrowerGroup * e.national));
  });

  it('states award sizes as shares of the budget, in times when over it, and leaves the budget out when none was given', () => {
    const big = { ...candidates[0]!, grant: { ...candidates[0]!.grant, amount_min: 1_700_000, amount_max: 3_400_000 } };
    expect(rankMatches([big], context).matches[0]!.why_it_fits).toContain(
      'Its awards of $1,700,000 to $3,400,000 are large for your budget (2.1 to 4.3 times your $800,000 budget)',
    );
    const small = { ...candidates[0]!, grant: { ...candidates[0]!.grant, amount_min: null, amount_max: 2_000 } };
    expect(rankMatches([small], context).matches[0]!.why_it_fits).toContain(
      'Its awards of up to $2,000 are small next to your budget (0.25% of your $800,000 budget)',
    );
    const noBudget = { ...context, request: { ...req, profile: { ...req.profile, annualBudgetUsd: undefined } } };
    expect(rankMatches([small], noBudget).matches[0]!.why_it_fits).toContain(
      'It makes awards of up to $2,000, and applications close on 2027-01-15 (in 54 days).',
    );
  });

  it('says when the location is unknown and a grant is limited to a state', () => {
    const unknownPlace = { ...context, location: resolveApplicantLocation('Gotham') };
    const [match] = rankMatches([candidates[1]!], unknownPlace).matches;
    expect(match!.why_it_fits).toMatch(
      /^Check your eligibility first: it is only for applicants in Kansas, and your location “Gotham” names no US state\. It shares/,
    );
    // The type and the 501(c)(3) status are confirmed; only the place is not.
    expect(match!.confidence).toBe('medium');
    const [unknownTypes] = rankMatches([{ ...candidates[1]!, grant: { ...candidates[1]!.grant, eligible_applicants: [] } }], unknownPlace).matches;
    expect(unknownTypes!.confidence).toBe('low');
  });
});

describe('the shortfall note', () => {
  const outcome = (matches: number, belowCutoff: number) => ({
    matches: Array.from({ length: matches }, () => ({}) as GrantMatch),
    location: { kind: 'national' as const },
    applicantType: undefined,
    candidates: matches + belowCutoff,
    belowCutoff,
    bestEvidence: 0,
  });

  it('says there are no strong matches, or only these, and nothing when the limit is met', () => {
    expect(shortfallNote(outcome(0, 212), 10)).toBe(
      'No strong matches: 212 other open grants you may apply for were too far from your mission to recommend. Describe your work in more detail, add focus keywords, or check again as new grants are posted.',
    );
    expect(shortfallNote(outcome(1, 1), 10)).toBe('Only 1 strong match: 1 other open grant you may apply for was too far from your mission to recommend.');
    expect(shortfallNote(outcome(3, 0), 10)).toBe('Only 3 strong matches: no other open grant you may apply for is near your mission.');
    expect(shortfallNote(outcome(10, 50), 10)).toBeUndefined();
  });
});

describe('grant terms', () => {
  it('are read from the grant given, not from an earlier grant of the same id', () => {
    const before = grant({ title: 'Telehealth Network Grants', description: 'Telehealth networks for rural clinics.' });
    const first = new TopicScorer('We run rural clinics and telehealth', [], [before]);
    expect(first.explain(before, first.fit(before, 0.9)).sharedTerms).toContain('rural clinics');
    const after = { ...before, description: 'Broadband for schools.' };
    const second = new TopicScorer('We run rural clinics and telehealth', [], [after]);
    const fit = second.explain(after, second.fit(after, 0.9));
    expect(fit.sharedTerms).not.toContain('clinics');
    expect(fit.sharedTerms).not.toContain('rural clinics');
  });
});
