import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PLAN,
  DERIVED_OWNER_DOMAIN,
  derivedOwnerEmail,
  generateAccountId,
  highestTier,
  isAccountId,
  newAccount,
  normalisedEmail,
  ownerEmailOf,
  ownerOfKeyOwner,
  planOf,
} from '../../lambdas/core/accounts/account';
import { type AuditDetail, auditEntry, InvalidAuditEntry } from '../../lambdas/core/accounts/audit';
import { ServiceError } from '../../lambdas/core/errors';

describe('account rules', () => {
  it('normalises owner e-mails and refuses what is not one', () => {
    expect(normalisedEmail('  Dev@Acme.ORG ')).toBe('dev@acme.org');
    expect(normalisedEmail('first.last+tag@sub.example.co.uk')).toBe('first.last+tag@sub.example.co.uk');
    for (const bad of ['acme', 'a@b', '@example.org', 'a b@example.org', 'a@@example.org', '<a@example.org>', `${'a'.repeat(250)}@example.org`, '']) {
      expect(normalisedEmail(bad), bad).toBeNull();
    }
  });

  it('answers a bad e-mail or plan with a 400 naming the field', () => {
    const error = (() => {
      try {
        ownerEmailOf('not-an-email');
      } catch (e) {
        return e as ServiceError;
      }
    })();
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_PARAMETER', details: [{ field: 'owner_email' }] });
    expect(ownerEmailOf(' X@Example.org ')).toBe('x@example.org');
    expect(planOf('pro')).toBe('pro');
    expect(() => planOf('gold')).toThrow(ServiceError);
    expect(() => planOf(undefined)).toThrow(/plan/);
  });

  it('gives a new account an acct_ id and the default plan, basic', () => {
    const now = new Date('2026-11-29T06:00:00.000Z');
    const account = newAccount({ owner_email: 'dev@acme.org' }, randomBytes, now);
    expect(DEFAULT_PLAN).toBe('basic');
    expect(account).toEqual({
      account_id: expect.stringMatching(/^acct_[0-9A-Za-z]{16}$/),
      owner_email: 'dev@acme.org',
      plan: 'basic',
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    });
    expect(newAccount({ owner_email: 'dev@acme.org', plan: 'pro' }, randomBytes, now).plan).toBe('pro');
    expect(isAccountId(generateAccountId(randomBytes))).toBe(true);
    expect(isAccountId('acct_short')).toBe(false);
  });

  it('derives a deterministic, undeliverable owner e-mail from an owner that is not one', () => {
    const acme = derivedOwnerEmail('Acme Data Team');
    expect(acme).toMatch(new RegExp(`^acme-data-team-[0-9a-f]{12}@${DERIVED_OWNER_DOMAIN.replace('.', '\\.')}$`));
    expect(derivedOwnerEmail('Acme Data Team')).toBe(acme);
    // Owners that slug alike still get apart accounts.
    expect(derivedOwnerEmail('acme data team')).not.toBe(acme);
    expect(normalisedEmail(acme)).toBe(acme);
    expect(derivedOwnerEmail('***')).toMatch(/^owner-[0-9a-f]{12}@/);
    expect(ownerOfKeyOwner('acme')).toEqual({ owner_email: derivedOwnerEmail('acme'), legacy_owner: 'acme' });
    expect(ownerOfKeyOwner('Ops@Acme.org')).toEqual({ owner_email: 'ops@acme.org' });
  });

  it('ranks tiers for the migration', () => {
    expect(highestTier(['basic', 'developer', 'pro'])).toBe('developer');
    expect(highestTier(['free', 'basic'])).toBe('basic');
    expect(highestTier([])).toBeNull();
  });
});

describe('audit entries', () => {
  const base = { account_id: 'acct_1', at: '2026-11-29T06:00:00.000Z', actor: 'owner' as const, action: 'key.created' as const, target: 'key_1' };

  it('keeps a small flat detail', () => {
    expect(auditEntry({ ...base, detail: { tier: 'pro', grace_hours: 24, moved: true, note: null } })).toEqual({
      ...base,
      detail: { tier: 'pro', grace_hours: 24, moved: true, note: null },
    });
  });

  it('refuses keys, webhook secrets, tokens, e-mail addresses, nesting and size in the detail', () => {
    const details: AuditDetail[] = [
      { key: 'gcf_live_0123456789abcdef0123456789abcdef' },
      { secret: 'whsec_c2VjcmV0' },
      { token: 'eyJhbGciOiJSUzI1NiJ9.e30.sig' },
      { owner: 'dev@acme.org' },
      { nested: { a: 1 } as unknown as string },
      { long: 'x'.repeat(201) },
      Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`f${i}`, i])),
    ];
    for (const detail of details) {
      expect(() => auditEntry({ ...base, detail }), JSON.stringify(detail).slice(0, 40)).toThrow(InvalidAuditEntry);
    }
  });
});
