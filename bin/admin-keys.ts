// The admin CLI's key commands (`keys …`): create, list, rotate, revoke, set-tier, usage, requests, migrate-gateway-keys, on the local state or a stage.
// Every new key joins an account; changes to a key of an account are written to its audit log.
import { randomBytes } from 'node:crypto';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { isTierName, TIER_NAMES, TIERS, type TierName } from '../lambdas/core/auth/tiers';
import { accountForKeyOwner, auditKeyChange, createAccountKey, resolveAccount } from '../lambdas/core/use-cases/manage-accounts';
import {
  DEFAULT_ROTATION_GRACE_HOURS,
  IDEMPOTENCY_HOURS,
  keyUsage,
  listKeys,
  MAX_ROTATION_GRACE_HOURS,
  revokeKey,
  rotateKey,
  setKeyTier,
} from '../lambdas/core/use-cases/manage-keys';
import { migrateGatewayKeys } from '../lambdas/core/use-cases/migrate-gateway-keys';
import type { AccountStore } from '../lambdas/ports/account-store';
import type { LegacyGatewayKeys } from '../lambdas/ports/gateway-keys';
import type { ApiKeyRecord, KeyStore } from '../lambdas/ports/key-store';
import type { RequestLog } from '../lambdas/ports/request-log';
import type { UsageMeter } from '../lambdas/ports/usage-meter';
import { awsKeyPorts } from '../local/aws-target';
import { type AdminContext, note } from './admin-context';
import { addKeyRequestsCommand, printHourlyUsage } from './admin-key-requests';
import { emit } from './admin-output';
import { type TargetOptions, wholeNumber, withTargetOptions } from './admin-targets';

/** The key store, usage meter, request log and accounts of the target (the embedded stack's, or the stage's table), and in AWS its legacy gateway keys. */
export async function withKeyPorts<T>(
  context: AdminContext,
  opts: TargetOptions,
  run: (ports: { keys: KeyStore; meter: UsageMeter; accounts: AccountStore; requestLog?: RequestLog; legacyGatewayKeys?: LegacyGatewayKeys }) => Promise<T>,
): Promise<T> {
  if (opts.target === 'local') return context.withLocalStack(opts.dataDir, (stack) => run({ ...stack.services, accounts: stack.accounts }));
  const ports = await awsKeyPorts({ stage: opts.stage, region: opts.region, tableName: opts.tableName });
  try {
    return await run(ports);
  } finally {
    ports.close();
  }
}

export function tierArgument(value: string): TierName {
  if (!isTierName(value)) throw new InvalidArgumentError(`unknown tier; use one of: ${TIER_NAMES.join(', ')}`);
  return value;
}

export function keyState(key: ApiKeyRecord, now: Date): string {
  if (key.revoked_at) return `revoked ${key.revoked_at}`;
  if (key.previous_valid_until && key.previous_valid_until > now.toISOString()) return `rotated; old key valid until ${key.previous_valid_until}`;
  return 'active';
}

/** What --json shows of a key: never its hashes or its API Gateway key value. */
export function publicKey(key: ApiKeyRecord) {
  return {
    key_id: key.key_id,
    prefix: key.prefix,
    tier: key.tier,
    owner: key.owner,
    account_id: key.account_id ?? null,
    label: key.label,
    created_at: key.created_at,
    revoked_at: key.revoked_at,
    rotated_at: key.rotated_at,
    previous_valid_until: key.previous_valid_until,
  };
}

