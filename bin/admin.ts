// `npm run admin -- <command>`: platform commands against the local state (.local/) or a deployed stage.
// The pinned AWS SDK runs on this machine's Node 20; its notice that 2027 releases need Node 22 is
// for whoever upgrades the SDK, not for every command.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ingestFiles } from '../lambdas/adapters/source-files/ingest-files';
import { SourceFileError } from '../lambdas/adapters/source-files/read-source-files';
import { SOURCE_FORMAT_IDS, SOURCE_FORMATS, sourceFormatById } from '../lambdas/core/ingest/formats';
import type { ChangeEventType } from '../lambdas/core/change-feed';
import { parseListQuery } from '../lambdas/core/query/list-query';
import { RESOURCE_KINDS, type ResourceKind } from '../lambdas/core/records';
import type { IngestPorts } from '../lambdas/core/use-cases/ingest-records';
import { reindexRecords } from '../lambdas/core/use-cases/reindex-records';
import { TIER_NAMES, TIERS, isTierName, type TierName } from '../lambdas/core/auth/tiers';
import { createKey, DEFAULT_ROTATION_GRACE_HOURS, keyUsage, listKeys, revokeKey, rotateKey, setKeyTier } from '../lambdas/core/use-cases/manage-keys';
import { KeyStateConflict, type ApiKeyRecord, type KeyStore } from '../lambdas/ports/key-store';
import type { UsageMeter } from '../lambdas/ports/usage-meter';
import type { UsagePlanKeys } from '../lambdas/ports/usage-plans';
import { utcDate } from '../lambdas/ports/clock';
import { AwsTargetError, awsIngestPorts, awsKeyPorts, awsReindexPorts } from '../local/aws-target';
import { InvalidFilter } from '../lambdas/core/webhooks/saved-search';
import { DestinationRefused } from '../lambdas/core/webhooks/destination-policy';
import { WebhookConflict } from '../lambdas/ports/webhook-store';
import { DEFAULT_DATA_DIR, removeLocalIndex } from '../local/embedded-stack';
import { ingestReporter } from '../local/ingest-report';
import { withLocalStack, withTargetOptions, type TargetOptions } from './admin-targets';
import { addWebhookCommands } from './admin-webhooks';

/** The exit codes scripts can rely on (docs/admin.md). */
const EXIT = { ok: 0, failure: 1, usage: 2, rejections: 3 } as const;

// exitOverride before any command is added, so every subcommand inherits it: a usage error throws
// a CommanderError (its message already printed) that the handler at the end turns into exit 2.
const program = new Command('admin').description('Grants, Contracts and Funders Data Service: platform commands')
  .exitOverride()
  .addHelpText('after', `\nExit codes: ${EXIT.ok} success, ${EXIT.failure} failure, ${EXIT.usage} usage error (an unknown command or option, a bad value), ${EXIT.rejections} ingest --strict with rejections.`);

withTargetOptions(program.command('ingest'))
  .description('import public source files (Grants.gov, SAM.gov, NSF, USAspending, Federal Hierarchy) into the catalogue')
  .argument('<paths...>', 'files or folders (.xml, .csv, .json, .jsonl)')
  .addOption(new Option('--format <format>', 'importer for every record; auto recognises each record').default('auto')
    .argParser((value: string) => {
      if (value !== 'auto' && !sourceFormatById(value)) throw new InvalidArgumentError(`unknown format; use auto or one of: ${SOURCE_FORMAT_IDS.join(', ')}`);
      return value;
    }))
  .option('--rejections <file>', 'write every rejection here (by default only when there are more than 20)')
  .option('--strict', `exit ${EXIT.rejections} when any record is rejected (the others are still imported)`, false)
  .addHelpText('after', `\nFormats (--format):\n${SOURCE_FORMATS.map((f) => `  ${f.id.padEnd(32)} ${f.description}`).join('\n')}\n\nField mappings: docs/data-model.md#importing-public-data`)
  .action(async (paths: string[], opts: TargetOptions & { format: string; rejections?: string; strict: boolean }) => {
    const format = opts.format === 'auto' ? undefined : sourceFormatById(opts.format);
    const reporter = ingestReporter({
      rejectionsFile: opts.rejections ?? resolve('ingest-rejections.tsv'),
      alwaysWriteRejections: opts.rejections !== undefined,
      showProgress: true,
    });
    const run = async (ports: IngestPorts) => {
      const result = await ingestFiles(paths, ports, { format, onProgress: reporter.onProgress, onRejected: reporter.onRejected });
      for (const line of reporter.finish(result)) console.log(line);
      if (opts.strict && result.summary.rejected > 0) {
        console.error(`admin: --strict: ${result.summary.rejected} record${result.summary.rejected === 1 ? ' was' : 's were'} rejected (the rest were imported)`);
        process.exitCode = EXIT.rejections;
      }
    };
    if (opts.target === 'aws') {
      const ports = await awsIngestPorts({ stage: opts.stage, region: opts.region, tableName: opts.tableName });
      console.error(`writing to DynamoDB table ${ports.tableName}; its stream updates the search index`);
      try {
        await run(ports);
      } finally {
        ports.close();
      }
    } else {
      await withLocalStack(opts.dataDir, async (stack) => {
        await run(stack.services);
        await stack.markImported(paths.map((path) => resolve(path)));
      });
    }
  });

