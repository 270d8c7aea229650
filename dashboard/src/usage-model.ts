import type { components } from './account-api-types';

/** GET /account/usage (lambdas/core/usage/usage-summary.ts AccountUsageSummary). */
export type AccountUsage = components['schemas']['Usage'];
export type UsageTotals = AccountUsage['totals'];
export type KeyUsage = AccountUsage['keys'][number];
