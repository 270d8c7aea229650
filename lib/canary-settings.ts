import { CANARY_KEY_TIER, CANARY_REQUESTS_PER_RUN } from '../lambdas/core/auth/canary-key';
import type { TierQuotas } from '../lambdas/core/auth/tier-quotas';

/** The synthetic canary (lib/constructs/api-canary.ts): a customer's search and read, on a schedule. */
export interface CanarySettings {
  /** Minutes between runs, 1-60. */
  readonly scheduleMinutes: number;
  /** The keyword it searches grants for: the stage's catalogue must have matches. */
  readonly searchTerm: string;
  /** Days the runs' artifacts (logs, reports) and their access logs are kept. */
  readonly artifactRetentionDays: number;
}

/** Refuses a schedule, term or retention the canary cannot run with, naming the key. */
export function checkCanary(canary: CanarySettings, tierQuotas: TierQuotas): void {
  if (!Number.isInteger(canary.scheduleMinutes) || canary.scheduleMinutes < 1 || canary.scheduleMinutes > 60) {
    throw new Error(`Canary: scheduleMinutes must be a whole number of minutes from 1 to 60, not ${canary.scheduleMinutes}`);
  }
  if (canary.searchTerm.trim() === '' || canary.searchTerm.length > 100) {
    throw new Error(`Canary: searchTerm must be a keyword of 1 to 100 characters, not ${JSON.stringify(canary.searchTerm)}`);
  }
  if (!Number.isInteger(canary.artifactRetentionDays) || canary.artifactRetentionDays < 1 || canary.artifactRetentionDays > 455) {
    throw new Error(`Canary: artifactRetentionDays must be a whole number of days from 1 to 455, not ${canary.artifactRetentionDays}`);
  }
  // Its key is an ordinary key of its tier: the runs must fit the tier's daily quota.
  const requestsPerDay = Math.ceil((24 * 60) / canary.scheduleMinutes) * CANARY_REQUESTS_PER_RUN;
  const quota = tierQuotas[CANARY_KEY_TIER].dailyQuota;
  if (quota !== null && requestsPerDay > quota) {
    throw new Error(
      `Canary: a run every ${canary.scheduleMinutes} min makes ${requestsPerDay} requests a day, over the ${CANARY_KEY_TIER} tier's daily quota of ${quota} its key has`,
    );
  }
}
