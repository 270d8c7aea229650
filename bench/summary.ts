import type { Measurement } from './measure';
import type { Scenario, ScenarioName } from './scenarios';

/** One measurement plus the RSS of the server under load, read right after it. */
export interface RoundMeasurement extends Measurement {
  rssBytes: number;
}

/** One round: a measurement per scenario name, the baseline's among them. */
export type Round<N extends string = ScenarioName> = Record<N, RoundMeasurement>;

export interface ScenarioSummary<S extends { name: string } = Scenario> {
  scenario: S;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Median over rounds of req/s divided by the baseline's req/s in the same round; null for the baseline. */
  ratioToBaseline: number | null;
  /** Highest RSS read after a run of this scenario. */
  rssBytes: number;
  requestsPerSecondByRound: number[];
  /** p99s swing most on a shared machine, so reports can show each round's. */
  p99MsByRound: number[];
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile (q in [0, 1]). */
export function percentile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * Medians across rounds, because single runs on a shared machine swing. Ratios are taken within
 * a round first: the baseline ran seconds before, under nearly the same background load.
 */
export function summarise<S extends { name: string }>(scenarios: readonly S[], rounds: Round<S['name']>[]): ScenarioSummary<S>[] {
  const measured = (round: Round<S['name']>, name: string) => (round as Record<string, RoundMeasurement>)[name]!;
  return scenarios.map((scenario) => {
    const runs = rounds.map((round) => measured(round, scenario.name));
    return {
      scenario,
      requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
      p50Ms: median(runs.map((r) => r.p50Ms)),
      p99Ms: median(runs.map((r) => r.p99Ms)),
      ratioToBaseline:
        scenario.name === 'baseline'
          ? null
          : median(rounds.map((round) => measured(round, scenario.name).requestsPerSecond / measured(round, 'baseline').requestsPerSecond)),
      rssBytes: Math.max(...runs.map((r) => r.rssBytes)),
      requestsPerSecondByRound: runs.map((r) => r.requestsPerSecond),
      p99MsByRound: runs.map((r) => r.p99Ms),
    };
  });
}
