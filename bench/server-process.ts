import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCAL_KEYS_FILE } from '../local/local-keys';
import { type NodeChild, PROJECT_ROOT, readProcessMemory, startNodeChild } from './child-processes';

/** Data dirs live here (gitignored) and are kept, so a rerun skips seeding. */
export const BENCH_DATA_DIR = join(PROJECT_ROOT, 'bench', '.data');
const SEED_RECORD_FILE = 'bench-seed.json';
// Seeding 100,000 grants embeds each one with the sentence model once (about 20-35 records/s on
// two cores, so an hour or more); later starts read the vectors from the data dir's cache.
const API_READY_TIMEOUT_MS = 150 * 60_000;
const BASELINE_READY_TIMEOUT_MS = 30_000;

export interface RunningServer {
  child: NodeChild;
  /** e.g. http://127.0.0.1:41234/functions/v1 for the API, http://127.0.0.1:41235 for the baseline. */
  baseUrl: string;
}

/** The Authorization header of the developer key `npm start` wrote into the API's state folder. */
export function benchAuthorization(grants: number): string {
  const keys = JSON.parse(readFileSync(join(BENCH_DATA_DIR, `grants-${grants}`, LOCAL_KEYS_FILE), 'utf8')) as { developer: string };
  return `Bearer ${keys.developer}`;
}

/** How long the first start of a data dir took, seeding included; kept next to the data. */
export interface SeedRecord {
  grants: number;
  seconds: number;
  /** Peak RSS of the seeding process, which is not the process we measure. */
  peakRssBytes: number;
  seededAt: string;
  /** False when the data dir was seeded by an earlier run and reused. */
  inThisRun: boolean;
}

/** The one-off work a data dir needed at the start of this catalogue's section, if any. */
export interface FirstStart {
  /** From the seed record kept in the data dir; null when it was seeded outside the bench. */
  seed: SeedRecord | null;
  /** Seconds to ready of a start in this run that rebuilt the search index (it does so after an index schema change). */
  indexRebuildSeconds: number | null;
}

export interface StartedApiServer {
  server: RunningServer;
  firstStart: FirstStart;
}

function launchApi(dataDir: string, grants: number, onLine: (line: string) => void, launch: { env: Record<string, string>; nodeFlags: string[] }) {
  return startNodeChild({
    label: `API server (${grants} grants)`,
    script: 'bin/local.ts',
    args: ['--data-dir', dataDir, '--grants', String(grants)],
    // PORT=0: the kernel picks a free port, and the ready line tells us which.
    env: { ...process.env, ...launch.env, PORT: '0', HOST: '127.0.0.1' },
    nodeFlags: launch.nodeFlags,
    readyLine: /API ready at (http:\/\/127\.0\.0\.1:\d+\/\S+)/,
    readyTimeoutMs: API_READY_TIMEOUT_MS,
    onLine,
  });
}

/**
 * How `npm start` runs the server (package.json's start script): the environment it sets before
 * `node` (glibc's malloc settings) and the Node options between `node` and the script, less the
 * `--import tsx` every child gets. The bench measures the server as users run it.
 */
export function startScriptLaunch(): { env: Record<string, string>; nodeFlags: string[] } {
  const { scripts } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const words = scripts.start.split(/\s+/);
  const env: Record<string, string> = {};
  while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0]!)) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  if (words[0] !== 'node' || !words.includes('bin/local.ts'))
    throw new Error(`package.json's start script is not \`[NAME=value …] node … bin/local.ts\`: ${scripts.start}`);
  const flags = words.slice(1, words.indexOf('bin/local.ts'));
  const tsx = flags.findIndex((flag, i) => flag === '--import' && flags[i + 1] === 'tsx');
  if (tsx >= 0) flags.splice(tsx, 2);
  return { env, nodeFlags: flags };
}

/** The JSON line the server logs for each request it answered (lambdas/http/lambda-handler.ts). */
const ACCESS_LOG_LINE = /^\{"level":"INFO","message":"request",/;

/**
 * Starts `bin/local.ts` on bench/.data/grants-<N>. When that start does one-off work (seeding the
 * catalogue, or rebuilding the search index after a schema change), it is timed and the server
 * restarted: the measured process should be a plain restart over ready data, without that work's
 * heap in its RSS and peak.
 */
export async function startApiServer(grants: number, options: { log: (line: string) => void; nodeFlags?: string[] }): Promise<StartedApiServer> {
  const dataDir = join(BENCH_DATA_DIR, `grants-${grants}`);
  const seedFile = join(dataDir, SEED_RECORD_FILE);
  mkdirSync(dataDir, { recursive: true });

  const seen = { oneOffWork: null as 'seeding' | 'index rebuild' | null };
  const onLine = (line: string) => {
    // The progress lines bin/local.ts prints for its one-off work (local/embedded-stack.ts).
    if (line.includes('seeding a synthetic catalogue')) seen.oneOffWork = 'seeding';
    else if (line.includes('rebuilt the search index')) seen.oneOffWork ??= 'index rebuild';
    // One access-log line a request would bury the bench's own output under millions of lines;
    // the server still writes them (its logging is part of what is measured).
    if (line.trim() && !ACCESS_LOG_LINE.test(line)) options.log(`  server: ${line}`);
  };
  const start = startScriptLaunch();
  const launch = { env: start.env, nodeFlags: [...start.nodeFlags, ...(options.nodeFlags ?? [])] };
  const startedAt = performance.now();
  const first = await launchApi(dataDir, grants, onLine, launch);
  const seconds = (performance.now() - startedAt) / 1000;
  const work = seen.oneOffWork;
  const earlierSeed = (): SeedRecord | null =>
    existsSync(seedFile) ? { ...(JSON.parse(readFileSync(seedFile, 'utf8')) as SeedRecord), inThisRun: false } : null;

  if (work === null) {
    return { server: { child: first.child, baseUrl: first.ready[1]! }, firstStart: { seed: earlierSeed(), indexRebuildSeconds: null } };
  }

  let seed = earlierSeed();
  if (work === 'seeding') {
    const record = { grants, seconds, peakRssBytes: readProcessMemory(first.child.pid).peakRssBytes, seededAt: new Date().toISOString() };
    writeFileSync(seedFile, `${JSON.stringify(record, null, 2)}\n`);
    seed = { ...record, inThisRun: true };
  }
  options.log(`  first start did ${work} (${seconds.toFixed(1)} s to ready); restarting on the ready data`);
  await first.child.stop();
  const { child, ready } = await launchApi(dataDir, grants, onLine, launch);
  return {
    server: { child, baseUrl: ready[1]! },
    firstStart: { seed, indexRebuildSeconds: work === 'index rebuild' ? seconds : null },
  };
}

/** The bare node:http baseline, serving `page` (written where the child can read it). */
export async function startBaselineServer(page: Buffer, contentType: string): Promise<RunningServer> {
  const pageFile = join(BENCH_DATA_DIR, 'baseline-page.json');
  mkdirSync(BENCH_DATA_DIR, { recursive: true });
  writeFileSync(pageFile, page);
  const { child, ready } = await startNodeChild({
    label: 'baseline server',
    script: 'bench/baseline-server.ts',
    args: [pageFile, contentType],
    readyLine: /baseline ready at (http:\/\/127\.0\.0\.1:\d+)/,
    readyTimeoutMs: BASELINE_READY_TIMEOUT_MS,
  });
  return { child, baseUrl: ready[1]! };
}
