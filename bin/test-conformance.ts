// `npm run test:conformance`: Schemathesis, from PyPI in a virtual environment of its own
// (.cache/schemathesis, pinned by test/conformance/requirements.txt), against the local server
// (`npm start` on a fresh synthetic catalogue) over every operation of docs/openapi.json, with
// the developer key as a header: every check Schemathesis has, examples, coverage, fuzzing and
// stateful phases. Exits with Schemathesis's code: 0 only when nothing failed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const VENV = join(ROOT, '.cache', 'schemathesis');
const REQUIREMENTS = join(ROOT, 'test', 'conformance', 'requirements.txt');
const SCHEMATHESIS = join(VENV, 'bin', 'schemathesis');
const PINNED = /^schemathesis==(\S+)$/m.exec(readFileSync(REQUIREMENTS, 'utf8'))?.[1];

function ensureSchemathesis(): void {
  const version = existsSync(SCHEMATHESIS) ? (spawnSync(SCHEMATHESIS, ['--version'], { encoding: 'utf8' }).stdout ?? '') : '';
  if (PINNED && version.includes(PINNED)) return;
  console.log(`test:conformance: installing schemathesis ${PINNED} into ${VENV}`);
  const steps: [string, string[]][] = [
    ['python3', ['-m', 'venv', '--clear', VENV]],
    [join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '-r', REQUIREMENTS]],
  ];
  for (const [command, args] of steps) {
    const run = spawnSync(command, args, { stdio: 'inherit' });
    if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${run.status})`);
  }
}

/** `npm start` on a synthetic catalogue in a fresh folder; resolves with its base URL once it serves. */
function startLocalServer(dataDir: string): Promise<{ baseUrl: string; stop: () => void }> {
  const server = spawn('npx', ['tsx', 'bin/local.ts', '--data-dir', dataDir, '--grants', '300'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const stop = () => {
    try {
      process.kill(-server.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  return new Promise((resolve, reject) => {
    let output = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /API ready at (http:\/\/\S+\/functions\/v1)/.exec(output);
      if (ready) resolve({ baseUrl: ready[1]!, stop });
    });
    server.on('exit', (code) => reject(new Error(`the local server exited (${code}) before serving:\n${output}`)));
  });
}

async function main(): Promise<number> {
  ensureSchemathesis();
  const dataDir = mkdtempSync(join(tmpdir(), 'gcf-conformance-'));
  const { baseUrl, stop } = await startLocalServer(dataDir);
  try {
    const { developer } = JSON.parse(readFileSync(join(dataDir, 'keys.json'), 'utf8')) as { developer: string };
    console.log(`test:conformance: schemathesis against ${baseUrl}`);
    const run = spawnSync(
      SCHEMATHESIS,
      [
        'run',
        `${baseUrl}/openapi.json`,
        '--header',
        `Authorization: Bearer ${developer}`,
        '--checks',
        'all',
        '--max-examples',
        process.env.CONFORMANCE_MAX_EXAMPLES ?? '100',
        '--seed',
        process.env.CONFORMANCE_SEED ?? '20261126',
        '--workers',
        '1', // hypothesis's lambda-source cache is not thread-safe on Python 3.11 ("AST constructor recursion depth mismatch")
        '--no-color',
        ...process.argv.slice(2),
      ],
      { stdio: 'inherit', env: { ...process.env, SCHEMATHESIS_HOOKS: 'schemathesis_hooks', PYTHONPATH: join(ROOT, 'test', 'conformance') } },
    );
    return run.status ?? 1;
  } finally {
    stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

process.exitCode = await main().catch((error: Error) => {
  console.error(`test:conformance: ${error.message}`);
  return 1;
});
