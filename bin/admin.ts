// `npm run admin -- <command>`: platform commands against the local state (.local/) or a deployed stage.
// The pinned AWS SDK runs on this machine's Node 20; its notice that 2027 releases need Node 22 is
// for whoever upgrades the SDK, not for every command.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ingestFiles } from '../lambdas/adapters/source-files/ingest-files';
import { SourceFileError } from '../lambdas/adapters/source-files/read-source-files';
import { SOURCE_FORMAT_IDS, SOURCE_FORMATS, sourceFormatById } from '../lambdas/core/ingest/formats';
import type { ChangeEventType } from '../lambdas/core/change-feed';
import { parseListQuery } from '../lambdas/core/query/list-query';
import { RESOURCE_KINDS, type ResourceKind } from '../lambdas/core/records';
import type { IngestPorts } from '../lambdas/core/use-cases/ingest-records';
import { reindexRecords } from '../lambdas/core/use-cases/reindex-records';
import { TIER_NAMES, TIERS, isTierName, type TierName } from '../lambdas/core/auth/tiers';
import {
  createKey, DEFAULT_ROTATION_GRACE_HOURS, keyUsage, listKeys, revokeKey, rotateKey, setKeyTier,
} from '../lambdas/core/use-cases/manage-keys';
import { KeyStateConflict, type ApiKeyRecord, type KeyStore } from '../lambdas/ports/key-store';
import type { UsageMeter } from '../lambdas/ports/usage-meter';
import type { UsagePlanKeys } from '../lambdas/ports/usage-plans';
import { systemClock, utcDate } from '../lambdas/ports/clock';
import { AwsTargetError, awsChangeFanOutPorts, awsDeadlineScanPorts, awsDeliveryLog, awsDeliveryQueuePorts, awsIngestPorts, awsKeyPorts, awsReindexPorts, awsSavedSearchPorts, awsWebhookPorts, type WebhookQueueOptions } from '../local/aws-target';
import { replayDelivery } from '../lambdas/core/use-cases/deliver-webhook';
import { sendTestEvent } from '../lambdas/core/use-cases/test-webhook';
import { InvalidFilter, kindsOfEvents } from '../lambdas/core/webhooks/saved-search';
import { savedSearchCount } from '../lambdas/core/use-cases/match-saved-search';
import type { SearchPorts } from '../lambdas/core/use-cases/list-records';
import { httpWebhookTransport } from '../lambdas/adapters/http-webhook-transport';
import { scanDeadlines } from '../lambdas/core/use-cases/scan-deadlines';
import { fanOutChangeEvents, type ChangeFanOutPorts } from '../lambdas/core/use-cases/fan-out-events';
import type { ChangeOutbox } from '../lambdas/ports/change-outbox';
import type { DeliveryLog } from '../lambdas/ports/delivery-log';
import type { DeliveryQueue } from '../lambdas/ports/delivery-queue';
import { dnsHostResolver } from '../lambdas/adapters/dns-host-resolver';
import { DestinationRefused, type DestinationMode } from '../lambdas/core/webhooks/destination-policy';
import { DEADLINE_WINDOW_DAYS, WEBHOOK_EVENTS } from '../lambdas/core/webhooks/events';
import {
  addSubscription, DEFAULT_SECRET_GRACE_HOURS, disableSubscription, enableSubscription, listedSubscription, rotateSecret,
  type ListedSubscription, type WebhookPorts,
} from '../lambdas/core/use-cases/manage-webhooks';
import { WebhookConflict } from '../lambdas/ports/webhook-store';
import { DEFAULT_DATA_DIR, removeLocalIndex, startEmbeddedStack, type EmbeddedStack } from '../local/embedded-stack';
import { ingestReporter } from '../local/ingest-report';

async function withLocalStack<T>(dataDir: string, run: (stack: EmbeddedStack) => Promise<T>): Promise<T> {
  const stack = await startEmbeddedStack({ dataDir, seed: false, onProgress: (m) => console.error(m) });
  try {
    return await run(stack);
  } finally {
    await stack.close();
  }
}

/** The options every command that works on local state or a deployed stage shares. */
interface TargetOptions {
  target: 'local' | 'aws';
  dataDir: string;
  stage: string;
  region?: string;
  tableName?: string;
}

