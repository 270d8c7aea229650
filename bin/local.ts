// `npm start`: the whole API on this machine, on the embedded stack (dynalite + SQLite FTS5).
import { existsSync, rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { localRoutes } from '../local/api-routes';
import { claimDataDir } from '../local/data-dir-lock';
import { DEFAULT_DATA_DIR, startEmbeddedStack } from '../local/embedded-stack';
import { createApiServer, listen } from '../local/http-server';

function fail(message: string): never {
  console.error(`npm start: ${message}`);
  process.exit(1);
}

const { values: flags } = parseArgs({
  options: {
    reset: { type: 'boolean', default: false },
    'data-dir': { type: 'string', default: DEFAULT_DATA_DIR },
    // Size of the synthetic catalogue seeded on first start (the benchmark uses 100000).
    grants: { type: 'string' },
  },
});

const dataDir = flags['data-dir']!;
const grants = flags.grants === undefined ? undefined : Number(flags.grants);
if (grants !== undefined && !(Number.isInteger(grants) && grants >= 1)) fail('--grants must be a positive integer');
const port = Number(process.env.PORT ?? 3000);
if (!(Number.isInteger(port) && port >= 0 && port < 65536)) fail(`PORT must be a port number, got ${process.env.PORT}`);

try {
  if (flags.reset && existsSync(dataDir)) {
    claimDataDir(dataDir)(); // refuses while another process owns the folder
    rmSync(dataDir, { recursive: true, force: true });
    console.log(`reset: removed ${dataDir}`);
  }
  const stack = await startEmbeddedStack({
    dataDir,
    seed: grants === undefined ? true : { grants },
    onProgress: (m) => console.log(m),
  });
  const server = createApiServer(localRoutes(stack.services));
  const baseUrl = await listen(server, port, process.env.HOST ?? '127.0.0.1').catch(async (error: NodeJS.ErrnoException) => {
    await stack.close();
    throw error.code === 'EADDRINUSE' ? new Error(`port ${port} is in use: set PORT to another one`) : error;
  });
  console.log(`state: ${dataDir}`);
  console.log(`API ready at ${baseUrl}  (try ${baseUrl}/grants-api?limit=2)`);

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