withTargetOptions(program.command('reindex'))
  .description('copy every record from the record store into the search index, embedding records whose text was never embedded (a backfill; safe to repeat)')
  .option('--search-endpoint <host>', 'aws: the search domain endpoint, skipping the stack lookup')
  .option('--embedding-dimensions <n>', 'aws: the Titan dimensions the stage is deployed with (256, 512, 1024), skipping the stack lookup')
  .option('--rebuild', 'aws: build new indices in the configured vector space and move the aliases to them once full (no downtime), then delete the old ones; run it after changing the embedder or dimensions', false)
  .action(async (opts: TargetOptions & { searchEndpoint?: string; embeddingDimensions?: string; rebuild: boolean }) => {
    if (opts.target === 'local') {
      removeLocalIndex(opts.dataDir);
      await withLocalStack(opts.dataDir, async () => console.log('index rebuilt'));
      return;
    }
    const ports = await awsReindexPorts(opts);
    console.error(`${opts.rebuild ? 'rebuilding' : 'reindexing'} ${ports.tableName} into ${ports.endpoint}`);
    const onProgress = (kind: ResourceKind, indexed: number) => { if (process.stderr.isTTY) process.stderr.write(`\r${kind.padEnd(9)} ${indexed}`); };
    try {
      if (opts.rebuild) {
        for (const kind of RESOURCE_KINDS) {
          const { index, replaced, documents } = await ports.index.rebuild(kind, (write) =>
            reindexRecords(ports.store, { index: { upsert: (_kind, records, vectors) => write(records, vectors) }, embeddings: ports.embeddings }, { kinds: [kind], onProgress }).then(() => undefined));
          if (process.stderr.isTTY) process.stderr.write('\n');
          console.log(`${kind.padEnd(9)} ${documents} indexed into ${index}${replaced.length > 0 ? `, replacing ${replaced.join(', ')}` : ''}`);
        }
      }
      // A backfill (and, after a rebuild, the catch-up of writes the stream sent to the old indices meanwhile).
      const counts = await reindexRecords(ports.store, ports, { onProgress });
      if (process.stderr.isTTY) process.stderr.write('\n');
      for (const kind of RESOURCE_KINDS) console.log(`${kind.padEnd(9)} ${counts[kind]} indexed`);
    } finally {
      ports.close();
    }
  });

/** The key store and usage meter of the target (the embedded stack's, or the stage's table), and in AWS its usage plans. */
async function withKeyPorts<T>(opts: KeyTargetOptions, run: (ports: { keys: KeyStore; meter: UsageMeter; plans?: UsagePlanKeys }) => Promise<T>): Promise<T> {
  if (opts.target === 'local') return withLocalStack(opts.dataDir, (stack) => run(stack.services));
  const ports = await awsKeyPorts({ stage: opts.stage, region: opts.region, tableName: opts.tableName, usagePlanIds: opts.usagePlans });
  try {
    return await run(ports);
  } finally {
    ports.close();
  }
}

interface KeyTargetOptions extends TargetOptions {
  usagePlans?: Record<TierName, string>;
}

