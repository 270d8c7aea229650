/**
 * The quality targets of the search modes (issue 39), measured on the held-out queries (never
 * tuned on) and against the BM25 baseline of the same run rather than as absolute figures: the
 * collection and judgements change, a ratio to a fixed textbook method keeps its meaning. A short
 * target is reported, never fatal: the evaluation is a measurement.
 */
import type { QueryScore, SystemSummary } from './judgements';
import type { SystemName } from './systems';

export interface TargetCheck {
  name: string;
  value: string;
  target: string;
  met: boolean;
}

const ratio = (a: number, b: number) => (b === 0 ? (a === 0 ? 1 : Infinity) : a / b);
const r2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'inf');

export interface TargetInput {
  /** Means over the held-out queries. */
  holdout: Record<SystemName, SystemSummary>;
  /** Every labelled query (both sets). */
  scores: readonly QueryScore[];
  /** Off-topic probes (calibration and held out) answered in semantic or hybrid mode, on either kind. */
  probesAnswered: number;
  probes: number;
}

export function targetChecks({ holdout, scores, probesAnswered, probes }: TargetInput): TargetCheck[] {
  const hybrid = ratio(holdout.hybrid.ndcg10, holdout.baseline.ndcg10);
  const keyword = ratio(holdout.keyword.ndcg10, holdout.baseline.ndcg10);
  const short = scores.filter((s) => s.category === 'short');
  const unanswered = short.filter((s) => (['keyword', 'semantic', 'hybrid'] as const).some((mode) => s.bySystem[mode].total === 0));
  const identifiers = scores.filter((s) => s.category === 'identifier');
  const missed = identifiers.filter((s) => (['keyword', 'hybrid'] as const).some((mode) => (s.bySystem[mode].topGrade ?? 0) < 3));
  return [
    { name: 'held out: hybrid nDCG@10 / baseline nDCG@10', value: r2(hybrid), target: '>= 1.10', met: hybrid >= 1.1 },
    { name: 'held out: keyword nDCG@10 / baseline nDCG@10', value: r2(keyword), target: '>= 1.00', met: keyword >= 1.0 },
    { name: 'held out: hybrid recall@50', value: holdout.hybrid.recall50.toFixed(3), target: '>= 0.85', met: holdout.hybrid.recall50 >= 0.85 },
    { name: 'one- and two-word queries unanswered in some mode', value: `${unanswered.length} of ${short.length}`, target: '0', met: unanswered.length === 0 },
    {
      name: 'identifier queries without their record first (keyword or hybrid)',
      value: `${missed.length} of ${identifiers.length}`,
      target: '0',
      met: missed.length === 0,
    },
    { name: 'off-topic probes answered in semantic or hybrid mode', value: `${probesAnswered} of ${probes}`, target: '0', met: probesAnswered === 0 },
  ];
}

export const verdict = (check: TargetCheck) => (check.met ? 'PASS' : 'short');

export function targetLine(checks: readonly TargetCheck[]): string {
  return `Targets: ${checks.map((c) => `${c.name} ${c.value} (target ${c.target}) ${verdict(c)}`).join('; ')}.`;
}
