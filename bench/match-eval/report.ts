import { MATCH_SCORING } from '../../lambdas/core/matching/scoring-config';
import { table } from '../format';
import { MATCH_QUALITY_MARKERS } from '../match-report';
import { mean } from '../search-eval/metrics';
import { median } from '../summary';

export interface ProfileScore {
  id: string;
  applicantType: string | null;
  /** Grants labelled as good fits that the profile may apply for on the evaluation date. */
  expected: number;
  /** Labelled fits that are closed, stale or not open to the profile on the evaluation date, so not counted. */
  labelledNotApplyable: number;
  returned: number;
  /** Labelled good fits among the matches returned. */
  hits: number;
  /** hits / min(depth, expected); null when no labelled fit is applyable (the profile then has no real fit). */
  precision: number | null;
  /** The same for the BM25 baseline's top 10 (bm25-baseline.ts). */
  baselinePrecision: number | null;
  violations: string[];
  /** Stale listings among the matches (violations.ts, staleReasons). */
  stale: string[];
  /** Claims of the reasons checked (reason-claims.ts), and the false or unchecked ones. */
  claims: { checked: number; false: string[] };
  /** Matches nobody has judged for this profile: what the pool missed. */
  unjudged: number;
  ms: number;
  top: { title: string; score: number; why: string; expected: boolean }[];
}

export interface NoFitScore {
  id: string;
  /** The best topic evidence of any eligible grant. */
  bestEvidence: number;
  /** The titles of the matches returned (none expected). */
  returned: string[];
}

/** The cut-off by the calibration rule (scoring-config.ts, cutoff): strong 0.005 above the calibration profiles' best evidence, minimum at the median of their bests. */
export function recommendedCutoff(calibration: readonly NoFitScore[]): { strongEvidence: number; minEvidence: number } {
  const bests = calibration.map((s) => s.bestEvidence);
  return {
    strongEvidence: Math.ceil((Math.max(0, ...bests) + 0.005) * 1000) / 1000,
    minEvidence: Math.ceil(median(bests) * 1000) / 1000,
  };
}

export interface SyntheticCheck {
  grants: number;
  openGrants: number;
  stateSpecificOpen: number;
  restrictedOpen: number;
  returned: number;
  stateSpecific: number;
  violations: string[];
}