/** The key commands' options: the target's, and the usage plans of a stage (found from its outputs unless given). */
function withKeyTargetOptions(command: Command): Command {
  return withTargetOptions(command).option('--usage-plans <ids>', `aws: the usage plan ids by tier, ${TIER_NAMES.map((t) => `${t}=<id>`).join(',')}, skipping the stack lookup`, (value: string) => {
    const pairs = Object.fromEntries(value.split(',').map((pair) => pair.split('=', 2)));
    if (!TIER_NAMES.every((tier) => typeof pairs[tier] === 'string' && pairs[tier] !== '')) throw new InvalidArgumentError(`give a plan id for every tier: ${TIER_NAMES.join(', ')}`);
    return pairs as Record<TierName, string>;
  });
}

function tierArgument(value: string): TierName {
  if (!isTierName(value)) throw new InvalidArgumentError(`unknown tier; use one of: ${TIER_NAMES.join(', ')}`);
  return value;
}

function keyState(key: ApiKeyRecord, now: Date): string {
  if (key.revoked_at) return `revoked ${key.revoked_at}`;
  if (key.previous_valid_until && key.previous_valid_until > now.toISOString()) return `rotated; old key valid until ${key.previous_valid_until}`;
  return 'active';
}

const keysCommand = program.command('keys').description('API keys: create, list, rotate, revoke, set-tier, usage');

withKeyTargetOptions(keysCommand.command('create'))
  .description('issue a key; it is shown once, only its SHA-256 is stored')
  .requiredOption('--tier <tier>', `one of ${TIER_NAMES.join(', ')}`, tierArgument)
  .requiredOption('--owner <owner>', 'who the key belongs to (account, e-mail)')
  .option('--label <label>', 'what it is for', '')
  .action(async (opts: KeyTargetOptions & { tier: TierName; owner: string; label: string }) => {
    await withKeyPorts(opts, async ({ keys, plans }) => {
      const { key, record } = await createKey(keys, { tier: opts.tier, owner: opts.owner, label: opts.label }, randomBytes, new Date(), plans);
      console.log(`key id ${record.key_id} (${record.tier}, owner ${record.owner})`);
      console.log(`key    ${key}`);
      console.error('the key is shown this once: store it now');
    });
  });

withKeyTargetOptions(keysCommand.command('list'))
  .description('every key: prefix, tier, owner, created, last used, state')
  .action(async (opts: TargetOptions) => {
    await withKeyPorts(opts, async ({ keys, meter }) => {
      const now = new Date();
      const rows = await listKeys(keys, meter);
      console.log(['key id', 'prefix', 'tier', 'owner', 'label', 'created', 'last used', 'state'].join('\t'));
      for (const k of rows) console.log([k.key_id, `${k.prefix}…`, k.tier, k.owner, k.label || '-', k.created_at, k.last_used_at ?? 'never', keyState(k, now)].join('\t'));
    });
  });

withKeyTargetOptions(keysCommand.command('rotate'))
  .description('issue a new key for the same account; the old one keeps working for the grace period')
  .argument('<key-id>')
  .option('--grace-hours <hours>', 'how long the old key keeps working', (v: string) => {
    const hours = Number(v);
    if (!Number.isFinite(hours) || hours < 0) throw new InvalidArgumentError('must be a number of hours, 0 or more');
    return hours;
  }, DEFAULT_ROTATION_GRACE_HOURS)
  .action(async (keyId: string, opts: TargetOptions & { graceHours: number }) => {
    await withKeyPorts(opts, async ({ keys }) => {
      const { key, record } = await rotateKey(keys, keyId, opts.graceHours, randomBytes, new Date());
      console.log(`key id ${record.key_id}: new key issued; the old one works until ${record.previous_valid_until}`);
      console.log(`key    ${key}`);
      console.error('the key is shown this once: store it now');
    });
  });

withKeyTargetOptions(keysCommand.command('revoke'))
  .description('stop a key at once (both its current and its rotated-out key)')
  .argument('<key-id>')
  .action(async (keyId: string, opts: KeyTargetOptions) => {
    await withKeyPorts(opts, async ({ keys, plans }) => {
      const record = await revokeKey(keys, keyId, new Date(), plans);
      console.log(`key id ${record.key_id} revoked ${record.revoked_at}`);
    });
  });

