import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT, readProcessMemory, startNodeChild, type NodeChild } from './child-processes';

/** Data dirs live here (gitignored) and are kept, so a rerun skips seeding. */
export const BENCH_DATA_DIR = join(PROJECT_ROOT, 'bench', '.data');
const SEED_RECORD_FILE = 'bench-seed.json';
// Seeding 100,000 grants takes minutes on a quiet machine; this one is shared and noisy.
const API_READY_TIMEOUT_MS = 15 * 60_000;
const BASELINE_READY_TIMEOUT_MS = 30_000;

export interface RunningServer {
  child: NodeChild;
  /** e.g. http://127.0.0.1:41234/functions/v1 for the API, http://127.0.0.1:41235 for the baseline. */
  baseUrl: string;
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

export interface StartedApiServer {
  server: RunningServer;
  /** Null when the data dir predates seed records (seeded outside the bench). */
  seed: SeedRecord | null;
}

function launchApi(dataDir: string, grants: number, onLine: (line: string) => void, nodeFlags: string[]) {
  return startNodeChild({
    label: `API server (${grants} grants)`,
    script: 'bin/local.ts',
    args: ['--data-dir', dataDir, '--grants', String(grants)],
    // PORT=0: the kernel picks a free port, and the ready line tells us which.
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
    nodeFlags,
    readyLine: /API ready at (http:\/\/127\.0\.0\.1:\d+\/\S+)/,
    readyTimeoutMs: API_READY_TIMEOUT_MS,
    onLine,
  });
}

/**
 * Starts `bin/local.ts` on bench/.data/grants-<N>. When that start has to seed the catalogue,
 * it is timed and then restarted: the measured process should be a plain restart over existing
 * data, without the seeding heap in its RSS and peak.
 */
export async function startApiServer(grants: number, options: { log: (line: string) => void; nodeFlags?: string[] }): Promise<StartedApiServer> {
  const dataDir = join(BENCH_DATA_DIR, `grants-${grants}`);
  const seedFile = join(dataDir, SEED_RECORD_FILE);
  mkdirSync(dataDir, { recursive: true });

  let seeding = false;
  const onLine = (line: string) => {
    if (line.includes('seeding')) seeding = true;
    if (line.trim()) options.log(`  server: ${line}`);
  };
  const startedAt = performance.now();
  let { child, ready } = await launchApi(dataDir, grants, onLine, options.nodeFlags ?? []);

  if (seeding) {
    const seed: Omit<SeedRecord, 'inThisRun'> = {
      grants,
      seconds: (performance.now() - startedAt) / 1000,
      peakRssBytes: readProcessMemory(child.pid).peakRssBytes,
      seededAt: new Date().toISOString(),
    };
    writeFileSync(seedFile, `${JSON.stringify(seed, null, 2)}\n`);
    options.log(`  seeded ${grants} grants in ${seed.seconds.toFixed(1)} s; restarting on the seeded data`);
    await child.stop();
    ({ child, ready } = await launchApi(dataDir, grants, onLine, options.nodeFlags ?? []));
    return { server: { child, baseUrl: ready[1]! }, seed: { ...seed, inThisRun: true } };
  }

  const seed = existsSync(seedFile) ? { ...(JSON.parse(readFileSync(seedFile, 'utf8')) as SeedRecord), inThisRun: false } : null;
  return { server: { child, baseUrl: ready[1]! }, seed };
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
