// `npm run admin -- <command>`: platform commands against the local state (.local/) or a deployed stage.
// The pinned AWS SDK runs on this machine's Node 20; its notice that 2027 releases need Node 22 is
// for whoever upgrades the SDK, not for every command.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
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
import { KeyStateConflict } from '../lambdas/ports/key-store';
import { utcDate } from '../lambdas/ports/clock';
import { AwsTargetError, awsIngestPorts, awsReindexPorts } from '../local/aws-target';
import { InvalidFilter } from '../lambdas/core/webhooks/saved-search';
import { DestinationRefused } from '../lambdas/core/webhooks/destination-policy';
import { WebhookConflict } from '../lambdas/ports/webhook-store';
import { DataDirInUseError } from '../local/data-dir-lock';
import { DEFAULT_DATA_DIR, removeLocalIndex } from '../local/embedded-stack';
import { ingestReporter } from '../local/ingest-report';
import { emit, withJsonOption, type OutputOptions } from './admin-output';
import { withLocalStack, withTargetOptions, type TargetOptions } from './admin-targets';
import { addKeyCommands } from './admin-keys';
import { addWebhookCommands } from './admin-webhooks';
import { addStatusCommand } from './admin-status';

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
    // With --json, stdout is the one document: the notes and the bar go to stderr.
    const format = opts.format === 'auto' ? undefined : sourceFormatById(opts.format);
    const reporter = ingestReporter({
      rejectionsFile: opts.rejections ?? resolve('ingest-rejections.tsv'),
      alwaysWriteRejections: opts.rejections !== undefined,
      showProgress: !opts.json,
    });
    const run = async (ports: IngestPorts) => {
      const result = await ingestFiles(paths, ports, { format, onProgress: reporter.onProgress, onRejected: reporter.onRejected });
      const lines = reporter.finish(result);
      emit(opts, {
        files: result.files, seconds: Math.round(result.seconds * 1000) / 1000, ...result.summary,
        rejections: reporter.rejections().map(({ location, format: importer, reason }) => ({ location, importer: importer ?? null, reason })),
      }, () => lines);
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
      await withLocalStack(opts.dataDir, async () => emit(opts, { rebuilt: true }, () => ['index rebuilt']));
      return;
    }
    const ports = await awsReindexPorts(opts);
    console.error(`${opts.rebuild ? 'rebuilding' : 'reindexing'} ${ports.tableName} into ${ports.endpoint}`);
    const onProgress = (kind: ResourceKind, indexed: number) => { if (process.stderr.isTTY) process.stderr.write(`\r${kind.padEnd(9)} ${indexed}`); };
    try {
      const rebuilt: { kind: ResourceKind; index: string; replaced: string[]; documents: number }[] = [];
      if (opts.rebuild) {
        for (const kind of RESOURCE_KINDS) {
          const { index, replaced, documents } = await ports.index.rebuild(kind, (write) =>
            reindexRecords(ports.store, { index: { upsert: (_kind, records, vectors) => write(records, vectors) }, embeddings: ports.embeddings }, { kinds: [kind], onProgress }).then(() => undefined));
          if (process.stderr.isTTY) process.stderr.write('\n');
          rebuilt.push({ kind, index, replaced: [...replaced], documents });
        }
      }
      // A backfill (and, after a rebuild, the catch-up of writes the stream sent to the old indices meanwhile).
      const counts = await reindexRecords(ports.store, ports, { onProgress });
      if (process.stderr.isTTY) process.stderr.write('\n');
      emit(opts, { table: ports.tableName, endpoint: ports.endpoint, rebuilt, indexed: counts }, () => [
        ...rebuilt.map(({ kind, index, replaced, documents }) => `${kind.padEnd(9)} ${documents} indexed into ${index}${replaced.length > 0 ? `, replacing ${replaced.join(', ')}` : ''}`),
        ...RESOURCE_KINDS.map((kind) => `${kind.padEnd(9)} ${counts[kind]} indexed`),
      ]);
    } finally {
      ports.close();
    }
  });

addKeyCommands(program);

/**
 * The local queue lives in the server process, so the CLI queues nothing: the deliveries it makes
 * pending are in the delivery log, and npm start sends them when it starts.
 */
addWebhookCommands(program);
addStatusCommand(program);

const local = program.command('local').description('the embedded stack\'s state (.local/)');

withJsonOption(local
  .command('stats'))
  .description('count records of each kind in the search index, and pending change events')
  .option('--data-dir <dir>', 'state folder', DEFAULT_DATA_DIR)
  .action(async (opts: OutputOptions & { dataDir: string }) => {
    await withLocalStack(opts.dataDir, async ({ services, outbox, seededCatalogue, importedCatalogue }) => {
      const records: Partial<Record<ResourceKind, number>> = {};
      for (const kind of RESOURCE_KINDS) {
        const query = parseListQuery(kind, kind === 'funder' ? {} : { opportunity_type: ['all'] }, utcDate(services.clock));
        records[kind] = (await services.index.query(kind, { ...query, countOnly: true })).total;
      }
      const events = new Map<ChangeEventType, number>();
      for await (const page of outbox.scan()) for (const event of page) events.set(event.event, (events.get(event.event) ?? 0) + 1);
      const pending = Object.fromEntries([...events].sort());
      emit(opts, { records, pending_change_events: pending, seeded: seededCatalogue ?? null, imported: importedCatalogue ?? null }, () => [
        ...RESOURCE_KINDS.map((kind) => `${kind.padEnd(9)} ${records[kind]}`),
        `pending change events: ${Object.entries(pending).map(([type, n]) => `${type} ${n}`).join(', ') || 'none'}`,
        ...(seededCatalogue ? [`synthetic catalogue seeded for ${seededCatalogue.today} (seed ${seededCatalogue.seed})`] : []),
        ...(importedCatalogue ? [`imported ${importedCatalogue.importedAt} from ${importedCatalogue.sources.join(', ')}`] : []),
      ]);
    });
  });

withJsonOption(local
  .command('reindex'))
  .description('drop the search index and rebuild it from the record store')
  .option('--data-dir <dir>', 'state folder', DEFAULT_DATA_DIR)
  .action(async (opts: OutputOptions & { dataDir: string }) => {
    removeLocalIndex(opts.dataDir);
    await withLocalStack(opts.dataDir, async () => emit(opts, { rebuilt: true }, () => ['index rebuilt']));
  });

program.parseAsync().catch((error: Error) => {
  // Commander has printed the usage error (or the help, or the version: exit code 0).
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage);
  // Expected failures (a missing file, an unknown stage) are one clear line; anything else also names its type.
  const expected = error instanceof SourceFileError || error instanceof AwsTargetError || error instanceof KeyStateConflict
    || error instanceof WebhookConflict || error instanceof DestinationRefused || error instanceof InvalidFilter || error instanceof DataDirInUseError;
  console.error(`admin: ${expected ? error.message : `${error.name}: ${error.message}`}`);
  process.exit(EXIT.failure);
});
