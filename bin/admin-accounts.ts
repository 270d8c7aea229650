// The admin CLI's account commands (`accounts …`): create, list, show, set-plan, audit and migrate,
// on the local state or a stage. Operators act as 'operator' in each account's audit log.
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import type { Account } from '../lambdas/core/accounts/account';
import { DEFAULT_PLAN } from '../lambdas/core/accounts/account';
import type { AuditEntry } from '../lambdas/core/accounts/audit';
import { TIER_NAMES, type TierName } from '../lambdas/core/auth/tiers';
import { createAccount, resolveAccount, setAccountPlan } from '../lambdas/core/use-cases/manage-accounts';
import { migrateKeyAccounts } from '../lambdas/core/use-cases/migrate-key-accounts';
import type { AccountStore } from '../lambdas/ports/account-store';
import type { AdminContext } from './admin-context';
import { keyState, publicKey, tierArgument, withKeyPorts } from './admin-keys';
import { emit } from './admin-output';
import { type TargetOptions, wholeNumber, withTargetOptions } from './admin-targets';

/** What --json shows of an account (every field: an account holds no secrets). */
const publicAccount = (account: Account) => ({ ...account, legacy_owner: account.legacy_owner ?? null });

const accountLine = (a: Account) =>
  [a.account_id, a.owner_email, a.plan, a.created_at, a.legacy_owner === undefined ? '-' : `derived from "${a.legacy_owner}"`].join('\t');
const auditLine = (e: AuditEntry) =>
  [
    e.at,
    e.actor,
    e.action,
    e.target,
    Object.entries(e.detail)
      .map(([name, value]) => `${name}=${value}`)
      .join(' ') || '-',
  ].join('\t');

async function everyAccount(accounts: AccountStore): Promise<Account[]> {
  const all: Account[] = [];
  let after: string | undefined;
  do {
    const page = await accounts.listAccounts({ limit: 100, after });
    all.push(...page.items);
    after = page.next ?? undefined;
  } while (after);
  return all;
}

