import { describe, expect, it } from 'vitest';
import type { Account } from '../../lambdas/core/accounts/account';
import { tierPoliciesWith } from '../../lambdas/core/auth/tier-quotas';
import { accountView, keyView, planLimits } from '../../lambdas/core/use-cases/account-self-service';
import type { ApiKeyRecord } from '../../lambdas/ports/key-store';

const account: Account = {
  account_id: 'acct_0123456789abcdef',
  owner_email: 'dev@example.org',
  plan: 'pro',
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-02T00:00:00.000Z',
  legacy_owner: 'acme',
};

describe('planLimits and accountView', () => {
  it("shows the plan's limits from the stage's quotas when given, the defaults otherwise", () => {
    expect(planLimits('pro')).toEqual({ api_access: true, daily_quota: 10_000, matching: true, webhooks: false, rate: { per_second: 50, burst: 100 } });
    expect(planLimits('developer')).toEqual({ api_access: true, daily_quota: null, matching: true, webhooks: true, rate: null });
    const stage = tierPoliciesWith({ pro: { dailyQuota: 25_000, throttle: { rateLimit: 80, burstLimit: 160 } } });
    expect(planLimits('pro', stage)).toMatchObject({ daily_quota: 25_000, rate: { per_second: 80, burst: 160 } });
  });

  it('shows the account without its legacy owner string', () => {
    expect(accountView(account)).toEqual({
      account_id: 'acct_0123456789abcdef',
      owner_email: 'dev@example.org',
      plan: 'pro',
      limits: planLimits('pro'),
      created_at: '2026-11-01T00:00:00.000Z',
      updated_at: '2026-11-02T00:00:00.000Z',
    });
  });
});

describe('keyView', () => {
  it('never shows hashes, the owner string or a legacy gateway key', () => {
    const record: ApiKeyRecord = {
      key_id: 'key_a',
      prefix: 'gcf_live_AbCd',
      tier: 'basic',
      owner: 'dev@example.org',
      account_id: account.account_id,
      label: 'ci',
      created_at: '2026-11-01T00:00:00.000Z',
      revoked_at: null,
      current_hash: 'a'.repeat(64),
      previous_hash: 'b'.repeat(64),
      previous_valid_until: '2026-11-03T00:00:00.000Z',
      rotated_at: '2026-11-02T00:00:00.000Z',
      usage_key: 'legacy-value',
      api_key_id: 'legacy-id',
    };
    expect(keyView(record, '2026-11-02T10:00:00.000Z')).toEqual({
      key_id: 'key_a',
      prefix: 'gcf_live_AbCd',
      label: 'ci',
      tier: 'basic',
      created_at: '2026-11-01T00:00:00.000Z',
      rotated_at: '2026-11-02T00:00:00.000Z',
      previous_valid_until: '2026-11-03T00:00:00.000Z',
      revoked_at: null,
      last_used_at: '2026-11-02T10:00:00.000Z',
    });
  });
});