export function matchQualitySection(
  scores: ProfileScore[],
  synthetic: SyntheticCheck,
  noFit: { calibration: NoFitScore[]; holdout: NoFitScore[] },
  setup: { today: string; depth: number; syntheticDepth: number },
): string {
  const violations = scores.reduce((sum, s) => sum + s.violations.length, 0);
  const withFits = scores.filter((s) => s.precision !== null);
  const stale = scores.reduce((sum, s) => sum + s.stale.length, 0);
  const claimsChecked = scores.reduce((sum, s) => sum + s.claims.checked, 0);
  const falseClaims = scores.flatMap((s) => s.claims.false.map((claim) => `${s.id}: ${claim}`));
  const returned = scores.reduce((sum, s) => sum + s.returned, 0);
  const hits = scores.reduce((sum, s) => sum + s.hits, 0);
  const answered = (set: NoFitScore[]) => set.filter((s) => s.returned.length > 0);
  const cutoff = MATCH_SCORING.cutoff;
  const recommended = recommendedCutoff(noFit.calibration);
  const byType = [...new Set(scores.map((s) => s.applicantType ?? 'not given'))].map((type) => {
    const of = scores.filter((s) => (s.applicantType ?? 'not given') === type);
    return [type, String(of.length), mean(of.flatMap((s) => (s.precision === null ? [] : [s.precision]))).toFixed(3)];
  });
  const { practicalShare, practicalWeights } = MATCH_SCORING;
  const example = scores.find((s) => s.top.length > 0 && s.top[0]!.expected) ?? scores[0];
  return [
    MATCH_QUALITY_MARKERS.start,
    '## Grant matching quality on ../shared/data',
    '',
    `Written by \`npm run eval:match\` (\`bench/match-eval/run.ts\`) on ${new Date().toISOString().slice(0, 10)}: all of ../shared/data imported into the`,
    `embedded stack with the clock pinned to ${setup.today} (the evaluation date: importers close what is past its deadline on that day,`,
    `and "open" is judged on it), then ${scores.length} organisation profiles (bench/match-eval/profiles.json: a mission in the organisation's own words,`,
    "sector, geography, applicant type, 501(c)(3) status, budget and focus keywords) sent through the endpoint's code. For each profile the",
    "labels list the grants a grant writer would shortlist (first by reading the open grants, then by judging blind a pool of the matcher's",
    'top 10, with and without its cut-off, and an independent BM25 ranking\'s: profiles.json, "pooling") and grants it must never get:',
    'on-topic ones that are closed or forecasted, exclude its applicant type, or need 501(c)(3) status it lacks. Score: topic ×',
    `(1 − ${practicalShare} + ${practicalShare} × (eligibility × ${practicalWeights.eligibility} + award size × ${practicalWeights.award_size} + deadline × ${practicalWeights.deadline})) (docs/matching.md).`,
    '',
    table(
      ['measure', 'value'],
      [
        [
          `mean precision@${setup.depth} (labelled good fits in the top ${setup.depth} / min(${setup.depth}, labelled fits it may apply for), over the ${withFits.length} profiles with one`,
          mean(withFits.map((s) => s.precision!)).toFixed(3),
        ],
        [
          `the same for an independent BM25 baseline's top ${setup.depth} (bench/match-eval/bm25-baseline.ts: mission, sector and keywords over the grants the profile may apply for; no cut-off)`,
          mean(withFits.map((s) => s.baselinePrecision!)).toFixed(3),
        ],
        [
          `profiles where the matcher's precision@${setup.depth} is below the baseline's (per-profile losses in the table below)`,
          String(withFits.filter((s) => s.precision! < s.baselinePrecision!).length),
        ],
        [
          `labelled profiles whose every labelled fit is closed, stale or not open to it on ${setup.today} (no real fit: scored by what they get)`,
          `${scores.length - withFits.length}: ${scores
            .filter((s) => s.precision === null)
            .map((s) => `${s.id} (${s.returned} returned)`)
            .join(', ')}`,
        ],
        [
          'labelled fits not counted because the profile may not apply for them on the evaluation date',
          String(scores.reduce((sum, s) => sum + s.labelledNotApplyable, 0)),
        ],
        [`mean hits in the top ${setup.depth}`, mean(scores.map((s) => s.hits)).toFixed(2)],
        ['profiles with an applyable labelled fit and none of them in the top 10', String(withFits.filter((s) => s.hits === 0).length)],
        ['matches returned per labelled profile (mean; fewer than 10 when the cut-off leaves fewer)', (returned / Math.max(1, scores.length)).toFixed(1)],
        ['share of returned matches labelled good fits', returned === 0 ? '-' : (hits / returned).toFixed(3)],
        ['returned matches nobody has judged (labels are pooled: profiles.json, "pooling")', String(scores.reduce((sum, s) => sum + s.unjudged, 0))],
        ['stale listings among the matches (open-ended, posted over three years before the evaluation date)', String(stale)],
        [`false claims in reasons (${claimsChecked.toLocaleString('en-US')} claims checked mechanically against the records)`, String(falseClaims.length)],
        [
          `no-fit profiles answered: calibration (${noFit.calibration.length}) / held out (${noFit.holdout.length})`,
          `${answered(noFit.calibration).length} / ${answered(noFit.holdout).length}`,
        ],
        ['eligibility violations on ../shared/data (closed, ineligible type, 501(c)(3), other state, or labelled unacceptable)', String(violations)],
        [
          `eligibility violations on the synthetic catalogue (${synthetic.returned} matches checked, top ${setup.syntheticDepth} per profile)`,
          String(synthetic.violations.length),
        ],
        ['median match time per profile, in process (every grant of ../shared/data in the index)', `${median(scores.map((s) => s.ms)).toFixed(0)} ms`],
      ],
    ),
    '',
    'Almost every open grant in ../shared/data names no place restriction (federal notices rarely limit by state; the few whose text does are read at import),',
    'so geography excludes little there;',
    `the same profiles also run against the synthetic catalogue (${synthetic.openGrants.toLocaleString('en-US')} open grants, ${synthetic.stateSpecificOpen.toLocaleString('en-US')} of them for particular states and ${synthetic.restrictedOpen.toLocaleString('en-US')} restricted`,
    `to some applicant types), where ${synthetic.stateSpecific} of the ${synthetic.returned} matches returned were state-specific, every one checked against the profile's state.`,
    '',
    table(['applicant type', 'profiles', `mean precision@${setup.depth}`], byType),
    '',
    example ? `Example (${example.id}), the first match: ${example.top[0]?.score ?? '-'} — “${example.top[0]?.title ?? ''}”: ${example.top[0]?.why ?? ''}` : '',
    '',
    `The cut-off reads topic evidence (the lesser of a grant's semantic part and its lexical part read against ${cutoff.lexicalAtPar}): a profile gets matches only if some candidate reaches ${cutoff.strongEvidence}, and then every candidate reaching ${cutoff.minEvidence}.`,
    `By the calibration rule (strong: 0.005 above the best evidence any calibration profile reaches; minimum: the median of their bests) they would be ${recommended.strongEvidence.toFixed(3)} and ${recommended.minEvidence.toFixed(3)} on this run.`,
    '',
    table(
      ['no-fit profile', 'set', 'best evidence', 'matches'],
      [
        ...noFit.calibration.map((s) => [
          s.id,
          'calibration',
          s.bestEvidence.toFixed(3),
          s.returned.length === 0 ? '0' : `${s.returned.length}: ${s.returned.slice(0, 2).join('; ')}`,
        ]),
        ...noFit.holdout.map((s) => [
          s.id,
          'held out',
          s.bestEvidence.toFixed(3),
          s.returned.length === 0 ? '0' : `${s.returned.length}: ${s.returned.slice(0, 2).join('; ')}`,
        ]),
      ],
    ),
    '',
    ...(falseClaims.length > 0 ? ['False or unchecked claims:', '', ...falseClaims.map((claim) => `- ${claim}`), ''] : []),
    '<details><summary>Per profile: precision@10, hits / min(10, labelled), violations</summary>',
    '',
    table(
      ['profile', 'type', 'precision@10', 'BM25 baseline', 'hits', 'returned', 'violations'],
      scores.map((s) => [
        s.id,
        s.applicantType ?? '-',
        s.precision?.toFixed(2) ?? '-',
        s.baselinePrecision?.toFixed(2) ?? '-',
        `${s.hits} / ${Math.min(setup.depth, s.expected)}`,
        String(s.returned),
        String(s.violations.length),
      ]),
    ),
    '',
    '</details>',
    MATCH_QUALITY_MARKERS.end,
  ].join('\n');
}
