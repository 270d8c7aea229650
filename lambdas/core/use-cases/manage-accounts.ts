import { AccountConflict, type AccountStore } from '../../ports/account-store';
import { type ApiKeyRecord, KeyStateConflict, type KeyStore } from '../../ports/key-store';
import { type Account, newAccount, ownerEmailOf, ownerOfKeyOwner } from '../accounts/account';
import { type AuditAction, type AuditActor, type AuditDetail, auditEntry } from '../accounts/audit';
import type { RandomBytes } from '../auth/api-keys';
import type { TierName } from '../auth/tiers';
import { notFound } from '../errors';
import { createKey, createKeyOnce, type IdempotentIssue, revokeKey, rotateKey } from './manage-keys';

/**
 * Accounts: found or made at sign-in (race-safe), made and re-planned by operators, and the keys
 * of an account. Every change is written to the account's audit log.
 */

export interface AccountPorts {
  accounts: AccountStore;
  keys: KeyStore;
}

export interface Making {
  randomBytes: RandomBytes;
  now: Date;
}

/** Writes one audit entry (checked: no secrets or addresses in the detail). */
export async function audit(
  accounts: AccountStore,
  accountId: string,
  change: { actor: AuditActor; action: AuditAction; target: string; detail?: AuditDetail },
  now: Date,
): Promise<void> {
  await accounts.appendAudit(auditEntry({ account_id: accountId, at: now.toISOString(), detail: {}, ...change }));
}

/** The account of an owner e-mail, made (and its creation audited) when there is none; `created` tells which. */
async function findOrCreate(
  accounts: AccountStore,
  request: { owner_email: string; plan?: TierName; legacy_owner?: string },
  actor: AuditActor,
  making: Making,
): Promise<{ account: Account; created: boolean }> {
  const existing = await accounts.findByOwner(request.owner_email);
  if (existing) return { account: existing, created: false };
  const outcome = await accounts.create(newAccount(request, making.randomBytes, making.now));
  if (outcome.created) {
    const detail = { plan: outcome.account.plan, ...(request.legacy_owner === undefined ? {} : { derived_owner: true }) };
    await audit(accounts, outcome.account.account_id, { actor, action: 'account.created', target: outcome.account.account_id, detail }, making.now);
  }
  return outcome;
}

/** The account of a verified sign-in e-mail; the first sign-in makes it on `defaultPlan`. A bad e-mail is a 400. */
export async function accountForSignIn(accounts: AccountStore, email: string, making: Making & { defaultPlan?: TierName }): Promise<Account> {
  return (await findOrCreate(accounts, { owner_email: ownerEmailOf(email, 'email'), plan: making.defaultPlan }, 'system', making)).account;
}

/** An operator's new account; AccountConflict when the e-mail has one already. */
export async function createAccount(accounts: AccountStore, request: { owner_email: string; plan?: TierName }, making: Making): Promise<Account> {
  const { account, created } = await findOrCreate(accounts, { owner_email: ownerEmailOf(request.owner_email), plan: request.plan }, 'operator', making);
  if (!created) throw new AccountConflict(`that e-mail owns account ${account.account_id} already`);
  return account;
}

/** The account a key's `owner` string names (a derived, flagged owner e-mail when it is not one), made on `plan` when missing. */
export function accountForKeyOwner(
  accounts: AccountStore,
  owner: string,
  plan: TierName | undefined,
  actor: AuditActor,
  making: Making,
): Promise<{ account: Account; created: boolean }> {
  return findOrCreate(accounts, { ...ownerOfKeyOwner(owner), plan }, actor, making);
}

/** An account by its id or its owner's e-mail; AccountConflict when none. */
export async function resolveAccount(accounts: AccountStore, idOrEmail: string): Promise<Account> {
  const account = idOrEmail.startsWith('acct_') ? await accounts.get(idOrEmail) : await accounts.findByOwner(ownerOfKeyOwner(idOrEmail).owner_email);
  if (!account) throw new AccountConflict(`no account ${idOrEmail}`);
  return account;
}

