// The admin program: every `npm run admin` command, built for a context (the CLI's own process, or
// the local server that owns the state folder), so both run the same commands with the same output.
import { resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ingestFiles } from '../lambdas/adapters/source-files/ingest-files';
import { SourceFileError } from '../lambdas/adapters/source-files/read-source-files';
import type { ChangeEventType } from '../lambdas/core/change-feed';
import { ServiceError } from '../lambdas/core/errors';
import { SOURCE_FORMAT_IDS, SOURCE_FORMATS, sourceFormatById } from '../lambdas/core/ingest/formats';
import { parseListQuery } from '../lambdas/core/query/list-query';
import { RESOURCE_KINDS, type ResourceKind } from '../lambdas/core/records';
import type { IngestPorts } from '../lambdas/core/use-cases/ingest-records';
import { reindexRecords } from '../lambdas/core/use-cases/reindex-records';
import { DestinationRefused } from '../lambdas/core/webhooks/destination-policy';
import { InvalidFilter } from '../lambdas/core/webhooks/saved-search';
import { AccountConflict } from '../lambdas/ports/account-store';
import { utcDate } from '../lambdas/ports/clock';
import { KeyStateConflict } from '../lambdas/ports/key-store';
import { WebhookConflict } from '../lambdas/ports/webhook-store';
import { AdminChannelError } from '../local/admin-channel/channel-client';
import { AwsTargetError, awsIngestPorts, awsReindexPorts } from '../local/aws-target';
import { DataDirInUseError } from '../local/data-dir-lock';
import { DEFAULT_DATA_DIR, IndexRebuildInProgress } from '../local/embedded-stack';
import { ingestReporter } from '../local/ingest-report';
import { addAccountCommands } from './admin-accounts';
import { addCanaryCommands } from './admin-canary';
import { type AdminContext, note, ServedByRunningServer } from './admin-context';
import { addKeyCommands } from './admin-keys';
import { emit, type OutputOptions, withJsonOption } from './admin-output';
import { addStatusCommand } from './admin-status';
import { type TargetOptions, withTargetOptions } from './admin-targets';
import { addWebhookCommands } from './admin-webhooks';

/** The exit codes scripts can rely on (docs/admin.md). */
export const EXIT = { ok: 0, failure: 1, usage: 2, rejections: 3 } as const;

