// `npm start`: the whole API on this machine, on the embedded stack (dynalite + SQLite FTS5).
import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ingestFiles } from '../lambdas/adapters/source-files/ingest-files';
import { expandSourcePaths } from '../lambdas/adapters/source-files/read-source-files';
import { localAuthorizer, localRoutes } from '../local/api-routes';
import { ensureLocalKeys } from '../local/local-keys';
import { claimDataDir } from '../local/data-dir-lock';
import { DEFAULT_DATA_DIR, importedDataDirFor, startEmbeddedStack } from '../local/embedded-stack';
import { ingestReporter } from '../local/ingest-report';
import { createApiServer, listen } from '../local/http-server';

function fail(message: string): never {
  console.error(`npm start: ${message}`);
  process.exit(1);
}

const { values: flags } = parseArgs({
  options: {
    reset: { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    // Size of the synthetic catalogue seeded on first start (the benchmark uses 100000).
    grants: { type: 'string' },
    // Serve a catalogue imported from these public source files or folders instead of the synthetic one.
    data: { type: 'string', multiple: true },
  },
});

const sources = (flags.data ?? []).map((path) => resolve(path));
if (sources.length > 0 && flags.grants !== undefined) fail('--grants sizes the synthetic catalogue; it cannot be combined with --data');
const dataDir = flags['data-dir'] ?? (sources.length > 0 ? importedDataDirFor(sources) : DEFAULT_DATA_DIR);
const grants = flags.grants === undefined ? undefined : Number(flags.grants);
if (grants !== undefined && !(Number.isInteger(grants) && grants >= 1)) fail('--grants must be a positive integer');
const port = Number(process.env.PORT ?? 3000);
if (!(Number.isInteger(port) && port >= 0 && port < 65536)) fail(`PORT must be a port number, got ${process.env.PORT}`);

try {
  expandSourcePaths(sources); // a missing or unreadable --data path fails before any state is touched
  if (flags.reset && existsSync(dataDir)) {
    claimDataDir(dataDir)(); // refuses while another process owns the folder
    rmSync(dataDir, { recursive: true, force: true });
    console.log(`reset: removed ${dataDir}`);
  }
  const stack = await startEmbeddedStack({
    dataDir,
    seed: sources.length > 0 ? false : grants === undefined ? true : { grants },
    onProgress: (m) => console.log(m),
    // Change events go to webhook subscriptions (npm run admin -- webhooks add), with the production retry schedule.
    webhooks: {},
  });
  if (sources.length > 0) {
    const imported = stack.importedCatalogue;
    if (imported && imported.sources.join('\n') === sources.join('\n')) {
      console.log(`serving the catalogue imported ${imported.importedAt} (to refresh: npm run admin -- ingest <files> --data-dir ${dataDir})`);
    } else {
      console.log(`importing ${sources.join(', ')}…`);
      const reporter = ingestReporter({ rejectionsFile: resolve(dataDir, 'ingest-rejections.tsv'), showProgress: true });
      const result = await ingestFiles(sources, stack.services, { onProgress: reporter.onProgress, onRejected: reporter.onRejected })
        .catch(async (error: Error) => {
          await stack.close();
          throw error;
        });
      for (const line of reporter.finish(result)) console.log(line);
      await stack.markImported(sources);
    }
  }
  const localKeys = await ensureLocalKeys(stack.services, dataDir);
  if (localKeys.created) {
    console.log(`created one API key per tier, saved to ${localKeys.file} (keep them; only their hashes are stored):`);
    for (const [tier, key] of Object.entries(localKeys.keys)) console.log(`  ${tier.padEnd(9)} ${key}`);
  }
  const server = createApiServer(localRoutes(stack.services), localAuthorizer(stack.services));
  const baseUrl = await listen(server, port, process.env.HOST ?? '127.0.0.1').catch(async (error: NodeJS.ErrnoException) => {
    await stack.close();
    throw error.code === 'EADDRINUSE' ? new Error(`port ${port} is in use: set PORT to another one`) : error;
  });
  console.log(`state: ${dataDir}`);
  console.log(`API ready at ${baseUrl}  (try: curl -H "Authorization: Bearer $(node -p 'require("${localKeys.file}").developer')" "${baseUrl}/grants-api?limit=2")`);

  const shutdown = async () => {
    server.close();
    await stack.close();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
} catch (error) {
  fail((error as Error).message);
}
