// `npm run admin -- <command>`: platform commands against the local state (.local/) or a deployed stage.
// The pinned AWS SDK runs on this machine's Node 20; its notice that 2027 releases need Node 22 is
// for whoever upgrades the SDK, not for every command.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ingestFiles } from '../lambdas/adapters/source-files/ingest-files';
import { SourceFileError } from '../lambdas/adapters/source-files/read-source-files';
import { SOURCE_FORMAT_IDS, SOURCE_FORMATS, sourceFormatById } from '../lambdas/core/ingest/formats';
import type { ChangeEventType } from '../lambdas/core/change-feed';
import { parseListQuery } from '../lambdas/core/query/list-query';
import { RESOURCE_KINDS } from '../lambdas/core/records';
import type { IngestPorts } from '../lambdas/core/use-cases/ingest-records';
import { reindexRecords } from '../lambdas/core/use-cases/reindex-records';
import { utcDate } from '../lambdas/ports/clock';
import { AwsTargetError, awsIngestPorts, awsReindexPorts } from '../local/aws-target';
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
  .description('copy every record from the record store into the search index (a backfill; safe to repeat)')
  .option('--search-endpoint <host>', 'aws: the search domain endpoint, skipping the stack lookup')
  .action(async (opts: TargetOptions & { searchEndpoint?: string }) => {
    if (opts.target === 'local') {
      removeLocalIndex(opts.dataDir);
      await withLocalStack(opts.dataDir, async () => console.log('index rebuilt'));
      return;
    }
    const ports = await awsReindexPorts({ stage: opts.stage, region: opts.region, tableName: opts.tableName, searchEndpoint: opts.searchEndpoint });
    console.error(`reindexing ${ports.tableName} into ${ports.endpoint}`);
    try {
      const counts = await reindexRecords(ports.store, ports.index, {
        onProgress: (kind, indexed) => { if (process.stderr.isTTY) process.stderr.write(`\r${kind.padEnd(9)} ${indexed}`); },
      });
      if (process.stderr.isTTY) process.stderr.write('\n');
      for (const kind of RESOURCE_KINDS) console.log(`${kind.padEnd(9)} ${counts[kind]} indexed`);
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
  const expected = error instanceof SourceFileError || error instanceof AwsTargetError;
  console.error(`admin: ${expected ? error.message : `${error.name}: ${error.message}`}`);
  process.exit(1);
});
