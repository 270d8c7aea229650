import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

export interface RunningCommand {
  child: ChildProcess;
  pid: number;
  /** stdout and stderr so far, interleaved as they came. */
  output(): string;
  /** Resolves when the process has exited (and been reaped): its code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();

/** Kills (SIGKILL, by pid) every command this module started that is still running: for afterAll, so no import outlives its test. */
export async function killStartedCommands(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** `npm run admin -- <args>` as a child process of the test (node --import tsx, as test/support/admin-cli.ts runs it), not awaited. */
export function startAdmin(args: readonly string[]): RunningCommand {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, pid: child.pid!, output: () => output, exited };
}

/** Runs an admin command to its end; throws with its output unless it exits 0. */
export async function runAdminToEnd(args: readonly string[]): Promise<string> {
  const command = startAdmin(args);
  const { code, signal } = await command.exited;
  if (code !== 0) throw new Error(`admin ${args.join(' ')} ended with ${signal ?? `exit ${code}`}:\n${command.output()}`);
  return command.output();
}
