import { describe, expect, it } from 'vitest';
import { createAwsServices } from '../../lambdas/composition/aws';
import { TIER_QUOTAS_ENV, tierPoliciesFromEnv } from '../../lambdas/composition/tier-quotas-env';
import { DEFAULT_TIER_QUOTAS, parseTierQuotas, tierPoliciesWith, tierQuotasWith } from '../../lambdas/core/auth/tier-quotas';
import { TIERS } from '../../lambdas/core/auth/tiers';
import { admitRequest } from '../../lambdas/core/use-cases/admit-request';
import type { UsageMeter } from '../../lambdas/ports/usage-meter';

/** A stage's tier quotas: validated in the CDK app (cdk.json) and again in the functions (TIER_QUOTAS). */
describe('tier quotas', () => {
  const basic2000 = { basic: { dailyQuota: 2000, throttle: { rateLimit: 20, burstLimit: 40 } } };

  it('defaults to TIERS, and overrides only the quotas and throttling of the tiers given', () => {
    expect(tierQuotasWith()).toEqual(DEFAULT_TIER_QUOTAS);
    expect(DEFAULT_TIER_QUOTAS.basic).toEqual({ dailyQuota: TIERS.basic.dailyQuota, throttle: TIERS.basic.throttle });
    const policies = tierPoliciesWith(basic2000);
    expect(policies.basic).toEqual({ ...TIERS.basic, dailyQuota: 2000, throttle: { rateLimit: 20, burstLimit: 40 } });
    expect(policies.pro).toEqual(TIERS.pro);
  });

  it('accepts null for unlimited and not throttled', () => {
    expect(parseTierQuotas({ pro: { dailyQuota: null, throttle: null } }, 'q')).toEqual({ pro: { dailyQuota: null, throttle: null } });
  });

  it('refuses bad values with an error that names the key', () => {
    expect(() => parseTierQuotas([], 'q')).toThrow(/^q must be an object keyed by tier/);
    expect(() => parseTierQuotas({ gold: { dailyQuota: 1, throttle: null } }, 'q')).toThrow(/^q\.gold is not a tier/);
    expect(() => parseTierQuotas({ basic: { dailyQuota: -1, throttle: null } }, 'q')).toThrow(/^q\.basic\.dailyQuota must be a whole number/);
    expect(() => parseTierQuotas({ basic: { dailyQuota: 1.5, throttle: null } }, 'q')).toThrow(/^q\.basic\.dailyQuota/);
    expect(() => parseTierQuotas({ basic: { dailyQuota: '1000', throttle: null } }, 'q')).toThrow(/^q\.basic\.dailyQuota/);
    expect(() => parseTierQuotas({ basic: { dailyQuota: 1000 } }, 'q')).toThrow(/^q\.basic\.throttle is required/);
    expect(() => parseTierQuotas({ basic: { dailyQuota: 1000, throttle: null, monthly: 5 } }, 'q')).toThrow(/^q\.basic\.monthly is not a setting/);
    expect(() => parseTierQuotas({ basic: { dailyQuota: 1000, throttle: { rateLimit: 0, burstLimit: 5 } } }, 'q')).toThrow(/^q\.basic\.throttle\.rateLimit/);
    expect(() => parseTierQuotas({ basic: { dailyQuota: 1000, throttle: { rateLimit: 5, burstLimit: 0.5 } } }, 'q')).toThrow(/^q\.basic\.throttle\.burstLimit/);
  });

  it('reads TIER_QUOTAS in the functions, and keeps TIERS without it (the local server)', () => {
    expect(tierPoliciesFromEnv({})).toBe(TIERS);
    expect(tierPoliciesFromEnv({ [TIER_QUOTAS_ENV]: JSON.stringify(tierQuotasWith(basic2000)) }).basic.dailyQuota).toBe(2000);
    expect(() => tierPoliciesFromEnv({ [TIER_QUOTAS_ENV]: '{' })).toThrow(/TIER_QUOTAS is not JSON/);
    expect(() => tierPoliciesFromEnv({ [TIER_QUOTAS_ENV]: '{"basic":{"dailyQuota":-5,"throttle":null}}' })).toThrow(/TIER_QUOTAS\.basic\.dailyQuota/);
    expect(createAwsServices({ [TIER_QUOTAS_ENV]: JSON.stringify(basic2000) }).tiers?.basic.dailyQuota).toBe(2000);
  });

  it('is what admitRequest counts against and reports in the rate-limit headers', async () => {
    const meter: UsageMeter = {
      consume: async (_key, _day, limit) => ({ allowed: limit === null || limit > 1500, used: 1500 }),
      used: async () => 1500,
      record: async () => {},
      history: async () => [],
      hourly: async () => [],
    };
    const now = new Date('2026-11-22T12:00:00Z');
    const headers = await admitRequest({ keyId: 'k', tier: 'basic' }, 'api', meter, now, tierPoliciesWith(basic2000));
    expect(headers).toEqual({ 'X-RateLimit-Limit': '2000', 'X-RateLimit-Remaining': '500' });
    await expect(admitRequest({ keyId: 'k', tier: 'basic' }, 'api', meter, now)).rejects.toMatchObject({ status: 429 });
  });
});
