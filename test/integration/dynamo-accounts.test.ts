import { randomBytes } from 'node:crypto';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoAccountStore } from '../../lambdas/adapters/aws/dynamo-account-store';
import { DynamoKeyStore } from '../../lambdas/adapters/aws/dynamo-key-store';
import { newAccount } from '../../lambdas/core/accounts/account';
import { ServiceError } from '../../lambdas/core/errors';
import {
  accountForSignIn,
  accountKey,
  audit,
  createAccount,
  createAccountKey,
  resolveAccount,
  revokeAccountKey,
  setAccountPlan,
} from '../../lambdas/core/use-cases/manage-accounts';
import { createKey, revokeKey } from '../../lambdas/core/use-cases/manage-keys';
import { AccountConflict } from '../../lambdas/ports/account-store';
import { KeyStateConflict } from '../../lambdas/ports/key-store';
import { type DynaliteTable, startDynaliteTable } from '../support/dynalite-table';

/** The account store and the key store's account links on dynalite, through the use cases. */

const TABLE = 'gcf-records';
let table: DynaliteTable;
let accounts: DynamoAccountStore;
let keys: DynamoKeyStore;
const making = () => ({ randomBytes, now: new Date() });
// After every real "now" of the run, so these entries are the newest.
const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 6, minute));

beforeAll(async () => {
  table = await startDynaliteTable(TABLE);
  accounts = new DynamoAccountStore(table.client(), TABLE);
  keys = new DynamoKeyStore(table.client(), TABLE);
});
afterAll(() => table?.close());