/** The admin program, printing to and reaching local state through `context`. */
export function buildAdminProgram(context: AdminContext): Command {
  // exitOverride and the output before any command is added, so every subcommand inherits them: a
  // usage error throws a CommanderError (its message already printed) that runAdminCommand turns into exit 2.
  const program = new Command('admin')
    .description('Grants, Contracts and Funders Data Service: platform commands')
    .exitOverride()
    .configureOutput({ writeOut: (text) => context.io.stdout(text), writeErr: (text) => context.io.stderr(text) })
    .hook('preAction', (_program, action) => context.beforeAction?.(action))
    .addHelpText(
      'after',
      `\nExit codes: ${EXIT.ok} success, ${EXIT.failure} failure, ${EXIT.usage} usage error (an unknown command or option, a bad value), ${EXIT.rejections} ingest --strict with rejections.`,
    );

  withTargetOptions(program.command('ingest'))
    .description('import public source files (Grants.gov, SAM.gov, NSF, USAspending, Federal Hierarchy) into the catalogue')
    .argument('<paths...>', 'files or folders (.xml, .csv, .json, .jsonl)')
    .addOption(
      new Option('--format <format>', 'importer for every record; auto recognises each record').default('auto').argParser((value: string) => {
        if (value !== 'auto' && !sourceFormatById(value)) throw new InvalidArgumentError(`unknown format; use auto or one of: ${SOURCE_FORMAT_IDS.join(', ')}`);
        return value;
      }),
    )
    .option('--rejections <file>', 'write every rejection here (by default only when there are more than 20)')
    .option('--strict', `exit ${EXIT.rejections} when any record is rejected (the others are still imported)`, false)
    .addHelpText(
      'after',
      `\nFormats (--format):\n${SOURCE_FORMATS.map((f) => `  ${f.id.padEnd(32)} ${f.description}`).join('\n')}\n\nField mappings: docs/data-model.md#importing-public-data`,
    )
    .action(async (paths: string[], opts: TargetOptions & { format: string; rejections?: string; strict: boolean }) => {
      // With --json, stdout is the one document: the notes and the bar go to stderr.
      const format = opts.format === 'auto' ? undefined : sourceFormatById(opts.format);
      const reporter = ingestReporter({
        rejectionsFile: resolve(context.cwd, opts.rejections ?? 'ingest-rejections.tsv'),
        alwaysWriteRejections: opts.rejections !== undefined,
        progressStream: opts.json ? null : context.io.progressStream,
      });
      const files = paths.map((path) => resolve(context.cwd, path));
      const run = async (ports: IngestPorts) => {
        const result = await ingestFiles(files, ports, { format, onProgress: reporter.onProgress, onRejected: reporter.onRejected }).finally(() =>
          reporter.stopProgress(),
        );
        const lines = reporter.finish(result);
        emit(
          context,
          opts,
          {
            files: result.files,
            seconds: Math.round(result.seconds * 1000) / 1000,
            ...result.summary,
            rejections: reporter.rejections().map(({ location, format: importer, reason }) => ({ location, importer: importer ?? null, reason })),
          },
          () => lines,
        );
        if (opts.strict && result.summary.rejected > 0) {
          note(
            context,
            `admin: --strict: ${result.summary.rejected} record${result.summary.rejected === 1 ? ' was' : 's were'} rejected (the rest were imported)`,
          );
          context.exitCode = EXIT.rejections;
        }
      };
      if (opts.target === 'aws') {
        const ports = await awsIngestPorts({ stage: opts.stage, region: opts.region, tableName: opts.tableName });
        note(context, `writing to DynamoDB table ${ports.tableName}; its stream updates the search index`);
        try {
          await run(ports);
        } finally {
          ports.close();
        }
      } else {
        await context.withLocalStack(opts.dataDir, async (stack) => {
          await run(stack.services);
          await stack.markImported(files);
        });
      }
    });

  withTargetOptions(program.command('reindex'))
    .description('copy every record from the record store into the search index, embedding records whose text was never embedded (a backfill; safe to repeat)')
    .option('--search-endpoint <host>', 'aws: the search domain endpoint, skipping the stack lookup')
    .option('--embedding-dimensions <n>', 'aws: the Titan dimensions the stage is deployed with (256, 512, 1024), skipping the stack lookup')
    .option(
      '--rebuild',
      'aws: build new indices in the configured vector space and move the aliases to them once full (no downtime), then delete the old ones; run it after changing the embedder or dimensions',
      false,
    )
    .action(async (opts: TargetOptions & { searchEndpoint?: string; embeddingDimensions?: string; rebuild: boolean }) => {
      if (opts.target === 'local') {
        await context.rebuildLocalIndex(opts.dataDir);
        emit(context, opts, { rebuilt: true }, () => ['index rebuilt']);
        return;
      }
      const ports = await awsReindexPorts(opts);
      note(context, `${opts.rebuild ? 'rebuilding' : 'reindexing'} ${ports.tableName} into ${ports.endpoint}`);
      const terminal = context.io.progressStream;
      const onProgress = (kind: ResourceKind, indexed: number) => terminal?.write(`\r${kind.padEnd(9)} ${indexed}`);
      try {
        const rebuilt: { kind: ResourceKind; index: string; replaced: string[]; documents: number }[] = [];
        if (opts.rebuild) {
          for (const kind of RESOURCE_KINDS) {
            const { index, replaced, documents } = await ports.index.rebuild(kind, (write) =>
              reindexRecords(
                ports.store,
                { index: { upsert: (_kind, records, vectors) => write(records, vectors) }, embeddings: ports.embeddings },
                { kinds: [kind], onProgress },
              ).then(() => undefined),
            );
            terminal?.write('\n');
            rebuilt.push({ kind, index, replaced: [...replaced], documents });
          }
        }
        // A backfill (and, after a rebuild, the catch-up of writes the stream sent to the old indices meanwhile).
        const counts = await reindexRecords(ports.store, ports, { onProgress });
        terminal?.write('\n');
        emit(context, opts, { table: ports.tableName, endpoint: ports.endpoint, rebuilt, indexed: counts }, () => [
          ...rebuilt.map(
            ({ kind, index, replaced, documents }) =>
              `${kind.padEnd(9)} ${documents} indexed into ${index}${replaced.length > 0 ? `, replacing ${replaced.join(', ')}` : ''}`,
          ),
          ...RESOURCE_KINDS.map((kind) => `${kind.padEnd(9)} ${counts[kind]} indexed`),
        ]);
      } finally {
        ports.close();
      }
    });

  addKeyCommands(program, context);
  addAccountCommands(program, context);

  // Deliveries made locally go to the running server's queue when the command runs inside it;
  // from a stopped folder they wait in the delivery log, and npm start sends them when it starts.
  addWebhookCommands(program, context);
  addStatusCommand(program, context);
  addCanaryCommands(program, context);

  const local = program.command('local').description("the embedded stack's state (.local/)");

  withJsonOption(local.command('stats'))
    .description('count records of each kind in the search index, and pending change events')
    .option('--data-dir <dir>', 'state folder', DEFAULT_DATA_DIR)
    .action(async (opts: OutputOptions & { dataDir: string }) => {
      await context.withLocalStack(opts.dataDir, async ({ services, outbox, seededCatalogue, importedCatalogue }) => {
        const records: Partial<Record<ResourceKind, number>> = {};
        for (const kind of RESOURCE_KINDS) {
          const query = parseListQuery(kind, kind === 'funder' ? {} : { opportunity_type: ['all'] }, utcDate(services.clock));
          records[kind] = (await services.index.query(kind, { ...query, countOnly: true })).total;
        }
        const events = new Map<ChangeEventType, number>();
        for await (const page of outbox.scan()) for (const event of page) events.set(event.event, (events.get(event.event) ?? 0) + 1);
        const pending = Object.fromEntries([...events].sort());
        emit(context, opts, { records, pending_change_events: pending, seeded: seededCatalogue ?? null, imported: importedCatalogue ?? null }, () => [
          ...RESOURCE_KINDS.map((kind) => `${kind.padEnd(9)} ${records[kind]}`),
          `pending change events: ${
            Object.entries(pending)
              .map(([type, n]) => `${type} ${n}`)
              .join(', ') || 'none'
          }`,
          ...(seededCatalogue ? [`synthetic catalogue seeded for ${seededCatalogue.today} (seed ${seededCatalogue.seed})`] : []),
          ...(importedCatalogue ? [`imported ${importedCatalogue.importedAt} from ${importedCatalogue.sources.join(', ')}`] : []),
        ]);
      });
    });

  withJsonOption(local.command('reindex'))
    .description('drop the search index and rebuild it from the record store')
    .option('--data-dir <dir>', 'state folder', DEFAULT_DATA_DIR)
    .action(async (opts: OutputOptions & { dataDir: string }) => {
      await context.rebuildLocalIndex(opts.dataDir);
      emit(context, opts, { rebuilt: true }, () => ['index rebuilt']);
    });

  return program;
}

