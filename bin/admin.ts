// `npm run admin -- <command>`: platform commands. This version covers the local state; keys,
// webhooks and ingest arrive with their issues.
import { Command } from 'commander';
import { parseListQuery } from '../lambdas/core/query/list-query';
import { RESOURCE_KINDS } from '../lambdas/core/records';
import { utcDate } from '../lambdas/ports/clock';
import { DEFAULT_DATA_DIR, removeLocalIndex, startEmbeddedStack } from '../local/embedded-stack';

async function withLocalStack<T>(dataDir: string, run: (stack: Awaited<ReturnType<typeof startEmbeddedStack>>) => Promise<T>): Promise<T> {
  const stack = await startEmbeddedStack({ dataDir, seed: false, onProgress: (m) => console.error(m) });
  try {
    return await run(stack);
  } finally {
    await stack.close();
  }
}

const program = new Command('admin').description('Grants, Contracts and Funders Data Service: platform commands');
const local = program.command('local').description('the embedded stack\'s state (.local/)');

local
  .command('stats')
  .description('count records of each kind in the search index')
  .option('--data-dir <dir>', 'state folder', DEFAULT_DATA_DIR)
  .action(async (opts: { dataDir: string }) => {
    await withLocalStack(opts.dataDir, async ({ services, seededCatalogue }) => {
      for (const kind of RESOURCE_KINDS) {
        const query = parseListQuery(kind, kind === 'funder' ? {} : { opportunity_type: ['all'] }, utcDate(services.clock));
        const { total } = await services.index.query(kind, { ...query, countOnly: true });
        console.log(`${kind.padEnd(9)} ${total}`);
      }
      if (seededCatalogue) console.log(`synthetic catalogue seeded for ${seededCatalogue.today} (seed ${seededCatalogue.seed})`);
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
  console.error(`admin: ${error.message}`);
  process.exit(1);
});
