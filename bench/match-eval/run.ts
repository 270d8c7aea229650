// `npm run eval:match`: grant-matching quality (precision@10, eligibility violations) on
// ../shared/data against the labelled profiles in bench/match-eval/profiles.json, and the same
// profiles' eligibility on the synthetic catalogue, whose grants vary by state and applicant type.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMatchRequest } from '../../lambdas/core/matching/match-request';
import { MATCH_SCORING } from '../../lambdas/core/matching/scoring-config';
import type { Grant } from '../../lambdas/core/records';
import { matchGrants } from '../../lambdas/core/use-cases/match-grants';
import { type EmbeddedStack, startEmbeddedStack } from '../../local/embedded-stack';
import { PROJECT_ROOT } from '../child-processes';
import { MATCH_QUALITY_MARKERS } from '../match-report';
import { withMarkedSection } from '../report';
import { pinnedClock } from '../search-eval/eval-date';
import { mean } from '../search-eval/metrics';
import { idsBySourceKey, sharedDataCatalogue, sharedDataPresent } from '../shared-data-catalogue';
import { writeReportWithSummary } from '../summary-table';
import { Bm25Baseline } from './bm25-baseline';
import { checkReason } from './reason-claims';
import { matchQualitySection, type NoFitScore, type ProfileScore, recommendedCutoff, type SyntheticCheck } from './report';
import { type EligibilityProfile, eligibilityViolations, staleReasons } from './violations';

interface Judged {
  source: string;
  source_id: string;
  title: string;
  grade?: number;
  why: string;
}

/** A profile written to have no real fit in ../shared/data (no-fit-calibration.json, no-fit-holdout.json). */
export interface NoFitProfile {
  id: string;
  about: string;
  request: LabelledProfile['request'];
}

export interface LabelledProfile {
  id: string;
  about: string;
  request: { profile: EligibilityProfile & { mission: string; sector?: string }; focus_keywords?: string[]; limit?: number };
  expected: Judged[];
  unacceptable: Judged[];
  /** Pooled grants judged not to fit (profiles.json, pooling). */
  not_fit?: Judged[];
}

const DATA_DIR = join(PROJECT_ROOT, 'bench', '.data', 'match-eval');
const REPORT = join(PROJECT_ROOT, 'docs', 'benchmarks.md');
const DEPTH = 10;
/** Matches read per profile on the synthetic catalogue: more grants checked for eligibility. */
const SYNTHETIC_DEPTH = 25;

async function grantsById(stack: EmbeddedStack): Promise<Map<string, Grant>> {
  const grants = new Map<string, Grant>();
  for await (const page of stack.services.store.scan('grant')) for (const grant of page) grants.set(grant.id, grant);
  return grants;
}

