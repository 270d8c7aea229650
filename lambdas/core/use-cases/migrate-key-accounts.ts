import type { ApiKeyRecord } from '../../ports/key-store';
import { highestTier, ownerOfKeyOwner } from '../accounts/account';
import type { TierName } from '../auth/tiers';
import { type AccountPorts, accountForKeyOwner, audit, type Making } from './manage-accounts';

/** What the migration did (or, on a dry run, would do) with one key. */
export interface KeyAccountMigration {
  key_id: string;
  owner: string;
  owner_email: string;
  /** True when the owner string is not an e-mail and owner_email was derived from it. */
  owner_email_derived: boolean;
  /** null on a dry run for an account still to be made. */
  account_id: string | null;
  /** 'created' (this run made it), 'existing', or 'planned' on a dry run. */
  account: 'created' | 'existing' | 'planned';
  plan: TierName;
}

/**
 * Puts every key made before accounts into the account of its `owner` (by normalised e-mail, or an
 * e-mail derived from a non-e-mail owner), making the account when missing on the highest tier among
 * that owner's live keys. Keys keep their tiers. Each key is assigned on its own with conditional
 * writes, so a run that stops half-way is resumed by running it again, and a second run does nothing.
 */
export async function migrateKeyAccounts(ports: AccountPorts, making: Making, options: { dryRun: boolean }): Promise<KeyAccountMigration[]> {
  const byOwnerEmail = new Map<string, ApiKeyRecord[]>();
  for (const key of await ports.keys.list()) {
    if (key.account_id) continue;
    const { owner_email } = ownerOfKeyOwner(key.owner);
    byOwnerEmail.set(owner_email, [...(byOwnerEmail.get(owner_email) ?? []), key]);
  }
  const done: KeyAccountMigration[] = [];
  for (const [ownerEmail, keys] of byOwnerEmail) {
    const live = keys.filter((k) => k.revoked_at === null);
    const plan = highestTier((live.length > 0 ? live : keys).map((k) => k.tier))!;
    const derived = ownerOfKeyOwner(keys[0]!.owner).legacy_owner !== undefined;
    const row = (key: ApiKeyRecord, accountId: string | null, account: KeyAccountMigration['account'], accountPlan: TierName) => ({
      key_id: key.key_id,
      owner: key.owner,
      owner_email: ownerEmail,
      owner_email_derived: derived,
      account_id: accountId,
      account,
      plan: accountPlan,
    });
    if (options.dryRun) {
      const existing = await ports.accounts.findByOwner(ownerEmail);
      for (const key of keys) done.push(row(key, existing?.account_id ?? null, existing ? 'existing' : 'planned', existing?.plan ?? plan));
      continue;
    }
    const { account, created } = await accountForKeyOwner(ports.accounts, keys[0]!.owner, plan, 'system', making);
    for (const key of keys) {
      await ports.keys.assignAccount(key.key_id, account.account_id);
      await audit(
        ports.accounts,
        account.account_id,
        { actor: 'system', action: 'key.joined_account', target: key.key_id, detail: { tier: key.tier } },
        making.now,
      );
      done.push(row(key, account.account_id, created ? 'created' : 'existing', account.plan));
    }
  }
  return done;
}
