// `npm start`: the whole API on this machine, on the embedded stack (dynalite + SQLite FTS5), or
// with --engines on the AWS adapters (OpenSearch, ElasticMQ, dynalite with an emulated stream) and
// the Lambdas' composition roots. Each mode's modules load only once it is chosen: the local AWS
// mode sets the functions' environment before their code loads, as Lambda does.
import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { expandSourcePaths } from '../lambdas/adapters/source-files/read-source-files';
import { CORS_ORIGINS_ENV, type CorsOrigins, parseCorsOrigins } from '../lambdas/http/cors';
import { claimDataDir } from '../local/data-dir-lock';
import { DEFAULT_DATA_DIR, importedDataDirFor, LOCAL_AWS_DATA_DIR } from '../local/data-dirs';
import type { ServedAdminCommands } from '../local/serve-embedded';

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
    // The AWS adapters on real engines (npm run engines) instead of the embedded stack.
    engines: { type: 'boolean', default: false },
    // The origins browser apps may call from: comma-separated, or * (the default); also CORS_ALLOWED_ORIGINS.
    'cors-origins': { type: 'string' },
    // Connections the API server keeps open at once; more are closed as they arrive (default 256).
    'max-connections': { type: 'string' },
  },
});

const sources = (flags.data ?? []).map((path) => resolve(path));
if (sources.length > 0 && flags.grants !== undefined) fail('--grants sizes the synthetic catalogue; it cannot be combined with --data');
const grants = flags.grants === undefined ? undefined : Number(flags.grants);
if (grants !== undefined && !(Number.isInteger(grants) && grants >= 1)) fail('--grants must be a positive integer');
const port = Number(process.env.PORT ?? 3000);
if (!(Number.isInteger(port) && port >= 0 && port < 65536)) fail(`PORT must be a port number, got ${process.env.PORT}`);
const host = process.env.HOST ?? '127.0.0.1';
const maxConnections = flags['max-connections'] === undefined ? undefined : Number(flags['max-connections']);
if (maxConnections !== undefined && !(Number.isInteger(maxConnections) && maxConnections >= 1)) fail('--max-connections must be a positive integer');
const limits = { maxConnections };
let corsOrigins: CorsOrigins;
try {
  corsOrigins =
    flags['cors-origins'] !== undefined
      ? parseCorsOrigins(flags['cors-origins'], '--cors-origins')
      : parseCorsOrigins(process.env[CORS_ORIGINS_ENV], CORS_ORIGINS_ENV);
} catch (error) {
  fail((error as Error).message);
}

try {
  expandSourcePaths(sources); // a missing or unreadable --data path fails before any state is touched
  const mode = flags.engines ? 'engines' : 'embedded';
  const dataDir = flags['data-dir'] ?? (sources.length > 0 ? importedDataDirFor(sources, mode) : flags.engines ? LOCAL_AWS_DATA_DIR : DEFAULT_DATA_DIR);
  if (flags.reset && existsSync(dataDir)) {
    claimDataDir(dataDir)(); // refuses while another process owns the folder
    rmSync(dataDir, { recursive: true, force: true });
    console.log(`reset: removed ${dataDir}`);
  }
  if (flags.engines) {
    const { serveOnEngines } = await import('../local/aws-mode/serve-on-engines');
    await serveOnEngines({ dataDir, sources, seed: sources.length > 0 ? false : { grants }, port, host, corsOrigins, limits, say: (m) => console.log(m) });
  } else {
    const { serveEmbedded } = await import('../local/serve-embedded');
    // The admin program loads with the first admin command, not with every start.
    const adminCommands: ServedAdminCommands = async (stack, request, io) => (await import('./admin-served')).runServedCommand(stack, dataDir, request, io);
    await serveEmbedded({ dataDir, sources, grants, port, host, corsOrigins, limits, adminCommands });
  }
} catch (error) {
  fail((error as Error).message);
}
