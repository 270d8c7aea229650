import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoAccountStore } from '../../lambdas/adapters/aws/dynamo-account-store';
import { DynamoKeyStore } from '../../lambdas/adapters/aws/dynamo-key-store';
import { derivedOwnerEmail, newAccount } from '../../lambdas/core/accounts/account';
import type { TierName } from '../../lambdas/core/auth/tiers';
import { createAccountKey } from '../../lambdas/core/use-cases/manage-accounts';
import { createKey, revokeKey } from '../../lambdas/core/use-cases/manage-keys';
import { migrateKeyAccounts } from '../../lambdas/core/use-cases/migrate-key-accounts';
import type { KeyStore } from '../../lambdas/ports/key-store';
import { type DynaliteTable, startDynaliteTable } from '../support/dynalite-table';

/** `accounts migrate`: keys made before accounts join their owner's account, on dynalite. */

const TABLE = 'gcf-records';
let table: DynaliteTable;
let accounts: DynamoAccountStore;
let keys: DynamoKeyStore;
const making = () => ({ randomBytes, now: new Date() });

const legacyKey = async (owner: string, tier: TierName) => (await createKey(keys, { tier, owner, label: 'legacy' }, randomBytes, new Date())).record.key_id;

/** The real key store, whose nth assignment from now fails (a throttle, a lost connection). */
function failingOnAssignment(store: KeyStore, n: number): KeyStore {
  let calls = 0;
  return Object.assign(Object.create(store) as KeyStore, {
    assignAccount: (keyId: string, accountId: string) => {
      if (++calls === n) return Promise.reject(new Error('throttled'));
      return store.assignAccount(keyId, accountId);
    },
  });
}

beforeAll(async () => {
  table = await startDynaliteTable(TABLE);
  accounts = new DynamoAccountStore(table.client(), TABLE);
  keys = new DynamoKeyStore(table.client(), TABLE);
});
afterAll(() => table?.close());

describe('accounts migrate', () => {
  it('groups keys by owner, makes accounts on the highest live tier, resumes after a failure, and then has nothing to do', async () => {
    const devBasic = await legacyKey('Dev@Acme.org', 'basic');
    const devPro = await legacyKey('dev@acme.org', 'pro');
    const devRevoked = await legacyKey('dev@acme.org', 'developer');
    await revokeKey(keys, devRevoked, new Date());
    const team = await legacyKey('Acme Data Team', 'developer');
    // An account that exists already keeps its plan, and its keys are left alone.
    const existing = await createAccountKey(
      { accounts, keys },
      (await accounts.create(newAccount({ owner_email: 'ops@acme.org' }, randomBytes, new Date()))).account.account_id,
      { label: 'x' },
      'operator',
      making(),
    );
    const opsLegacy = await legacyKey('OPS@acme.org', 'developer');

    const planned = await migrateKeyAccounts({ accounts, keys }, making(), { dryRun: true });
    expect(planned.map((m) => [m.key_id, m.owner_email, m.account, m.plan, m.owner_email_derived]).sort()).toEqual(
      [
        [devBasic, 'dev@acme.org', 'planned', 'pro', false],
        [devPro, 'dev@acme.org', 'planned', 'pro', false],
        [devRevoked, 'dev@acme.org', 'planned', 'pro', false],
        [team, derivedOwnerEmail('Acme Data Team'), 'planned', 'developer', true],
        [opsLegacy, 'ops@acme.org', 'existing', 'basic', false],
      ].sort(),
    );
    expect(await accounts.findByOwner('dev@acme.org')).toBeNull();

    await expect(migrateKeyAccounts({ accounts, keys: failingOnAssignment(keys, 2) }, making(), { dryRun: false })).rejects.toThrow('throttled');
    const resumed = await migrateKeyAccounts({ accounts, keys }, making(), { dryRun: false });
    expect(resumed.length).toBe(4); // the first key joined its account before the failure

    const dev = (await accounts.findByOwner('dev@acme.org'))!;
    expect(dev.plan).toBe('pro');
    expect((await keys.listByAccount(dev.account_id)).map((k) => [k.key_id, k.tier])).toEqual([
      [devBasic, 'basic'],
      [devPro, 'pro'],
      [devRevoked, 'developer'],
    ]);
    const teamAccount = (await accounts.findByOwner(derivedOwnerEmail('Acme Data Team')))!;
    expect(teamAccount).toMatchObject({ plan: 'developer', legacy_owner: 'Acme Data Team' });
    expect((await keys.listByAccount(teamAccount.account_id)).map((k) => k.key_id)).toEqual([team]);
    const ops = (await accounts.findByOwner('ops@acme.org'))!;
    expect(ops.plan).toBe('basic');
    expect((await keys.listByAccount(ops.account_id)).map((k) => k.key_id).sort()).toEqual([existing.record.key_id, opsLegacy].sort());
    for (const key of await keys.list()) expect(key.account_id, key.key_id).toEqual(expect.stringMatching(/^acct_/));

    const joined = (await accounts.listAudit(dev.account_id, { limit: 10 })).items.filter((e) => e.action === 'key.joined_account');
    expect(joined.map((e) => e.target).sort()).toEqual([devBasic, devPro, devRevoked].sort());
    expect(await migrateKeyAccounts({ accounts, keys }, making(), { dryRun: false })).toEqual([]);
  });
});
