import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from './child-processes';
import { describeMachine, type MachineInfo } from './machine';
import { BENCH_DATA_DIR, startApiServer } from './server-process';

/**
 * Admin commands as a platform engineer runs them (`node --import tsx bin/admin.ts … --json`, a
 * fresh process each, wall time to exit) on the bench's seeded state folder: with the server
 * stopped, where the CLI opens the folder itself, and with `npm start` running, where the CLI sends
 * the command over the admin channel. Beside `admin --help` in the same rounds: the CLI's own
 * start (tsx, the program's modules), the floor both ways share.
 */

const run = promisify(execFile);
/** Commands that only read, so every sample does the same work. */
export const ADMIN_BENCH_COMMANDS = [
  ['keys', 'list'],
  ['local', 'stats'],
] as const;
const SAMPLES_PER_ROUND = 3;

export interface AdminBenchResult {
  machine: MachineInfo;
  grants: number;
  rounds: number;
  /** Samples of each way in each round. */
  samplesPerRound: number;
  /** Wall ms per sample, by command (`keys list`) and way (`stopped`, `running`), and the floor. */
  stoppedMs: Record<string, number[]>;
  runningMs: Record<string, number[]>;
  floorMs: number[];
  seconds: number;
}

async function timed(args: readonly string[]): Promise<number> {
  const started = performance.now();
  await run(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], { cwd: PROJECT_ROOT, timeout: 120_000 });
  return performance.now() - started;
}

export async function benchAdmin(grants: number, rounds: number, log: (line: string) => void): Promise<AdminBenchResult> {
  const dataDir = join(BENCH_DATA_DIR, `grants-${grants}`);
  const startedAt = performance.now();
  const result: AdminBenchResult = {
    machine: describeMachine(),
    grants,
    rounds,
    samplesPerRound: SAMPLES_PER_ROUND,
    stoppedMs: {},
    runningMs: {},
    floorMs: [],
    seconds: 0,
  };
  /** One way's samples of each command, each followed by the floor. */
  const sampleInto = async (byCommand: Record<string, number[]>) => {
    for (let sample = 0; sample < SAMPLES_PER_ROUND; sample++) {
      for (const command of ADMIN_BENCH_COMMANDS) (byCommand[command.join(' ')] ??= []).push(await timed([...command, '--json', '--data-dir', dataDir]));
      result.floorMs.push(await timed(['--help']));
    }
  };
  log(`admin: ${ADMIN_BENCH_COMMANDS.map((c) => c.join(' ')).join(', ')} on ${grants} grants, stopped and running, ${rounds} rounds`);
  for (let round = 1; round <= rounds; round++) {
    // The server's start is not measured: it is started (and stopped) between the two halves of each round.
    const { server } = await startApiServer(grants, { log: () => undefined });
    await sampleInto(result.runningMs);
    await server.child.stop();
    await sampleInto(result.stoppedMs);
    log(`  round ${round}/${rounds} done`);
  }
  result.seconds = (performance.now() - startedAt) / 1000;
  return result;
}