function withTargetOptions(command: Command): Command {
  return command
    .addOption(new Option('--target <target>', 'the embedded stack (local) or a deployed stage (aws)').choices(['local', 'aws']).default('local'))
    .option('--data-dir <dir>', 'local: state folder', DEFAULT_DATA_DIR)
    .option('--stage <stage>', 'aws: the deployed stage', 'dev')
    .option('--region <region>', 'aws: region (default: the AWS SDK\'s)')
    .option('--table-name <name>', 'aws: the records table, skipping the stack lookup');
}

const program = new Command('admin').description('Grants, Contracts and Funders Data Service: platform commands');

withTargetOptions(program.command('ingest'))
  .description('import public source files (Grants.gov, SAM.gov, NSF, USAspending, Federal Hierarchy) into the catalogue')
  .argument('<paths...>', 'files or folders (.xml, .csv, .json, .jsonl)')
  .addOption(new Option('--format <format>', 'importer for every record; auto recognises each record').default('auto')
    .argParser((value: string) => {
      if (value !== 'auto' && !sourceFormatById(value)) throw new InvalidArgumentError(`unknown format; use auto or one of: ${SOURCE_FORMAT_IDS.join(', ')}`);
      return value;
    }))
  .option('--rejections <file>', 'write every rejection here (by default only when there are more than 20)')
  .addHelpText('after', `\nFormats (--format):\n${SOURCE_FORMATS.map((f) => `  ${f.id.padEnd(32)} ${f.description}`).join('\n')}\n\nField mappings: docs/data-model.md#importing-public-data`)
  .action(async (paths: string[], opts: TargetOptions & { format: string; rejections?: string }) => {
    const format = opts.format === 'auto' ? undefined : sourceFormatById(opts.format);
    const reporter = ingestReporter({
      rejectionsFile: opts.rejections ?? resolve('ingest-rejections.tsv'),
      alwaysWriteRejections: opts.rejections !== undefined,
      showProgress: true,
    });
    const run = async (ports: IngestPorts) => {
      const result = await ingestFiles(paths, ports, { format, onProgress: reporter.onProgress, onRejected: reporter.onRejected });
      for (const line of reporter.finish(result)) console.log(line);
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
const UNTIL_SERVER_STARTS: DeliveryQueue = { maxDelaySeconds: 900, send: async () => {}, deadLetter: async () => {} };

/** The delivery log of the target (the embedded stack's, or the stage's table). */
async function withDeliveryLog<T>(opts: TargetOptions, run: (log: DeliveryLog) => Promise<T>): Promise<T> {
  if (opts.target === 'local') return withLocalStack(opts.dataDir, (stack) => run(stack.deliveries));
  const ports = await awsDeliveryLog({ stage: opts.stage, region: opts.region, tableName: opts.tableName });
  try {
    return await run(ports.log);
  } finally {
    ports.close();
  }
}

/** The subscriptions, keys and resolver of the target; its URL rules follow it (https only in AWS). */
async function withWebhookPorts<T>(opts: TargetOptions, run: (ports: WebhookPorts & { savedSearch?: SearchPorts }, mode: DestinationMode) => Promise<T>): Promise<T> {
  if (opts.target === 'local') {
    return withLocalStack(opts.dataDir, (stack) => run({ webhooks: stack.webhooks, keys: stack.services.keys, resolver: dnsHostResolver, savedSearch: stack.services }, 'local'));
  }
  const ports = await awsWebhookPorts({ stage: opts.stage, region: opts.region, tableName: opts.tableName });
  try {
    return await run(ports, 'aws');
  } finally {
    ports.close();
  }
}

function printSubscription(subscription: ListedSubscription): void {
  console.log([
    subscription.subscription_id, subscription.key_id, subscription.state + (subscription.disabled_reason ? ` (${subscription.disabled_reason})` : ''),
    subscription.url, subscription.events.join(','), `${subscription.days_before} days`, subscription.filter ?? '-', subscription.created_at,
    subscription.rotating ? `old secret valid until ${subscription.previous_secret_valid_until}` : '-',
  ].join('\t'));
}

const SUBSCRIPTION_COLUMNS = ['subscription id', 'key id', 'state', 'url', 'events', 'deadline window', 'filter', 'created', 'rotation'];

const webhooksCommand = program.command('webhooks').description('webhook subscriptions of developer keys: add, list, disable, enable, rotate-secret, test, deliveries, replay, fan-out');

withTargetOptions(webhooksCommand.command('add'))
  .description('subscribe a developer key\'s URL to events; the signing secret is shown once')
  .requiredOption('--key-id <id>', 'the developer key the subscription belongs to')
  .requiredOption('--url <url>', 'https URL (local mode also: http to localhost / 127.0.0.1 / ::1); private, loopback, link-local and metadata addresses are refused')
  .option('--events <names>', `comma-separated events (default: all of ${WEBHOOK_EVENTS.join(', ')})`, (value: string) => value.split(',').map((name) => name.trim()).filter((name) => name !== ''))
  .option('--days-before <days>', `deadline_approaching fires this many days before a deadline (${DEADLINE_WINDOW_DAYS.min}-${DEADLINE_WINDOW_DAYS.max})`, (value: string) => {
    const days = Number(value);
    if (!Number.isInteger(days) || days < DEADLINE_WINDOW_DAYS.min || days > DEADLINE_WINDOW_DAYS.max) throw new InvalidArgumentError(`must be a whole number of days from ${DEADLINE_WINDOW_DAYS.min} to ${DEADLINE_WINDOW_DAYS.max}`);
    return days;
  }, DEADLINE_WINDOW_DAYS.default)
  .option('--search-endpoint <host>', 'aws: the search domain (to count what --filter matches), skipping the stack lookup')
  .option('--embedding-dimensions <n>', 'aws: the index\'s vector length, skipping the stack lookup')
  .option('--filter <query>', 'a saved search: list parameters, e.g. "states=KS&include_national=true&category=Health&search=rural clinics&search_mode=hybrid"; only events whose record it matches are sent')
  .action(async (opts: TargetOptions & { keyId: string; url: string; events?: string[]; daysBefore: number; filter?: string; searchEndpoint?: string; embeddingDimensions?: string }) => {
    await withWebhookPorts(opts, async (ports, mode) => {
      const now = new Date();
      const { secret, subscription } = await addSubscription(ports, { keyId: opts.keyId, url: opts.url, events: opts.events, daysBefore: opts.daysBefore, filter: opts.filter }, mode, now);
      console.log(`subscription ${subscription.subscription_id} for key ${subscription.key_id}: ${subscription.url}`);
      console.log(`events  ${subscription.events.join(', ')}; deadlines ${subscription.days_before} days ahead`);
      if (subscription.filter) {
        console.log(`filter  ${subscription.filter}`);
        const search = ports.savedSearch ? { ports: ports.savedSearch } : await awsSavedSearchPorts(opts);
        if ('ports' in search) {
          const counts = await Promise.all(kindsOfEvents(subscription.events).map(async (kind) => `${await savedSearchCount(search.ports, subscription.filter!, kind, utcDate(systemClock))} ${kind}s`));
          const none = counts.every((count) => count.startsWith('0 '));
          console.log(`matches ${counts.join(', ')} today${none ? ': none yet; accepted, it sends when a record matches' : ''}`);
        } else {
          console.error(`not counted what the filter matches today (${search.missing})`);
        }
      }
      console.log(`secret  ${secret}`);
      console.error('the secret is shown this once: store it where your receiver verifies the signatures (docs/webhooks.md)');
    });
  });

withTargetOptions(webhooksCommand.command('list'))
  .description('subscriptions (never their secrets)')
  .option('--key-id <id>', 'only this key\'s')
  .action(async (opts: TargetOptions & { keyId?: string }) => {
    await withWebhookPorts(opts, async ({ webhooks }) => {
      const now = new Date();
      const subscriptions = await webhooks.list(opts.keyId);
      console.log(SUBSCRIPTION_COLUMNS.join('\t'));
      for (const subscription of subscriptions) printSubscription(listedSubscription(subscription, now));
      if (subscriptions.length === 0) console.log('(no subscriptions)');
    });
  });

withTargetOptions(webhooksCommand.command('disable'))
  .description('stop deliveries to a subscription (events are not kept for it while disabled)')
  .argument('<subscription-id>')
  .action(async (subscriptionId: string, opts: TargetOptions) => {
    await withWebhookPorts(opts, async ({ webhooks }) => {
      const subscription = await disableSubscription(webhooks, subscriptionId, 'disabled by an operator', new Date());
      console.log(`subscription ${subscription.subscription_id} disabled`);
    });
  });

withTargetOptions(webhooksCommand.command('enable'))
  .description('resume a disabled subscription (its URL is checked again)')
  .argument('<subscription-id>')
  .action(async (subscriptionId: string, opts: TargetOptions) => {
    await withWebhookPorts(opts, async (ports, mode) => {
      const subscription = await enableSubscription(ports, subscriptionId, mode, new Date());
      console.log(`subscription ${subscription.subscription_id} enabled`);
    });
  });

withTargetOptions(webhooksCommand.command('rotate-secret'))
  .description('issue a new signing secret; deliveries carry signatures by both secrets for the grace period')
  .argument('<subscription-id>')
  .option('--grace-hours <hours>', 'how long the old secret keeps signing beside the new one', (v: string) => {
    const hours = Number(v);
    if (!Number.isFinite(hours) || hours < 0 || hours > 24 * 30) throw new InvalidArgumentError('must be a number of hours from 0 to 720');
    return hours;
  }, DEFAULT_SECRET_GRACE_HOURS)
  .action(async (subscriptionId: string, opts: TargetOptions & { graceHours: number }) => {
    await withWebhookPorts(opts, async ({ webhooks }) => {
      const { secret, subscription } = await rotateSecret(webhooks, subscriptionId, opts.graceHours, new Date());
      console.log(`subscription ${subscription.subscription_id}: new secret issued; the old one also signs until ${subscription.previous_secret_valid_until}`);
      console.log(`secret  ${secret}`);
      console.error('the secret is shown this once: store it now');
    });
  });

withTargetOptions(webhooksCommand.command('test'))
  .description('send a signed webhook.test event to a subscription now, wait for the answer, and print its code and latency (not queued, retried or logged)')
  .argument('<subscription-id>')
  .action(async (subscriptionId: string, opts: TargetOptions) => {
    await withWebhookPorts(opts, async ({ webhooks, resolver }, mode) => {
      const result = await sendTestEvent({ webhooks, resolver, transport: httpWebhookTransport, clock: systemClock }, subscriptionId, mode);
      const answer = result.status === null ? `no answer (${result.error})` : `${result.status} in ${Math.round(result.latencyMs)} ms`;
      console.log(`webhook.test ${result.eventId} to ${result.url}: ${answer}`);
      if (result.responseExcerpt) console.log(`response  ${result.responseExcerpt.slice(0, 300)}`);
      if (result.verdict !== 'delivered') {
        console.error(result.verdict === 'gone' ? 'the receiver answered 410 Gone: a real delivery would disable the subscription' : 'a real delivery would be retried: only a 2xx within 10 s counts as delivered');
        process.exitCode = 1;
      }
    });
  });

withTargetOptions(webhooksCommand.command('deliveries'))
  .description('a subscription\'s delivery log, newest first: status, attempts, last response code, latency')
  .argument('<subscription-id>')
  .option('--limit <n>', 'how many', (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 1000) throw new InvalidArgumentError('must be a whole number from 1 to 1000');
    return n;
  }, 50)
  .action(async (subscriptionId: string, opts: TargetOptions & { limit: number }) => {
    await withDeliveryLog(opts, async (log) => {
      const deliveries = await log.list(subscriptionId, opts.limit);
      console.log(['delivery id', 'event', 'event id', 'status', 'attempts', 'last code', 'latency ms', 'last error', 'created', 'next attempt'].join('\t'));
      for (const d of deliveries) {
        console.log([d.delivery_id, d.event, d.event_id, d.status, d.attempts, d.last_status_code ?? '-', d.last_latency_ms ?? '-', d.last_error ?? '-', d.created_at, d.next_attempt_at ?? '-'].join('\t'));
      }
      if (deliveries.length === 0) console.log('(no deliveries)');
    });
  });

const withQueueOptions = (command: Command) => command
  .option('--queue-url <url>', 'aws: the webhook queue, skipping the stack lookup')
  .option('--dead-letter-queue-url <url>', 'aws: the webhook dead-letter queue, skipping the stack lookup');

withQueueOptions(withTargetOptions(webhooksCommand.command('replay')))
  .description('send a delivery again (a failed one from the dead-letter queue, or any other): a fresh retry schedule, the same event id and body')
  .argument('<delivery-id>')
  .action(async (deliveryId: string, opts: TargetOptions & WebhookQueueOptions) => {
    const replay = async (log: DeliveryLog, queue: DeliveryQueue, sentBy: string) => {
      const replayed = await replayDelivery({ log, queue, clock: systemClock }, deliveryId);
      if (!replayed) throw new WebhookConflict(`no delivery ${deliveryId}`);
      console.log(`delivery ${deliveryId} (${replayed.event} to ${replayed.subscription_id}) queued again; ${sentBy} sends it`);
    };
    if (opts.target === 'local') {
      await withDeliveryLog(opts, (log) => replay(log, UNTIL_SERVER_STARTS, 'npm start'));
      return;
    }
    const ports = await awsDeliveryQueuePorts({ stage: opts.stage, region: opts.region, tableName: opts.tableName, queueUrl: opts.queueUrl, deadLetterQueueUrl: opts.deadLetterQueueUrl });
    try {
      await replay(ports.log, ports.queue, 'the webhook sender');
    } finally {
      ports.close();
    }
  });

withQueueOptions(withTargetOptions(webhooksCommand.command('fan-out')))
  .description('fan out the change events still in the outbox (in AWS: those whose stream batch ended in IndexerFailureQueue); safe to repeat')
  .option('--search-endpoint <host>', 'aws: the search domain (to match saved searches), skipping the stack lookup')
  .option('--embedding-dimensions <n>', 'aws: the index\'s vector length, skipping the stack lookup')
  .action(async (opts: TargetOptions & WebhookQueueOptions & { searchEndpoint?: string; embeddingDimensions?: string }) => {
    const fanOut = async (ports: ChangeFanOutPorts & { outbox: ChangeOutbox }, sentBy: string) => {
      let events = 0;
      let made = 0;
      for await (const page of ports.outbox.scan()) {
        events += page.length;
        made += await fanOutChangeEvents(ports, page);
      }
      console.log(`${events} change event${events === 1 ? '' : 's'} fanned out: ${made} deliver${made === 1 ? 'y' : 'ies'} queued; ${sentBy} sends them`);
    };
    if (opts.target === 'local') {
      await withLocalStack(opts.dataDir, (stack) => fanOut({ webhooks: stack.webhooks, log: stack.deliveries, outbox: stack.outbox, queue: UNTIL_SERVER_STARTS, clock: systemClock, savedSearch: stack.services }, 'npm start'));
      return;
    }
    const ports = await awsChangeFanOutPorts({
      stage: opts.stage, region: opts.region, tableName: opts.tableName, queueUrl: opts.queueUrl, deadLetterQueueUrl: opts.deadLetterQueueUrl,
      searchEndpoint: opts.searchEndpoint, embeddingDimensions: opts.embeddingDimensions,
    });
    try {
      await fanOut(ports, 'the webhook sender');
    } finally {
      ports.close();
    }
  });

withQueueOptions(withTargetOptions(program.command('scan-deadlines')))
  .description('queue *.deadline_approaching for the open grants and contracts whose deadline is within a subscription\'s window (once per record and deadline); locally npm start sends them and also scans daily, in AWS the schedule runs it daily')
  .option('--search-endpoint <host>', 'aws: the search domain, skipping the stack lookup')
  .option('--embedding-dimensions <n>', 'aws: the index\'s vector length, skipping the stack lookup')
  .action(async (opts: TargetOptions & WebhookQueueOptions & { searchEndpoint?: string; embeddingDimensions?: string }) => {
    const report = (made: number, sentBy: string) => console.log(`${made} deadline reminder${made === 1 ? '' : 's'} queued; ${sentBy} sends them`);
    if (opts.target === 'local') {
      await withLocalStack(opts.dataDir, async (stack) => {
        report(await scanDeadlines({
          webhooks: stack.webhooks, log: stack.deliveries, clock: stack.services.clock, index: stack.services.index, ledger: stack.deadlineLedger, queue: UNTIL_SERVER_STARTS,
          savedSearch: stack.services,
        }), 'npm start');
      });
      return;
    }
    const ports = await awsDeadlineScanPorts({ ...opts, stage: opts.stage, region: opts.region, tableName: opts.tableName });
    try {
      report(await scanDeadlines(ports), 'the webhook sender');
    } finally {
      ports.close();
    }
  });

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
  // Expected failures (a missing file, an unknown stage) are one clear line; anything else also names its type.
  const expected = error instanceof SourceFileError || error instanceof AwsTargetError || error instanceof KeyStateConflict
    || error instanceof WebhookConflict || error instanceof DestinationRefused || error instanceof InvalidFilter;
  console.error(`admin: ${expected ? error.message : `${error.name}: ${error.message}`}`);
  process.exit(1);
});