async function scoreProfiles(stack: EmbeddedStack, profiles: LabelledProfile[], today: string): Promise<ProfileScore[]> {
  const ids = await idsBySourceKey(stack, 'grant');
  const grants = await grantsById(stack);
  const baseline = new Bm25Baseline(grants.values(), today);
  const idOf = (profile: LabelledProfile, judged: Judged) => {
    const id = ids.get(`${judged.source}|${judged.source_id}`);
    if (!id) throw new Error(`profile ${profile.id}: no grant ${judged.source} ${judged.source_id} (${judged.title}) in the catalogue`);
    return id;
  };
  const scores: ProfileScore[] = [];
  for (const profile of profiles) {
    // A labelled fit the profile may not apply for on the evaluation date (closed, stale, another
    // state or type, by violations.ts) is no result the service may return, so it is not counted.
    const labelled = profile.expected.map((judged) => idOf(profile, judged));
    const expected = new Set(
      labelled.filter(
        (id) => eligibilityViolations(grants.get(id)!, profile.request.profile, today).length === 0 && staleReasons(grants.get(id)!, today).length === 0,
      ),
    );
    const unacceptable = new Map(profile.unacceptable.map((judged) => [idOf(profile, judged), judged.why]));
    const request = parseMatchRequest(JSON.stringify({ ...profile.request, limit: DEPTH }));
    const started = performance.now();
    const { matches } = await matchGrants(stack.services, request, today);
    const ms = performance.now() - started;
    const violations: string[] = [];
    const stale: string[] = [];
    const claims = { checked: 0, false: [] as string[] };
    for (const match of matches) {
      const grant = grants.get(match.id)!;
      for (const why of staleReasons(grant, today)) stale.push(`${grant.title} (${grant.source_id}): ${why}`);
      const report = checkReason(match.why_it_fits, grant, profile.request.profile, request.focusKeywords, today);
      claims.checked += report.claims;
      for (const claim of [...report.false, ...report.unchecked.map((sentence) => `unchecked sentence: ${sentence}`)])
        claims.false.push(`${grant.title} (${grant.source_id}): ${claim}`);
      const reasons = eligibilityViolations(grant, profile.request.profile, today);
      if (unacceptable.has(match.id)) reasons.push(`labelled unacceptable: ${unacceptable.get(match.id)}`);
      if (reasons.length > 0) violations.push(`${grant.title} (${grant.source_id}): ${reasons.join('; ')}`);
    }
    const hits = matches.filter((match) => expected.has(match.id)).length;
    const baselineTop = baseline.top(
      [profile.request.profile.mission, profile.request.profile.sector ?? '', ...(profile.request.focus_keywords ?? [])].join(' '),
      profile.request.profile,
      DEPTH,
    );
    const baselineHits = baselineTop.filter((id) => expected.has(id)).length;
    const judged = new Set([...expected, ...unacceptable.keys(), ...(profile.not_fit ?? []).map((j) => idOf(profile, j))]);
    scores.push({
      id: profile.id,
      applicantType: profile.request.profile.applicant_type ?? null,
      expected: expected.size,
      labelledNotApplyable: labelled.length - expected.size,
      returned: matches.length,
      hits,
      precision: expected.size === 0 ? null : hits / Math.min(DEPTH, expected.size),
      baselinePrecision: expected.size === 0 ? null : baselineHits / Math.min(DEPTH, expected.size),
      violations,
      stale,
      claims,
      unjudged: matches.filter((match) => !judged.has(match.id)).length,
      ms,
      top: matches.slice(0, 3).map((match) => ({ title: match.title, score: match.match_score, why: match.why_it_fits, expected: expected.has(match.id) })),
    });
  }
  return scores;
}

/**
 * The no-fit profiles: each one's best topic evidence (what the cut-off is calibrated on) and the
 * matches it still gets, which should be none.
 */
async function scoreNoFit(stack: EmbeddedStack, profiles: NoFitProfile[], today: string): Promise<NoFitScore[]> {
  const scores: NoFitScore[] = [];
  for (const profile of profiles) {
    const request = parseMatchRequest(JSON.stringify({ ...profile.request, limit: DEPTH }));
    const outcome = await matchGrants(stack.services, request, today);
    scores.push({ id: profile.id, bestEvidence: outcome.bestEvidence, returned: outcome.matches.map((m) => m.title) });
  }
  return scores;
}

async function checkSynthetic(profiles: LabelledProfile[], today: string): Promise<SyntheticCheck> {
  const stack = await startEmbeddedStack({ clock: pinnedClock(today), onProgress: (m) => console.error(m) });
  try {
    const grants = await grantsById(stack);
    let returned = 0;
    let stateSpecific = 0;
    const violations: string[] = [];
    for (const profile of profiles) {
      const request = parseMatchRequest(JSON.stringify({ ...profile.request, limit: SYNTHETIC_DEPTH }));
      const { matches } = await matchGrants(stack.services, request, today);
      for (const match of matches) {
        const grant = grants.get(match.id)!;
        returned++;
        if (grant.states.length > 0) stateSpecific++;
        const reasons = eligibilityViolations(grant, profile.request.profile, today);
        if (reasons.length > 0) violations.push(`${profile.id}: ${grant.title}: ${reasons.join('; ')}`);
      }
    }
    const open = [...grants.values()].filter((grant) => eligibilityViolations(grant, {}, today).length === 0);
    return {
      grants: grants.size,
      openGrants: open.length,
      stateSpecificOpen: open.filter((grant) => grant.states.length > 0).length,
      restrictedOpen: open.filter((grant) => grant.eligible_applicants.length > 0).length,
      returned,
      stateSpecific,
      violations,
    };
  } finally {
    await stack.close();
  }
}

