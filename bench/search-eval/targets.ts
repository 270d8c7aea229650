/**
 * The quality targets of the search modes, measured against the BM25 baseline rather than as
 * absolute figures: the collection and judgements change, a ratio to a fixed textbook method keeps
 * its meaning. A short target is reported, never fatal: the evaluation is a measurement.
 */
import type { SystemSummary } from './judgements';
import type { SystemName } from './systems';

export interface TargetCheck {
  name: string;
  value: string;
  target: string;
  met: boolean;
}

const ratio = (a: number, b: number) => (b === 0 ? (a === 0 ? 1 : Infinity) : a / b);
const r2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : 'inf');

export function targetChecks(summary: Record<SystemName, SystemSummary>, probesAnsweredByService: number, probeCount: number): TargetCheck[] {
  const hybrid = ratio(summary.hybrid.ndcg10, summary.baseline.ndcg10);
  const keyword = ratio(summary.keyword.ndcg10, summary.baseline.ndcg10);
  return [
    { name: 'hybrid nDCG@10 / baseline nDCG@10', value: r2(hybrid), target: '>= 1.15', met: hybrid >= 1.15 },
    { name: 'keyword nDCG@10 / baseline nDCG@10', value: r2(keyword), target: '>= 1.00', met: keyword >= 1.0 },
    { name: 'judged queries with no hybrid result', value: String(summary.hybrid.noResultScored), target: '0', met: summary.hybrid.noResultScored === 0 },
    { name: 'off-topic probes answered in any service mode', value: `${probesAnsweredByService} of ${probeCount}`, target: '0', met: probesAnsweredByService === 0 },
  ];
}

export const verdict = (check: TargetCheck) => (check.met ? 'PASS' : 'short');

export function targetLine(checks: readonly TargetCheck[]): string {
  return `Targets: ${checks.map((c) => `${c.name} ${c.value} (target ${c.target}) ${verdict(c)}`).join('; ')}.`;
}
