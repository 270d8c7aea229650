import { resolve } from 'node:path';
import { DASHBOARD_DIST, ensureDashboardBuilt } from '../dashboard/build';
import { ingestFiles } from '../lambdas/adapters/source-files/ingest-files';
import { allowsAnyOrigin, type CorsOrigins } from '../lambdas/http/cors';
import { embeddedAccountServices } from './account-services';
import type { AdminRequest } from './admin-channel/channel-protocol';
import { type AdminChannel, AdminChannelUnavailable, type ChannelIo, openAdminChannel } from './admin-channel/channel-server';
import { localAccountRoutes, localAuthorizer, localRoutes } from './api-routes';
import { dashboardMount } from './dashboard-site';
import type { EmbeddedStack } from './embedded-stack';
import { startEmbeddedStack } from './embedded-stack';
import { closeOnSignals, createApiServer, listen, type ServerLimits } from './http-server';
import { ingestReporter, stderrTerminal } from './ingest-report';
import { ensureLocalKeys } from './local-keys';
import { type LocalOpenIdProvider, localIdentityVerifier, localOpenIdMount, startLocalOpenIdProvider } from './oidc/local-openid-provider';
import { catalogueWithGrants } from './synthetic-catalogue';

/** Runs an admin command for a client of the admin channel (bin/admin-served.ts); resolves with its exit code. */
export type ServedAdminCommands = (stack: EmbeddedStack, request: AdminRequest, io: ChannelIo) => Promise<{ exitCode: number; command: string | null }>;

/** On stopping, how long an admin command under way may take to finish before the stack closes under it. */
const ADMIN_COMMAND_GRACE_MS = 60_000;

const logLine = (message: string, fields: object) => console.log(JSON.stringify({ level: 'INFO', message, timestamp: new Date().toISOString(), ...fields }));

/** `npm start` on the embedded stack (dynalite + SQLite FTS5): the route handlers on the embedded services. */
export async function serveEmbedded(options: {
  dataDir: string;
  sources: string[];
  grants?: number;
  port: number;
  host: string;
  corsOrigins: CorsOrigins;
  /** The API server's connection limit and timeouts (`--max-connections`); the defaults otherwise. */
  limits?: Partial<ServerLimits>;
  /** `npm run admin` commands for this state folder run here while the server owns it. */
  adminCommands?: ServedAdminCommands;
}): Promise<void> {
  const { dataDir, sources, grants, port } = options;
  const stack = await startEmbeddedStack({
    dataDir,
    seed: sources.length > 0 ? false : grants === undefined ? true : catalogueWithGrants(grants),
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
      const reporter = ingestReporter({ rejectionsFile: resolve(dataDir, 'ingest-rejections.tsv'), progressStream: stderrTerminal() });
      const result = await ingestFiles(sources, stack.services, { onProgress: reporter.onProgress, onRejected: reporter.onRejected }).catch(
        async (error: Error) => {
          await stack.close();
          throw error;
        },
      );
      for (const line of reporter.finish(result)) console.log(line);
      await stack.markImported(sources);
    }
  }
  const localKeys = await ensureLocalKeys(stack.services, dataDir);
  if (localKeys.created) {
    // Shown once, and only on a terminal: output sent elsewhere may be a log file others can read.
    const shown = process.stdout.isTTY === true;
    console.log(
      `created one API key per tier, saved to ${localKeys.file} (readable by you only; only their hashes are stored)${shown ? ':' : '; not shown here, as output is not a terminal'}`,
    );
    if (shown) for (const [tier, key] of Object.entries(localKeys.keys)) console.log(`  ${tier.padEnd(9)} ${key}`);
  }
  await buildDashboardIfStale();
  let signIn: LocalOpenIdProvider | null = null;
  const accountServices = embeddedAccountServices(
    stack,
    localIdentityVerifier(() => signIn),
  );
  const routes = [...localRoutes(stack.services), ...localAccountRoutes(accountServices)];
  const server = createApiServer(routes, localAuthorizer(stack.services), {
    corsOrigins: options.corsOrigins,
    limits: options.limits,
    logRequest: (line) => logLine('request', line),
    mounts: [localOpenIdMount(() => signIn), dashboardMount({ siteDir: DASHBOARD_DIST, provider: () => signIn })],
  });
  const baseUrl = await listen(server, port, options.host).catch(async (error: NodeJS.ErrnoException) => {
    await stack.close();
    throw error.code === 'EADDRINUSE' ? new Error(`port ${port} is in use: set PORT to another one`) : error;
  });
  signIn = await startLocalOpenIdProvider({ origin: new URL(baseUrl).origin, dataDir });
  // Before "API ready": scripts that wait for it may send admin commands at once.
  const channel = options.adminCommands ? await openChannel(dataDir, stack, options.adminCommands) : null;
  console.log(`state: ${dataDir}`);
  console.log(signInLine(signIn));
  console.log(`CORS: ${allowsAnyOrigin(options.corsOrigins) ? 'any origin' : options.corsOrigins.join(', ')} (--cors-origins)`);
  console.log(
    `API ready at ${baseUrl}  (try: curl -H "Authorization: Bearer $(node -p 'require("${localKeys.file}").developer')" "${baseUrl}/grants-api?limit=2")`,
  );

  closeOnSignals(server, async () => {
    await channel?.close(ADMIN_COMMAND_GRACE_MS);
    await stack.close();
  });
}

/** A fresh checkout has no dashboard/dist: build it (or rebuild a stale one); the API runs on if that fails. */
async function buildDashboardIfStale(): Promise<void> {
  try {
    if ((await ensureDashboardBuilt()) === 'built') console.log(`dashboard: built into ${DASHBOARD_DIST}`);
  } catch (error) {
    console.log(`dashboard: not built (${(error as Error).message}); the API runs without it (npm run build:dashboard)`);
  }
}

/** The dashboard's sign-in: the password on a terminal only, as the keys are (it is in the state folder either way). */
function signInLine(signIn: LocalOpenIdProvider): string {
  const { email, password, file } = signIn.developmentAccount;
  const secret = process.stdout.isTTY === true ? `password ${password}` : `password in ${file}`;
  return `sign-in: issuer ${signIn.issuer}, dashboard ${signIn.dashboardUrl}, development account ${email} (${secret})`;
}

/** The admin channel (a Unix socket in the state folder, never the API's port); the server runs on without it when it cannot open. */
async function openChannel(dataDir: string, stack: EmbeddedStack, commands: ServedAdminCommands): Promise<AdminChannel | null> {
  try {
    const channel = await openAdminChannel({ dataDir, run: (request, io) => commands(stack, request, io), log: logLine });
    console.log(`admin: \`npm run admin -- …\` for this state folder runs in this server (${channel.socketPath})`);
    return channel;
  } catch (error) {
    // The API runs on without it (a folder too deep for a socket path, one whose permissions refuse it).
    const why = error instanceof AdminChannelUnavailable ? error.message : `cannot open it (${(error as Error).message})`;
    console.log(`admin channel off: ${why}; admin commands need this server stopped`);
    return null;
  }
}
