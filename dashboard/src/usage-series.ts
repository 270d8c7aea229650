import type { components } from './account-api-types';
import { formatMs, formatPeriod, formatRate, periodSeconds } from './format';

/** One day or hour of the account API's usage. */
export type UsagePeriod = components['schemas']['UsagePeriod'];

/** uPlot's columns: x (seconds) then one array per series, null where there is nothing to draw. */
export type Columns = [number[], ...(number | null)[][]];

export interface UsageCharts {
  requests: Columns;
  errorRate: Columns;
  latency: Columns;
}

/** The three charts' data: requests and errors, error rate in percent, p50 and p95 latency. */
export function usageCharts(periods: readonly UsagePeriod[]): UsageCharts {
  const x = periods.map((p) => periodSeconds(p.period));
  return {
    requests: [x, periods.map((p) => p.requests), periods.map((p) => p.errors)],
    errorRate: [x, periods.map((p) => (p.error_rate === null ? null : Math.round(p.error_rate * 1000) / 10))],
    latency: [x, periods.map((p) => p.p50_ms), periods.map((p) => p.p95_ms)],
  };
}

/** The table a screen reader reads instead of the charts: periods with any traffic, newest first. */
export function usageTableRows(periods: readonly UsagePeriod[]): string[][] {
  return periods
    .filter((p) => p.requests > 0 || p.responses > 0)
    .reverse()
    .map((p) => [formatPeriod(p.period), String(p.requests), String(p.errors), formatRate(p.error_rate), formatMs(p.p50_ms), formatMs(p.p95_ms)]);
}

export const USAGE_TABLE_HEADINGS = ['Period', 'Requests', 'Errors', 'Error rate', 'p50 latency', 'p95 latency'];
