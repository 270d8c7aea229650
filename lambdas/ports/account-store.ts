import type { Account } from '../core/accounts/account';
import type { AuditEntry } from '../core/accounts/audit';
import type { TierName } from '../core/auth/tiers';

/** No such account (an id or an e-mail no account has), or an e-mail that has one already. */
export class AccountConflict extends Error {}

export interface Page<T> {
  items: T[];
  /** Opaque: pass it back for the next page; null on the last. */
  next: string | null;
}

/** Accounts and their audit logs (the records table in AWS; the same adapter against dynalite locally). */
export interface AccountStore {
  get(accountId: string): Promise<Account | null>;
  /** The account whose owner_email is `email` (already normalised), or null. */
  findByOwner(email: string): Promise<Account | null>;
  /**
   * Creates the account unless its owner e-mail has one already. Race-safe: of two creates for
   * one e-mail, exactly one makes an account and both answer with it (`created` tells which).
   */
  create(account: Account): Promise<{ account: Account; created: boolean }>;
  /** Sets the plan (and updated_at); AccountConflict when there is no such account. */
  setPlan(accountId: string, plan: TierName, now: string): Promise<Account>;
  appendAudit(entry: AuditEntry): Promise<void>;
  /** The account's audit entries, newest first, `limit` at a time; `before` is a page's `next`. A malformed cursor is a 400. */
  listAudit(accountId: string, options: { limit: number; before?: string }): Promise<Page<AuditEntry>>;
  /** Every account, by account id, `limit` at a time; `after` is a page's `next`. */
  listAccounts(options: { limit: number; after?: string }): Promise<Page<Account>>;
}
