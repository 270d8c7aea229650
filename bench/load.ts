// `npm run bench:load`: the mixed load run (list, keyword, semantic and hybrid search, get-by-id,
// matching, all at once) against the local API, with per-kind latency and errors and the server's
// RSS over time; writes the load section of docs/benchmarks.md. See bench/load-bench.ts.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT, stopAllChildren } from './child-processes';
import { benchLoad, RSS_GROWTH_LIMIT } from './load-bench';
import { loadMarkers, loadSection, loadSectionKindOf, rssLine } from './load-report';
import { DEFAULT_LOAD_CONNECTIONS, splitConnections } from './load-workload';
import { DEFAULT_LOAD_DURATION_SECONDS, positiveInteger } from './options';
import { withMarkedSection } from './report';
import { BENCH_DATA_DIR } from './server-process';
import { writeReportWithSummary } from './summary-table';

const DEFAULT_LOAD_GRANTS = 100_000;

const USAGE = `usage: npm run bench:load -- [--duration 60] [--connections ${DEFAULT_LOAD_CONNECTIONS}] [--grants ${DEFAULT_LOAD_GRANTS}] [--out docs/benchmarks.md]
  --duration     seconds of load (BENCH_LOAD_DURATION, default ${DEFAULT_LOAD_DURATION_SECONDS}); runs longer than 60 s are held to RSS growth < ${RSS_GROWTH_LIMIT * 100}% after the first minute
                 and write the report's long-run section instead of the mixed load one
  --connections  total connections, split over the 6 kinds, at least one each (BENCH_LOAD_CONNECTIONS, default ${DEFAULT_LOAD_CONNECTIONS})
  --grants       catalogue size; bench/.data/grants-<N> is seeded on first use (BENCH_LOAD_GRANTS, default ${DEFAULT_LOAD_GRANTS})
  --out          report whose load section is rewritten (BENCH_OUT, default docs/benchmarks.md)
Exits 1 when any request failed or the RSS check failed (the report is written either way). Flags win over the environment.`;

interface LoadCliOptions {
  durationSeconds: number;
  connections: number;
  grants: number;
  outFile: string;
}

function parseLoadOptions(argv: string[], env: NodeJS.ProcessEnv): LoadCliOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: env.BENCH_LOAD_DURATION ?? String(DEFAULT_LOAD_DURATION_SECONDS) },
      connections: { type: 'string', default: env.BENCH_LOAD_CONNECTIONS ?? String(DEFAULT_LOAD_CONNECTIONS) },
      grants: { type: 'string', default: env.BENCH_LOAD_GRANTS ?? String(DEFAULT_LOAD_GRANTS) },
      out: { type: 'string', default: env.BENCH_OUT ?? 'docs/benchmarks.md' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const connections = positiveInteger('--connections', values.connections!, USAGE);
  splitConnections(connections);
  return {
    durationSeconds: positiveInteger('--duration', values.duration!, USAGE),
    connections,
    grants: positiveInteger('--grants', values.grants!, USAGE),
    outFile: values.out!,
  };
}

/** Rewrites the report's load section for this length of run, leaving every other section as it is. */
function writeLoadSection(outFile: string, durationSeconds: number, section: string): string {
  const path = resolve(PROJECT_ROOT, outFile);
  mkdirSync(dirname(path), { recursive: true });
  const previous = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n';
  writeReportWithSummary(path, withMarkedSection(previous, loadMarkers(loadSectionKindOf(durationSeconds)), section));
  return path;
}

async function main(): Promise<void> {
  const options = parseLoadOptions(process.argv.slice(2), process.env);
  // Every flag spelled out, whatever came from the environment, so the command reproduces the run.
  const command = `\`npm run bench:load -- --duration ${options.durationSeconds} --connections ${options.connections} --grants ${options.grants}\``;
  const result = await benchLoad({ ...options, command }, (line) => console.log(line));
  const path = writeLoadSection(options.outFile, result.durationSeconds, loadSection(result));
  // Every RSS sample and per-kind count, for a closer look than the report's (gitignored).
  const raw = join(BENCH_DATA_DIR, `load-${result.durationSeconds}s-${result.machine.startedAt.toISOString().slice(0, 16).replace(/[-:]/g, '')}.json`);
  writeFileSync(raw, `${JSON.stringify(result, null, 1)}\n`);
  console.log(`raw figures: ${raw}`);
  console.log(`\n${rssLine(result)}`);
  console.log(`errors: ${result.errors}; ${result.pass ? 'pass' : 'FAIL'}`);
  console.log(`wrote the load section of ${path} (${result.seconds.toFixed(0)} s)`);
  if (!result.pass) process.exitCode = 1;
}

// Ctrl-C or a kill mid-run: stop the servers (the API server closes LevelDB cleanly), then leave.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping child processes`);
    void stopAllChildren().finally(() => process.exit(130));
  });
}

try {
  await main();
} catch (error) {
  console.error(`\nbench:load failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await stopAllChildren();
}