describe('accounts in the records table', () => {
  it('makes exactly one account when first sign-ins of one e-mail race', async () => {
    const signIns = await Promise.all(
      Array.from({ length: 8 }, (_, i) => accountForSignIn(accounts, i % 2 ? 'Race@Example.org' : 'race@example.org', making())),
    );
    const ids = new Set(signIns.map((a) => a.account_id));
    expect(ids.size).toBe(1);
    expect(signIns[0]).toMatchObject({ owner_email: 'race@example.org', plan: 'basic' });
    const created = (await accounts.listAudit(signIns[0]!.account_id, { limit: 10 })).items.filter((e) => e.action === 'account.created');
    expect(created).toEqual([expect.objectContaining({ actor: 'system', detail: { plan: 'basic' } })]);
    expect(await accountForSignIn(accounts, 'race@example.org', making())).toEqual(signIns[0]);
    await expect(accountForSignIn(accounts, 'not an e-mail', making())).rejects.toMatchObject({ status: 400, details: [{ field: 'email' }] });
  });

  it('finishes an account whose create stopped after claiming the e-mail', async () => {
    const account = newAccount({ owner_email: 'halfway@example.org', plan: 'pro' }, randomBytes, new Date());
    await accounts.create(account);
    const doc = DynamoDBDocumentClient.from(table.client());
    await doc.send(new DeleteCommand({ TableName: TABLE, Key: { pk: `account#${account.account_id}`, sk: 'account' } }));
    expect(await accounts.get(account.account_id)).toBeNull();
    expect(await accounts.findByOwner('halfway@example.org')).toEqual(account);
    expect(await accounts.get(account.account_id)).toEqual(account);
  });

  it('refuses a second account for an e-mail, and resolves accounts by id or e-mail', async () => {
    const account = await createAccount(accounts, { owner_email: 'Ops@Acme.org', plan: 'pro' }, making());
    await expect(createAccount(accounts, { owner_email: 'ops@acme.org' }, making())).rejects.toThrow(AccountConflict);
    expect(await resolveAccount(accounts, account.account_id)).toEqual(account);
    expect(await resolveAccount(accounts, ' OPS@acme.org')).toEqual(account);
    await expect(resolveAccount(accounts, 'acct_0000000000000000')).rejects.toThrow(AccountConflict);
    await expect(accounts.setPlan('acct_0000000000000000', 'pro', new Date().toISOString())).rejects.toThrow(AccountConflict);
  });

  it("lists an account's keys by its links, never another account's", async () => {
    const mine = await createAccount(accounts, { owner_email: 'mine@example.org', plan: 'pro' }, making());
    const theirs = await createAccount(accounts, { owner_email: 'theirs@example.org' }, making());
    const first = await createAccountKey({ accounts, keys }, mine.account_id, { label: 'one' }, 'owner', { randomBytes, now: at(1) });
    const second = await createAccountKey({ accounts, keys }, mine.account_id, { label: 'two' }, 'owner', { randomBytes, now: at(2) });
    const other = await createAccountKey({ accounts, keys }, theirs.account_id, { label: 'other' }, 'owner', making());
    await revokeKey(keys, second.record.key_id, new Date());
    const listed = await keys.listByAccount(mine.account_id);
    expect(listed.map((k) => [k.key_id, k.tier, k.account_id, k.owner])).toEqual([
      [first.record.key_id, 'pro', mine.account_id, 'mine@example.org'],
      [second.record.key_id, 'pro', mine.account_id, 'mine@example.org'],
    ]);
    expect(listed[1]!.revoked_at).not.toBeNull();
    expect((await keys.listByAccount(theirs.account_id)).map((k) => k.key_id)).toEqual([other.record.key_id]);
    expect(await keys.listByAccount('acct_nobody')).toEqual([]);

    // Another account's key is a 404, as a key that does not exist.
    await expect(accountKey(keys, theirs.account_id, first.record.key_id)).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await expect(revokeAccountKey({ accounts, keys }, theirs.account_id, first.record.key_id, 'owner', new Date())).rejects.toBeInstanceOf(ServiceError);
    expect((await keys.get(first.record.key_id))!.revoked_at).toBeNull();
  });

  it('assigns a key made before accounts once, and never to a second account', async () => {
    const a = await createAccount(accounts, { owner_email: 'assign-a@example.org' }, making());
    const b = await createAccount(accounts, { owner_email: 'assign-b@example.org' }, making());
    const { record } = await createKey(keys, { tier: 'basic', owner: 'assign-a@example.org', label: 'old' }, randomBytes, new Date());
    expect(await keys.listByAccount(a.account_id)).toEqual([]);
    expect((await keys.assignAccount(record.key_id, a.account_id)).account_id).toBe(a.account_id);
    expect((await keys.assignAccount(record.key_id, a.account_id)).account_id).toBe(a.account_id);
    await expect(keys.assignAccount(record.key_id, b.account_id)).rejects.toThrow(KeyStateConflict);
    await expect(keys.assignAccount('key_missing', b.account_id)).rejects.toThrow(KeyStateConflict);
    expect((await keys.listByAccount(a.account_id)).map((k) => k.key_id)).toEqual([record.key_id]);
    expect(await keys.listByAccount(b.account_id)).toEqual([]);
  });

  it("moves every live key to a new plan's tier and audits it; a revoked key stays as it was", async () => {
    const account = await createAccount(accounts, { owner_email: 'plans@example.org', plan: 'basic' }, making());
    const live = await createAccountKey({ accounts, keys }, account.account_id, { label: 'live' }, 'operator', making());
    const revoked = await createAccountKey({ accounts, keys }, account.account_id, { label: 'gone' }, 'operator', making());
    await revokeKey(keys, revoked.record.key_id, new Date());
    const { account: changed, moved } = await setAccountPlan({ accounts, keys }, account.account_id, 'developer', 'operator', at(30));
    expect(changed).toMatchObject({ plan: 'developer', updated_at: at(30).toISOString(), created_at: account.created_at });
    expect(moved).toEqual([live.record.key_id]);
    expect((await keys.get(live.record.key_id))!.tier).toBe('developer');
    expect((await keys.get(revoked.record.key_id))!.tier).toBe('basic');
    expect((await accounts.get(account.account_id))!.plan).toBe('developer');
    const [latest] = (await accounts.listAudit(account.account_id, { limit: 1 })).items;
    expect(latest).toEqual({
      account_id: account.account_id,
      at: at(30).toISOString(),
      actor: 'operator',
      action: 'plan.changed',
      target: account.account_id,
      detail: { from: 'basic', to: 'developer', keys_moved: 1 },
    });
    // A key made afterwards takes the plan.
    expect((await createAccountKey({ accounts, keys }, account.account_id, { label: 'new' }, 'owner', making())).record.tier).toBe('developer');
  });

  it('lists audit entries newest first, a page at a time, and refuses a forged cursor', async () => {
    const { account_id } = await createAccount(accounts, { owner_email: 'audited@example.org' }, { randomBytes, now: at(0) });
    for (let minute = 1; minute <= 5; minute++)
      await audit(accounts, account_id, { actor: 'owner', action: 'key.rotated', target: `key_${minute}` }, at(minute));
    const targets: string[] = [];
    let before: string | undefined;
    let pages = 0;
    do {
      const page = await accounts.listAudit(account_id, { limit: 2, before });
      expect(page.items.length).toBeLessThanOrEqual(2);
      targets.push(...page.items.map((e) => e.target));
      before = page.next ?? undefined;
      pages++;
    } while (before);
    expect(targets).toEqual(['key_5', 'key_4', 'key_3', 'key_2', 'key_1', account_id]);
    expect(pages).toBe(3);
    const other = await createAccount(accounts, { owner_email: 'other-audit@example.org' }, making());
    expect((await accounts.listAudit(other.account_id, { limit: 50 })).items.map((e) => e.action)).toEqual(['account.created']);
    for (const forged of ['not a cursor!', Buffer.from('key#x').toString('base64url')]) {
      await expect(accounts.listAudit(account_id, { limit: 2, before: forged })).rejects.toMatchObject({ status: 400, details: [{ field: 'before' }] });
    }
  });

  it('pages through every account, skipping a directory entry whose account a stopped create never wrote', async () => {
    const doc = DynamoDBDocumentClient.from(table.client());
    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'accounts', sk: 'account#acct_0000000000000000', account_id: 'acct_0000000000000000' } }));
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await accounts.listAccounts({ limit: 3, after });
      seen.push(...page.items.map((a) => a.account_id));
      after = page.next ?? undefined;
    } while (after);
    expect(seen.length).toBeGreaterThanOrEqual(10);
    expect(seen).not.toContain('acct_0000000000000000');
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort());
    expect(seen).toContain((await accounts.findByOwner('audited@example.org'))!.account_id);
  });
});