withKeyTargetOptions(keysCommand.command('set-tier'))
  .description('move a key to another tier')
  .argument('<key-id>')
  .argument('<tier>', `one of ${TIER_NAMES.join(', ')}`, tierArgument)
  .action(async (keyId: string, tier: TierName, opts: KeyTargetOptions) => {
    await withKeyPorts(opts, async ({ keys, plans }) => {
      const record = await setKeyTier(keys, keyId, tier, plans);
      console.log(`key id ${record.key_id} is now ${record.tier}`);
    });
  });

withKeyTargetOptions(keysCommand.command('usage'))
  .description('requests, errors and p50/p95 response times per UTC day')
  .argument('<key-id>')
  .option('--days <days>', 'how many days back', (v: string) => {
    const days = Number(v);
    if (!Number.isInteger(days) || days < 1 || days > 92) throw new InvalidArgumentError('must be a whole number of days from 1 to 92');
    return days;
  }, 30)
  .action(async (keyId: string, opts: TargetOptions & { days: number }) => {
    await withKeyPorts(opts, async ({ keys, meter }) => {
      const { key, days } = await keyUsage(keys, meter, keyId, opts.days);
      const quota = TIERS[key.tier].dailyQuota;
      console.log(`key id ${key.key_id} (${key.tier}, daily quota ${quota ?? 'unlimited'})`);
      console.log(['day', 'requests', 'errors', 'error rate', 'p50 ms', 'p95 ms'].join('\t'));
      for (const d of days) {
        const rate = d.responses > 0 ? `${((d.errors / d.responses) * 100).toFixed(1)}%` : '-';
        console.log([d.day, d.requests, d.errors, rate, d.p50Ms ?? '-', d.p95Ms ?? '-'].join('\t'));
      }
      if (days.length === 0) console.log('(no requests yet)');
    });
  });

/**
 * The local queue lives in the server process, so the CLI queues nothing: the deliveries it makes
 * pending are in the delivery log, and npm start sends them when it starts.
 */
addWebhookCommands(program);

const local = program.command('local').description('the embedded stack\'s state (.local/)');

local
  .command('stats')
  .description('count records of each kind in the search index, and pending change events')
  .option('--data-dir <dir>', 'state folder', DEFAULT_DATA_DIR)
  .action(async (opts: { dataDir: string }) => {
    await withLocalStack(opts.dataDir, async ({ services, outbox, seededCatalogue, importedCatalogue }) => {
      for (const kind of RESOURCE_KINDS) {
        const query = parseListQuery(kind, kind === 'funder' ? {} : { opportunity_type: ['all'] }, utcDate(services.clock));
        const { total } = await services.index.query(kind, { ...query, countOnly: true });
        console.log(`${kind.padEnd(9)} ${total}`);
      }
      const events = new Map<ChangeEventType, number>();
      for await (const page of outbox.scan()) for (const event of page) events.set(event.event, (events.get(event.event) ?? 0) + 1);
      console.log(`pending change events: ${[...events].sort().map(([type, n]) => `${type} ${n}`).join(', ') || 'none'}`);
      if (seededCatalogue) console.log(`synthetic catalogue seeded for ${seededCatalogue.today} (seed ${seededCatalogue.seed})`);
      if (importedCatalogue) console.log(`imported ${importedCatalogue.importedAt} from ${importedCatalogue.sources.join(', ')}`);
    });
  });

local
  .command('reindex')
  .description('drop the search index and rebuild it from the record store')
  .option('--data-dir <dir>', 'state folder', DEFAULT_DATA_DIR)
  .action(async (opts: { dataDir: string }) => {
    removeLocalIndex(opts.dataDir);
    await withLocalStack(opts.dataDir, async () => console.log('index rebuilt'));
  });

program.parseAsync().catch((error: Error) => {
  // Commander has printed the usage error (or the help, or the version: exit code 0).
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage);
  // Expected failures (a missing file, an unknown stage) are one clear line; anything else also names its type.
  const expected = error instanceof SourceFileError || error instanceof AwsTargetError || error instanceof KeyStateConflict
    || error instanceof WebhookConflict || error instanceof DestinationRefused || error instanceof InvalidFilter;
  console.error(`admin: ${expected ? error.message : `${error.name}: ${error.message}`}`);
  process.exit(EXIT.failure);
});
