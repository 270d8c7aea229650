import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Node children for the bench (API server, baseline server), run as `node --import tsx script`
 * rather than through npx/tsx so the pid we hold is the process serving requests: its
 * /proc/<pid>/status is the memory we report. Every child is registered here and stopped on
 * every way out of the bench.
 */

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXIT_WITH_PARENT = fileURLToPath(new URL('./exit-with-parent.ts', import.meta.url));
const STOP_GRACE_MS = 15_000;
const OUTPUT_KEPT_CHARS = 16_000;

export interface NodeChild {
  readonly label: string;
  readonly pid: number;
  /** The tail of what the child printed (stdout and stderr), for error messages. */
  output(): string;
  /** SIGTERM, then SIGKILL if it has not exited within the grace period. */
  stop(): Promise<void>;
}

export interface StartOptions {
  label: string;
  /** Script path relative to the project root. */
  script: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[];
  /** The child is ready when a line of its stdout matches. */
  readyLine: RegExp;
  readyTimeoutMs: number;
  onLine?: (line: string) => void;
}

const liveChildren = new Set<ChildProcess>();

// Last resort: whatever is still running when the bench exits (normally nothing) dies with it.
process.on('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (!exited(child)) {
    child.kill('SIGTERM');
    if (!(await waitForExit(child, STOP_GRACE_MS))) {
      child.kill('SIGKILL');
      await waitForExit(child, STOP_GRACE_MS);
    }
  }
  liveChildren.delete(child);
}

export async function stopAllChildren(): Promise<void> {
  await Promise.all([...liveChildren].map(stopChild));
}

/** Starts the script and resolves once its ready line appears, with that line's match. */
export async function startNodeChild(options: StartOptions): Promise<{ child: NodeChild; ready: RegExpMatchArray }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', '--import', EXIT_WITH_PARENT, ...(options.nodeFlags ?? []), options.script, ...options.args], {
    cwd: PROJECT_ROOT,
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  liveChildren.add(proc);
  if (proc.pid === undefined) {
    liveChildren.delete(proc);
    throw new Error(`${options.label}: could not start ${options.script}`);
  }

  let tail = '';
  const remember = (text: string) => {
    tail = (tail + text).slice(-OUTPUT_KEPT_CHARS);
  };
  const child: NodeChild = { label: options.label, pid: proc.pid, output: () => tail, stop: () => stopChild(proc) };

  const ready = new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.label}: not ready after ${options.readyTimeoutMs / 1000} s`)), options.readyTimeoutMs);
    let partial = '';
    // Always drained, also after the ready line: a child blocked on a full stdout pipe would stall.
    proc.stdout!.setEncoding('utf8').on('data', (text: string) => {
      remember(text);
      const lines = (partial + text).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        options.onLine?.(line);
        const match = line.match(options.readyLine);
        if (match) {
          clearTimeout(timer);
          resolve(match);
        }
      }
    });
    proc.stderr!.setEncoding('utf8').on('data', remember);
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      liveChildren.delete(proc);
      reject(new Error(`${options.label} exited (code ${code}, signal ${signal}) before it was ready`));
    });
    proc.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });

  try {
    return { child, ready: await ready };
  } catch (error) {
    await stopChild(proc);
    throw new Error(`${(error as Error).message}\n--- its output ---\n${tail}`);
  }
}

export interface ProcessMemory {
  /** Resident set size now. */
  rssBytes: number;
  /** Peak resident set size since the process started (VmHWM). */
  peakRssBytes: number;
}

export function readProcessMemory(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => {
    const match = status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
    return Number(match[1]) * 1024;
  };
  return { rssBytes: kib('VmRSS'), peakRssBytes: kib('VmHWM') };
}
