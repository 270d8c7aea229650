// `npm run test:engines`: the AWS adapters against real engines. Starts OpenSearch 2.19 (k-NN)
// and ElasticMQ (npm run engines), runs the suites that need them with OPENSEARCH_URL and
// SQS_ENDPOINT set, and stops the engines again, whatever the outcome. An engine that cannot be
// fetched or started fails the run with its artifact's name: these suites never skip silently.
import { spawnSync } from 'node:child_process';
import { ENGINE_ENV, ENGINE_NAMES, startEngine, stopEngine } from '../local/engines/engine-processes';

/** The suites that run against the engines (each also runs, or skips, inside `npm test`). */
const ENGINE_SUITES = ['test/integration/search-index-contract.test.ts', 'test/engines', 'test/reliability/search-domain-faults-on-engine.test.ts'];

async function main(): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env, GCF_ENGINES_REQUIRED: '1' };
  try {
    for (const name of ENGINE_NAMES) {
      const started = Date.now();
      const state = await startEngine(name);
      env[ENGINE_ENV[name]] = state.url;
      console.log(`test:engines: ${name} at ${state.url} (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
    const run = spawnSync('npx', ['vitest', 'run', ...ENGINE_SUITES, ...process.argv.slice(2)], { stdio: 'inherit', env });
    return run.status ?? 1;
  } catch (error) {
    console.error(`test:engines: ${(error as Error).message}`);
    return 1;
  } finally {
    for (const name of ENGINE_NAMES) await stopEngine(name);
  }
}

process.exitCode = await main();
