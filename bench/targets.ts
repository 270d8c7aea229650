import type { CatalogueResult } from './bench-catalogue';
import type { ScenarioName } from './scenarios';

/** The catalogue size the performance targets are set for. */
export const TARGET_GRANTS = 100_000;

export interface TargetCheck {
  target: string;
  measured: string;
  pass: boolean;
}

const MAX_P99_MS = 25;
const MAX_RSS_BYTES = 1e9;
const MIN_RATIO: Partial<Record<ScenarioName, number>> = { filtered: 0.05, search: 0.03 };

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;

/** The targets for 100,000 grants, at 10 connections. */
export function checkTargets(result: CatalogueResult): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const summary of result.summaries) {
    const minRatio = MIN_RATIO[summary.scenario.name];
    if (minRatio === undefined || summary.ratioToBaseline === null) continue;
    checks.push({
      target: `${summary.scenario.name}: req/s >= ${percent(minRatio)} of bare node:http`,
      measured: percent(summary.ratioToBaseline),
      pass: summary.ratioToBaseline >= minRatio,
    });
  }
  for (const summary of result.summaries) {
    if (summary.scenario.name === 'baseline') continue;
    checks.push({
      target: `${summary.scenario.name}: p99 < ${MAX_P99_MS} ms`,
      measured: `${summary.p99Ms.toFixed(1)} ms`,
      pass: summary.p99Ms < MAX_P99_MS,
    });
  }
  const peak = result.apiMemory.afterRuns.peakRssBytes;
  checks.push({
    target: `API server RSS < ${MAX_RSS_BYTES / 1e9} GB (peak, VmHWM)`,
    measured: `${(peak / 1e6).toFixed(0)} MB`,
    pass: peak < MAX_RSS_BYTES,
  });
  return checks;
}
