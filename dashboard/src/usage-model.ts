import type { UsagePeriod } from './usage-series';

/** GET /account/usage: lambdas/core/usage/usage-summary.ts AccountUsageSummary. */
export type UsageTotals = Omit<UsagePeriod, 'period'>;

export interface KeyUsage {
  key_id: string;
  totals: UsageTotals;
  periods: UsagePeriod[];
  today: { day: string; used: number; quota: number | null; remaining: number | null };
}

export interface AccountUsage {
  granularity: 'day' | 'hour';
  from: string;
  to: string;
  totals: UsageTotals;
  periods: UsagePeriod[];
  keys: KeyUsage[];
}