async function main(): Promise<void> {
  if (!sharedDataPresent()) {
    console.error('eval:match: skipped, ../shared/data is absent');
    return;
  }
  const { evaluation_date: today, profiles } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'bench', 'match-eval', 'profiles.json'), 'utf8')) as {
    evaluation_date: string;
    profiles: LabelledProfile[];
  };
  const noFit = (file: string) => (JSON.parse(readFileSync(join(PROJECT_ROOT, 'bench', 'match-eval', file), 'utf8')) as { profiles: NoFitProfile[] }).profiles;
  const stack = await sharedDataCatalogue(DATA_DIR, pinnedClock(today));
  let scores: ProfileScore[];
  let calibration: NoFitScore[];
  let holdout: NoFitScore[];
  try {
    scores = await scoreProfiles(stack, profiles, today);
    calibration = await scoreNoFit(stack, noFit('no-fit-calibration.json'), today);
    holdout = await scoreNoFit(stack, noFit('no-fit-holdout.json'), today);
  } finally {
    await stack.close();
  }
  const synthetic = await checkSynthetic(profiles, today);

  for (const score of scores) {
    console.log(
      `${score.id.padEnd(52)} P@10 ${score.precision?.toFixed(2) ?? ' -  '} (BM25 ${score.baselinePrecision?.toFixed(2) ?? ' -  '})  ${score.hits}/${Math.min(DEPTH, score.expected)} of ${score.returned}  violations ${score.violations.length}  stale ${score.stale.length}  false claims ${score.claims.false.length}`,
    );
    for (const problem of [...score.violations, ...score.stale, ...score.claims.false]) console.log(`    ${problem}`);
  }
  for (const [name, set] of [
    ['calibration', calibration],
    ['holdout', holdout],
  ] as const) {
    for (const s of set)
      console.log(
        `no-fit ${name.padEnd(12)} ${s.id.padEnd(44)} best evidence ${s.bestEvidence.toFixed(3)}  matches ${s.returned.length}${s.returned.length > 0 ? `: ${s.returned.join(' | ')}` : ''}`,
      );
  }
  const recommended = recommendedCutoff(calibration);
  console.log(
    `cut-off by the calibration rule: strong ${recommended.strongEvidence.toFixed(3)}, minimum ${recommended.minEvidence.toFixed(3)} (configured ${MATCH_SCORING.cutoff.strongEvidence}, ${MATCH_SCORING.cutoff.minEvidence})`,
  );
  const withFits = scores.filter((s) => s.precision !== null);
  const violationCount = scores.reduce((sum, s) => sum + s.violations.length, 0);
  console.log(
    `\nmean precision@10 ${mean(withFits.map((s) => s.precision!)).toFixed(3)} (BM25 baseline ${mean(withFits.map((s) => s.baselinePrecision!)).toFixed(3)}) over ${withFits.length} profiles with an applyable labelled fit; violations ${violationCount} on ../shared/data, ${synthetic.violations.length} on the synthetic catalogue (${synthetic.returned} matches, ${synthetic.stateSpecific} state-specific)`,
  );
  for (const violation of synthetic.violations) console.log(`    ${violation}`);

  const section = matchQualitySection(scores, synthetic, { calibration, holdout }, { today, depth: DEPTH, syntheticDepth: SYNTHETIC_DEPTH });
  writeReportWithSummary(REPORT, withMarkedSection(existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : '# Benchmarks\n', MATCH_QUALITY_MARKERS, section));
  console.log(`wrote the match quality section of ${REPORT}`);
  const problems = scores.reduce((sum, s) => sum + s.stale.length + s.claims.false.length, 0);
  if (violationCount + synthetic.violations.length + problems > 0) process.exitCode = 1;
}

await main();
