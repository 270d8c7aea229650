import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivedOwnerEmail } from '../../lambdas/core/accounts/account';
import { createKey } from '../../lambdas/core/use-cases/manage-keys';
import { startEmbeddedStack } from '../../local/embedded-stack';
import { runAdmin, runAdminJson } from '../support/admin-cli';

/** `admin accounts …` and `keys create --account` with --json on a stopped local state folder, as an operator runs them. */

let dataDir: string;
const json = (...args: string[]) => runAdminJson(args, dataDir);

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gcf-admin-accounts-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('admin accounts', () => {
  it("migrates keys made before accounts into their owners' accounts", async () => {
    // Keys an earlier version made: no account.
    const stack = await startEmbeddedStack({ dataDir, seed: false });
    const legacy = await createKey(stack.services.keys, { tier: 'pro', owner: 'Acme Team', label: 'old' }, randomBytes, new Date());
    await stack.close();

    const dryRun = await json('accounts', 'migrate', '--dry-run');
    expect(dryRun.document).toEqual([
      {
        key_id: legacy.record.key_id,
        owner: 'Acme Team',
        owner_email: derivedOwnerEmail('Acme Team'),
        owner_email_derived: true,
        account_id: null,
        account: 'planned',
        plan: 'pro',
      },
    ]);
    const migrated = await json('accounts', 'migrate');
    expect(migrated.document).toEqual([
      expect.objectContaining({ key_id: legacy.record.key_id, account: 'created', account_id: expect.stringMatching(/^acct_/) }),
    ]);
  });

  // Eight commands, each a process that opens the state folder: slow on a loaded machine.
  it('create, keys create --account, set-plan, show, audit and list', { timeout: 150_000 }, async () => {
    const created = await json('accounts', 'create', '--owner', 'Owner@Example.org', '--plan', 'basic');
    expect(created.document).toEqual({
      account_id: expect.stringMatching(/^acct_[0-9A-Za-z]{16}$/),
      owner_email: 'owner@example.org',
      plan: 'basic',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      legacy_owner: null,
    });
    const accountId = created.document.account_id as string;
    const again = await runAdmin(['accounts', 'create', '--owner', 'owner@example.org', '--data-dir', dataDir]);
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining(`owns account ${accountId} already`)]);

    const key = await json('keys', 'create', '--account', 'owner@example.org', '--label', 'ci');
    expect(key.document).toMatchObject({ account_id: accountId, tier: 'basic', owner: 'owner@example.org', key: expect.stringMatching(/^gcf_live_/) });

    const replanned = await json('accounts', 'set-plan', accountId, 'developer');
    expect(replanned.document).toMatchObject({ account_id: accountId, plan: 'developer', moved_keys: [key.document.key_id] });

    const shown = await json('accounts', 'show', 'owner@example.org', '--audit', '2');
    expect(shown.document).toMatchObject({
      account_id: accountId,
      plan: 'developer',
      keys: [{ key_id: key.document.key_id, tier: 'developer', state: 'active' }],
    });
    expect(shown.document.audit.map((e: { action: string }) => e.action)).toEqual(['plan.changed', expect.stringMatching(/^(key|account)\.created$/)]);
    expect(JSON.stringify(shown.document)).not.toMatch(/hash|gcf_live_[0-9A-Za-z]{32}/);

    const page = await json('accounts', 'audit', accountId, '--limit', '2');
    expect(page.document.entries).toHaveLength(2);
    const rest = await json('accounts', 'audit', accountId, '--limit', '2', '--before', page.document.next);
    expect(rest.document).toEqual({ account_id: accountId, entries: [expect.objectContaining({ actor: 'operator' })], next: null });

    const listed = await json('accounts', 'list');
    expect(listed.document.map((a: { owner_email: string }) => a.owner_email).sort()).toEqual([derivedOwnerEmail('Acme Team'), 'owner@example.org'].sort());
  });

  it('refuses a bad owner, an unknown account and keys create without an owner, with clear exit codes', async () => {
    const bad = await runAdmin(['accounts', 'create', '--owner', 'not-an-email', '--data-dir', dataDir]);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('owner_email must be an e-mail address')]);
    const unknown = await runAdmin(['accounts', 'show', 'acct_0000000000000000', '--data-dir', dataDir]);
    expect([unknown.code, unknown.stderr]).toEqual([1, expect.stringContaining('no account acct_0000000000000000')]);
    const ownerless = await runAdmin(['keys', 'create', '--data-dir', dataDir]);
    expect([ownerless.code, ownerless.stderr]).toEqual([2, expect.stringContaining('give --owner <email> or --account <id|email>')]);
  });
});