/** Adds `keys` to the admin program. */
export function addKeyCommands(program: Command, context: AdminContext): void {
  const keysCommand = program.command('keys').description('API keys: create, list, rotate, revoke, set-tier, usage, requests, migrate-gateway-keys');

  withTargetOptions(keysCommand.command('create'))
    .description("issue a key of an account (the owner's, made when missing); it is shown once, only its SHA-256 is stored")
    .option('--tier <tier>', `one of ${TIER_NAMES.join(', ')} (default: the account's plan)`, tierArgument)
    .option('--owner <owner>', "who the key belongs to (an e-mail): the key joins this owner's account, made on --tier's plan when missing")
    .addOption(new Option('--account <id|email>', 'the account the key joins (instead of --owner)').conflicts('owner'))
    .option('--label <label>', 'what it is for', '')
    .option(
      '--idempotency-key <k>',
      `a retry with the same value within ${IDEMPOTENCY_HOURS} h answers with the key made first (its record; the key itself was shown then) instead of making a second`,
    )
    .action(async function (
      this: Command,
      opts: TargetOptions & { tier?: TierName; owner?: string; account?: string; label: string; idempotencyKey?: string },
    ) {
      const owner = opts.owner;
      if (owner === undefined && opts.account === undefined) this.error('error: give --owner <email> or --account <id|email>');
      await withKeyPorts(context, opts, async ({ keys, accounts }) => {
        const making = { randomBytes, now: new Date() };
        const account =
          opts.account !== undefined
            ? await resolveAccount(accounts, opts.account)
            : (await accountForKeyOwner(accounts, owner!, opts.tier, 'operator', making)).account;
        const { key, record, replayed } = await createAccountKey(
          { keys, accounts },
          account.account_id,
          { label: opts.label, tier: opts.tier, idempotencyKey: opts.idempotencyKey },
          'operator',
          making,
        );
        emit(context, opts, { ...publicKey(record), key, replayed }, () => [
          `key id ${record.key_id} (${record.tier}, owner ${record.owner})${replayed ? ': made earlier with this idempotency key' : ''}`,
          `account ${account.account_id}`,
          key ? `key    ${key}` : 'key    (shown once, when it was made)',
        ]);
        if (key) note(context, 'the key is shown this once: store it now');
        if (record.tier !== account.plan)
          note(context, `the key's tier ${record.tier} differs from its account's plan ${account.plan}: accounts set-plan moves it`);
      });
    });

  withTargetOptions(keysCommand.command('list'))
    .description('every key: prefix, tier, owner, created, last used, state')
    .action(async (opts: TargetOptions) => {
      await withKeyPorts(context, opts, async ({ keys, meter }) => {
        const now = new Date();
        const rows = await listKeys(keys, meter);
        emit(
          context,
          opts,
          rows.map((k) => ({ ...publicKey(k), last_used_at: k.last_used_at, state: keyState(k, now) })),
          () => [
            ['key id', 'prefix', 'tier', 'owner', 'label', 'created', 'last used', 'state'].join('\t'),
            ...rows.map((k) =>
              [k.key_id, `${k.prefix}…`, k.tier, k.owner, k.label || '-', k.created_at, k.last_used_at ?? 'never', keyState(k, now)].join('\t'),
            ),
          ],
        );
      });
    });

  withTargetOptions(keysCommand.command('rotate'))
    .description('issue a new key for the same account; the old one keeps working for the grace period')
    .argument('<key-id>')
    .option(
      '--grace-hours <hours>',
      'how long the old key keeps working',
      (v: string) => {
        const hours = Number(v);
        if (!Number.isFinite(hours) || hours < 0 || hours > MAX_ROTATION_GRACE_HOURS)
          throw new InvalidArgumentError(`must be a number of hours from 0 to ${MAX_ROTATION_GRACE_HOURS}`);
        return hours;
      },
      DEFAULT_ROTATION_GRACE_HOURS,
    )
    .action(async (keyId: string, opts: TargetOptions & { graceHours: number }) => {
      await withKeyPorts(context, opts, async ({ keys, accounts }) => {
        const { key, record } = await rotateKey(keys, keyId, opts.graceHours, randomBytes, new Date());
        await auditKeyChange(accounts, record, { actor: 'operator', action: 'key.rotated', detail: { grace_hours: opts.graceHours } }, new Date());
        emit(context, opts, { ...publicKey(record), key }, () => [
          `key id ${record.key_id}: new key issued; the old one works until ${record.previous_valid_until}`,
          `key    ${key}`,
        ]);
        note(context, 'the key is shown this once: store it now');
      });
    });

  withTargetOptions(keysCommand.command('revoke'))
    .description('stop a key at once (both its current and its rotated-out key)')
    .argument('<key-id>')
    .action(async (keyId: string, opts: TargetOptions) => {
      await withKeyPorts(context, opts, async ({ keys, accounts }) => {
        const before = await keys.get(keyId);
        const record = await revokeKey(keys, keyId, new Date());
        if (before?.revoked_at === null) await auditKeyChange(accounts, record, { actor: 'operator', action: 'key.revoked' }, new Date());
        emit(context, opts, publicKey(record), () => [`key id ${record.key_id} revoked ${record.revoked_at}`]);
      });
    });

  withTargetOptions(keysCommand.command('set-tier'))
    .description('move a key to another tier')
    .argument('<key-id>')
    .argument('<tier>', `one of ${TIER_NAMES.join(', ')}`, tierArgument)
    .action(async (keyId: string, tier: TierName, opts: TargetOptions) => {
      await withKeyPorts(context, opts, async ({ keys, accounts }) => {
        const before = await keys.get(keyId);
        const record = await setKeyTier(keys, keyId, tier);
        if (before && before.tier !== tier)
          await auditKeyChange(accounts, record, { actor: 'operator', action: 'key.tier_changed', detail: { from: before.tier, to: tier } }, new Date());
        emit(context, opts, publicKey(record), () => [`key id ${record.key_id} is now ${record.tier}`]);
      });
    });

  withTargetOptions(keysCommand.command('usage'))
    .description('requests, errors and p50/p95 response times per UTC day (or hour, with --by hour)')
    .argument('<key-id>')
    .option('--days <days>', 'how many days back', wholeNumber(1, 92, 'days'), 30)
    .addOption(new Option('--by <period>', 'one line per day or per hour').choices(['day', 'hour']).default('day'))
    .action(async (keyId: string, opts: TargetOptions & { days: number; by: 'day' | 'hour' }) => {
      await withKeyPorts(context, opts, async ({ keys, meter }) => {
        if (opts.by === 'hour') return printHourlyUsage(context, opts, { keys, meter }, keyId, opts.days);
        const { key, days } = await keyUsage(keys, meter, keyId, opts.days);
        const quota = TIERS[key.tier].dailyQuota;
        emit(
          context,
          opts,
          {
            key_id: key.key_id,
            tier: key.tier,
            daily_quota: quota,
            days: days.map((d) => ({
              day: d.day,
              requests: d.requests,
              errors: d.errors,
              errors_4xx: d.errors4xx,
              errors_5xx: d.errors5xx,
              rate_limited: d.rateLimited,
              responses: d.responses,
              p50_ms: d.p50Ms,
              p95_ms: d.p95Ms,
              last_used_at: d.lastUsedAt,
            })),
          },
          () => [
            `key id ${key.key_id} (${key.tier}, daily quota ${quota ?? 'unlimited'})`,
            ['day', 'requests', 'errors', 'error rate', 'p50 ms', 'p95 ms'].join('\t'),
            ...days.map((d) =>
              [d.day, d.requests, d.errors, d.responses > 0 ? `${((d.errors / d.responses) * 100).toFixed(1)}%` : '-', d.p50Ms ?? '-', d.p95Ms ?? '-'].join(
                '\t',
              ),
            ),
            ...(days.length === 0 ? ['(no requests yet)'] : []),
          ],
        );
      });
    });

  addKeyRequestsCommand(keysCommand, context, withKeyPorts);

  withTargetOptions(keysCommand.command('migrate-gateway-keys'))
    .description('delete the per-customer API Gateway keys of earlier versions and clear them from the key records (idempotent)')
    .option('--dry-run', 'list the keys it would migrate, change nothing', false)
    .action(async (opts: TargetOptions & { dryRun: boolean }) => {
      await withKeyPorts(context, opts, async ({ keys, legacyGatewayKeys }) => {
        const gateway: LegacyGatewayKeys = legacyGatewayKeys ?? {
          delete: async () => {
            throw new Error('the local state has no API Gateway keys: use --target aws');
          },
        };
        const migrated = await migrateGatewayKeys(keys, gateway, { dryRun: opts.dryRun });
        emit(context, opts, migrated, () => [
          ...migrated.map((m) => `key id ${m.key_id}\tgateway key ${m.api_key_id || '-'}\t${m.gateway_key}`),
          `${migrated.length} key${migrated.length === 1 ? '' : 's'} ${opts.dryRun ? 'to migrate (dry run: nothing changed)' : 'migrated'}`,
        ]);
      });
    });
}
