import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ENGINES_CACHE_DIR, type EngineName, engineRuntime } from './engine-artifacts';

/**
 * Starts, checks and stops the engines (`npm run engines -- start|stop|status`): each a Java
 * process in the background on loopback ports chosen free at start, with its data, log and state
 * file under .cache/engines/run/<name>/. A start waits until the engine answers its health check.
 */
export const ENGINE_NAMES: readonly EngineName[] = ['opensearch', 'elasticmq'];
/** The environment the engine suites read to find each engine. */
export const ENGINE_ENV = { opensearch: 'OPENSEARCH_URL', elasticmq: 'SQS_ENDPOINT' } as const satisfies Record<EngineName, string>;

export interface EngineState {
  name: EngineName;
  pid: number;
  /** Where clients reach it: OPENSEARCH_URL, or the SQS endpoint. */
  url: string;
  log: string;
  startedAt: string;
}

/** The Java versions OpenSearch 2.19 runs on; 24 and later refuse its security manager calls (DESIGN.md section 5). */
const JAVA_MAJOR = { min: 17, max: 21 } as const;
const HEALTH_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 30_000;
const HEAP = { opensearch: '768m', elasticmq: '256m' } as const;
/** A JVM size (512m, 2g): OPENSEARCH_HEAP overrides the node's heap, for catalogues far bigger than the suites' (the bench's million grants). */
const JVM_SIZE = /^\d+[mg]$/;

function openSearchHeap(): string {
  const given = process.env.OPENSEARCH_HEAP;
  if (given === undefined || given === '') return HEAP.opensearch;
  if (!JVM_SIZE.test(given)) throw new EngineStartFailed(`OPENSEARCH_HEAP must be a JVM size such as 768m or 2g, got "${given}"`);
  return given;
}

const runDirOf = (name: EngineName, cacheDir: string) => join(cacheDir, 'run', name);
const stateFileOf = (name: EngineName, cacheDir: string) => join(runDirOf(name, cacheDir), 'state.json');

export class EngineStartFailed extends Error {}

function javaCommand(): string {
  return process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

function checkJava(): void {
  const java = javaCommand();
  const probe = spawnSync(java, ['-version'], { encoding: 'utf8' });
  if (probe.error) throw new EngineStartFailed(`${java} could not be run (${probe.error.message}); install a JDK ${JAVA_MAJOR.min}`);
  const version = /version "(\d+)(?:\.(\d+))?/.exec(probe.stderr);
  const major = version ? Number(version[1] === '1' ? version[2] : version[1]) : NaN;
  if (!(major >= JAVA_MAJOR.min && major <= JAVA_MAJOR.max)) {
    throw new EngineStartFailed(
      `OpenSearch 2.19 needs Java ${JAVA_MAJOR.min} to ${JAVA_MAJOR.max}; ${java} is ${version ? major : 'of unknown version'} (set JAVA_HOME to a JDK 17)`,
    );
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether the engine answers: OpenSearch's cluster health at yellow or green, ElasticMQ's ListQueues. */
export async function healthy(state: Pick<EngineState, 'name' | 'url'>): Promise<boolean> {
  const probe = state.name === 'opensearch' ? `${state.url}/_cluster/health?wait_for_status=yellow&timeout=1s` : `${state.url}/?Action=ListQueues`;
  try {
    const response = await fetch(probe, { signal: AbortSignal.timeout(5_000) });
    return response.ok;
  } catch {
    return false;
  }
}

export function readState(name: EngineName, cacheDir = ENGINES_CACHE_DIR): EngineState | null {
  const file = stateFileOf(name, cacheDir);
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, 'utf8')) as EngineState;
}

function logTail(log: string): string {
  if (!existsSync(log)) return '(no log)';
  return readFileSync(log, 'utf8').trim().split('\n').slice(-8).join('\n');
}

function elasticMqConfig(port: number): string {
  return [
    'include classpath("application.conf")',
    `node-address { protocol = http, host = "127.0.0.1", port = ${port}, context-path = "" }`,
    `rest-sqs { enabled = true, bind-port = ${port}, bind-hostname = "127.0.0.1", sqs-limits = strict }`,
    'rest-stats { enabled = false }',
    '',
  ].join('\n');
}

/** Starts an engine (fetching what it needs first), or returns the one already running and healthy. */
export async function startEngine(name: EngineName, cacheDir = ENGINES_CACHE_DIR): Promise<EngineState> {
  const running = readState(name, cacheDir);
  if (running && alive(running.pid) && (await healthy(running))) return running;
  if (running) await stopEngine(name, cacheDir);
  checkJava();
  const runtime = engineRuntime(name, cacheDir);
  const home = runDirOf(name, cacheDir);
  // Each start is a fresh engine: suites create what they need.
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  const log = join(home, `${name}.log`);
  const port = await freePort();
  let args: string[];
  if (name === 'opensearch') {
    const heap = openSearchHeap();
    args = [`-Xms${heap}`, `-Xmx${heap}`, '-cp', runtime.classpath, runtime.mainClass, String(port), String(await freePort()), join(home, 'node')];
  } else {
    const config = join(home, 'elasticmq.conf');
    writeFileSync(config, elasticMqConfig(port));
    args = [`-Xmx${HEAP.elasticmq}`, `-Dconfig.file=${config}`, '-cp', runtime.classpath, runtime.mainClass];
  }
  const output = openSync(log, 'a');
  const child = spawn(javaCommand(), args, { detached: true, stdio: ['ignore', output, output], cwd: home });
  closeSync(output);
  child.unref();
  if (child.pid === undefined) throw new EngineStartFailed(`${name} did not start: see ${log}`);
  const state: EngineState = { name, pid: child.pid, url: `http://127.0.0.1:${port}`, log, startedAt: new Date().toISOString() };
  writeFileSync(stateFileOf(name, cacheDir), JSON.stringify(state, null, 2));
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!alive(child.pid)) throw new EngineStartFailed(`${name} exited during start-up; the end of ${log}:\n${logTail(log)}`);
    if (await healthy(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  await stopEngine(name, cacheDir);
  throw new EngineStartFailed(`${name} did not answer its health check within ${HEALTH_TIMEOUT_MS / 1000} s; the end of ${log}:\n${logTail(log)}`);
}

/** Stops an engine (SIGTERM, then SIGKILL after a grace period); true if one was running. */
export async function stopEngine(name: EngineName, cacheDir = ENGINES_CACHE_DIR): Promise<boolean> {
  const state = readState(name, cacheDir);
  if (!state) return false;
  const wasAlive = alive(state.pid);
  if (wasAlive) {
    process.kill(state.pid, 'SIGTERM');
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    while (alive(state.pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    if (alive(state.pid)) process.kill(state.pid, 'SIGKILL');
  }
  rmSync(stateFileOf(name, cacheDir), { force: true });
  return wasAlive;
}