async function existingAccount(accounts: AccountStore, accountId: string): Promise<Account> {
  const account = await accounts.get(accountId);
  if (!account) throw new AccountConflict(`no account ${accountId}`);
  return account;
}

/**
 * Sets the plan, then moves every live key of the account to the plan's tier. A run that stops
 * half-way is finished by running it again; a key revoked meanwhile stays revoked.
 */
export async function setAccountPlan(
  ports: AccountPorts,
  accountId: string,
  plan: TierName,
  actor: AuditActor,
  now: Date,
): Promise<{ account: Account; moved: string[] }> {
  const before = await existingAccount(ports.accounts, accountId);
  const account = await ports.accounts.setPlan(accountId, plan, now.toISOString());
  const moved: string[] = [];
  for (const key of await ports.keys.listByAccount(accountId)) {
    if (key.revoked_at !== null || key.tier === plan) continue;
    try {
      await ports.keys.setTier(key.key_id, plan);
      moved.push(key.key_id);
    } catch (error) {
      if (!(error instanceof KeyStateConflict)) throw error;
    }
  }
  if (before.plan !== plan || moved.length > 0) {
    await audit(
      ports.accounts,
      accountId,
      { actor, action: 'plan.changed', target: accountId, detail: { from: before.plan, to: plan, keys_moved: moved.length } },
      now,
    );
  }
  return { account, moved };
}

/**
 * A key of the account, on the account's plan unless an operator names a tier; with an
 * idempotency key, a retry answers with the key made first (manage-keys.ts createKeyOnce).
 */
export async function createAccountKey(
  ports: AccountPorts,
  accountId: string,
  request: { label: string; tier?: TierName; idempotencyKey?: string },
  actor: AuditActor,
  making: Making,
): Promise<IdempotentIssue> {
  const account = await existingAccount(ports.accounts, accountId);
  const keyRequest = { tier: request.tier ?? account.plan, owner: account.legacy_owner ?? account.owner_email, label: request.label, account_id: accountId };
  const issued =
    request.idempotencyKey === undefined
      ? { ...(await createKey(ports.keys, keyRequest, making.randomBytes, making.now)), replayed: false }
      : await createKeyOnce(ports.keys, keyRequest, request.idempotencyKey, making.randomBytes, making.now);
  if (!issued.replayed) {
    await audit(ports.accounts, accountId, { actor, action: 'key.created', target: issued.record.key_id, detail: { tier: issued.record.tier } }, making.now);
  }
  return issued;
}

/** Audits a change made to a key by key id (the admin CLI's keys commands), when the key has an account. */
export async function auditKeyChange(
  accounts: AccountStore,
  key: ApiKeyRecord,
  change: { actor: AuditActor; action: AuditAction; detail?: AuditDetail },
  now: Date,
): Promise<void> {
  if (key.account_id) await audit(accounts, key.account_id, { ...change, target: key.key_id }, now);
}

/** A key of the account: another account's key, or none, is a 404 (never a 403, so ids reveal nothing). */
export async function accountKey(keys: KeyStore, accountId: string, keyId: string): Promise<ApiKeyRecord> {
  const key = await keys.get(keyId);
  if (!key || key.account_id !== accountId) throw notFound('key', keyId);
  return key;
}

export async function rotateAccountKey(ports: AccountPorts, accountId: string, keyId: string, graceHours: number, actor: AuditActor, making: Making) {
  await accountKey(ports.keys, accountId, keyId);
  const issued = await rotateKey(ports.keys, keyId, graceHours, making.randomBytes, making.now);
  await audit(ports.accounts, accountId, { actor, action: 'key.rotated', target: keyId, detail: { grace_hours: graceHours } }, making.now);
  return issued;
}

export async function revokeAccountKey(ports: AccountPorts, accountId: string, keyId: string, actor: AuditActor, now: Date): Promise<ApiKeyRecord> {
  const before = await accountKey(ports.keys, accountId, keyId);
  const record = await revokeKey(ports.keys, keyId, now);
  if (before.revoked_at === null) await audit(ports.accounts, accountId, { actor, action: 'key.revoked', target: keyId }, now);
  return record;
}