/** Adds `accounts` to the admin program. */
export function addAccountCommands(program: Command, context: AdminContext): void {
  const accountsCommand = program
    .command('accounts')
    .description('accounts (an owner, a plan, keys, an audit log): create, list, show, set-plan, audit, migrate');
  const making = () => ({ randomBytes, now: new Date() });

  withTargetOptions(accountsCommand.command('create'))
    .description("make an account for an owner's e-mail (refused when the e-mail has one)")
    .requiredOption('--owner <email>', 'the owner: the e-mail they sign in with')
    .option('--plan <plan>', `one of ${TIER_NAMES.join(', ')}`, tierArgument, DEFAULT_PLAN)
    .action(async (opts: TargetOptions & { owner: string; plan: TierName }) => {
      await withKeyPorts(context, opts, async ({ accounts }) => {
        const account = await createAccount(accounts, { owner_email: opts.owner, plan: opts.plan }, making());
        emit(context, opts, publicAccount(account), () => [`account ${account.account_id} (${account.plan}, owner ${account.owner_email})`]);
      });
    });

  withTargetOptions(accountsCommand.command('list'))
    .description('every account: id, owner, plan, created')
    .action(async (opts: TargetOptions) => {
      await withKeyPorts(context, opts, async ({ accounts }) => {
        const all = await everyAccount(accounts);
        emit(context, opts, all.map(publicAccount), () => [['account id', 'owner', 'plan', 'created', 'legacy owner'].join('\t'), ...all.map(accountLine)]);
      });
    });

  withTargetOptions(accountsCommand.command('show'))
    .description('an account: its plan, its keys and its latest audit entries')
    .argument('<id|email>')
    .option('--audit <n>', 'how many audit entries', wholeNumber(0, 100, 'entries'), 10)
    .action(async (idOrEmail: string, opts: TargetOptions & { audit: number }) => {
      await withKeyPorts(context, opts, async ({ accounts, keys }) => {
        const now = new Date();
        const account = await resolveAccount(accounts, idOrEmail);
        const accountKeys = (await keys.listByAccount(account.account_id)).map((k) => ({ ...publicKey(k), state: keyState(k, now) }));
        const audit = opts.audit > 0 ? (await accounts.listAudit(account.account_id, { limit: opts.audit })).items : [];
        emit(context, opts, { ...publicAccount(account), keys: accountKeys, audit }, () => [
          `account ${account.account_id} (${account.plan}, owner ${account.owner_email}, created ${account.created_at})`,
          ...(account.legacy_owner === undefined ? [] : [`owner e-mail derived from the key owner "${account.legacy_owner}": no one can sign in to it`]),
          `keys (${accountKeys.length}):`,
          ...accountKeys.map((k) => ['', k.key_id, `${k.prefix}…`, k.tier, k.label || '-', k.created_at, k.state].join('\t')),
          `latest audit entries (${audit.length}):`,
          ...audit.map((e) => `\t${auditLine(e)}`),
        ]);
      });
    });

  withTargetOptions(accountsCommand.command('set-plan'))
    .description("change an account's plan and move every live key of it to the plan's tier")
    .argument('<id|email>')
    .argument('<plan>', `one of ${TIER_NAMES.join(', ')}`, tierArgument)
    .action(async (idOrEmail: string, plan: TierName, opts: TargetOptions) => {
      await withKeyPorts(context, opts, async ({ accounts, keys }) => {
        const { account_id } = await resolveAccount(accounts, idOrEmail);
        const { account, moved } = await setAccountPlan({ accounts, keys }, account_id, plan, 'operator', new Date());
        emit(context, opts, { ...publicAccount(account), moved_keys: moved }, () => [
          `account ${account.account_id} is now ${account.plan}; ${moved.length} key${moved.length === 1 ? '' : 's'} moved`,
        ]);
      });
    });

  withTargetOptions(accountsCommand.command('audit'))
    .description("an account's audit log, newest first")
    .argument('<id|email>')
    .option('--limit <n>', 'entries per page', wholeNumber(1, 500, 'entries'), 50)
    .option('--before <cursor>', 'the next page: the cursor the previous page printed')
    .action(async (idOrEmail: string, opts: TargetOptions & { limit: number; before?: string }) => {
      await withKeyPorts(context, opts, async ({ accounts }) => {
        const { account_id } = await resolveAccount(accounts, idOrEmail);
        const page = await accounts.listAudit(account_id, { limit: opts.limit, before: opts.before });
        emit(context, opts, { account_id, entries: page.items, next: page.next }, () => [
          ['at', 'actor', 'action', 'target', 'detail'].join('\t'),
          ...page.items.map(auditLine),
          ...(page.next ? [`more: --before ${page.next}`] : []),
        ]);
      });
    });

  withTargetOptions(accountsCommand.command('migrate'))
    .description("put every key made before accounts into its owner's account, made when missing (idempotent, resumable)")
    .option('--dry-run', 'list what it would do, change nothing', false)
    .action(async (opts: TargetOptions & { dryRun: boolean }) => {
      await withKeyPorts(context, opts, async ({ accounts, keys }) => {
        const migrated = await migrateKeyAccounts({ accounts, keys }, making(), { dryRun: opts.dryRun });
        emit(context, opts, migrated, () => [
          ...migrated.map((m) =>
            [
              `key id ${m.key_id}`,
              `account ${m.account_id ?? '(new)'}`,
              m.account,
              m.owner_email_derived ? `${m.owner_email} (derived)` : m.owner_email,
              m.plan,
            ].join('\t'),
          ),
          `${migrated.length} key${migrated.length === 1 ? '' : 's'} ${opts.dryRun ? 'to migrate (dry run: nothing changed)' : 'migrated'}`,
        ]);
      });
    });
}