/** Expected failures (a missing file, an unknown stage) are one clear line; anything else also names its type. */
function isExpected(error: Error): boolean {
  return (
    error instanceof SourceFileError ||
    error instanceof AwsTargetError ||
    error instanceof KeyStateConflict ||
    error instanceof AccountConflict ||
    error instanceof ServiceError ||
    error instanceof WebhookConflict ||
    error instanceof DestinationRefused ||
    error instanceof InvalidFilter ||
    error instanceof DataDirInUseError ||
    error instanceof AdminChannelError ||
    error instanceof IndexRebuildInProgress
  );
}

/**
 * Runs one command line (without `node admin`) in `context` and resolves with its exit code. A
 * folder a running server owns is the exception: ServedByRunningServer is thrown, for the CLI to
 * send the command there.
 */
export async function runAdminCommand(argv: readonly string[], context: AdminContext): Promise<number> {
  try {
    await buildAdminProgram(context).parseAsync([...argv], { from: 'user' });
    return context.exitCode;
  } catch (error) {
    if (error instanceof ServedByRunningServer) throw error;
    // Commander has printed the usage error (or the help, or the version: exit code 0).
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    const failure = error as Error;
    const details = failure instanceof ServiceError && failure.details ? `: ${failure.details.map((d) => `${d.field} ${d.issue}`).join('; ')}` : '';
    note(context, `admin: ${isExpected(failure) ? `${failure.message}${details}` : `${failure.name}: ${failure.message}`}`);
    return EXIT.failure;
  }
}
