import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Bundle, bundleEntry, type LambdaEntry, lambdaEntries } from './bundles';
import { PROJECT_ROOT } from './child-processes';
import { describeMachine, type MachineInfo } from './machine';
import { median } from './summary';

const run = promisify(execFile);

/**
 * Cold start of each Lambda bundle, locally: every entry bundled as a deployment bundles it
 * (bench/bundles.ts), then imported in a fresh `node` process, `runs` times each, interleaved with
 * an empty handler bundled the same way. What is timed is the `import()` of index.mjs: reading,
 * compiling and evaluating the bundle and the AWS SDK modules it imports at load (resolved from
 * node_modules, as Lambda resolves them from the runtime). The environment is Lambda's as far as
 * the code can tell (AWS_EXECUTION_ENV, so Tracer and the X-Ray SDK load; --enable-source-maps,
 * as ServiceFunction sets it).
 */

/** Bundled and timed like the Lambdas, for scale: an empty handler (the ratios' denominator) and the DynamoDB client alone. */
export const REFERENCE_ENTRIES = [
  { name: 'empty-handler', entry: 'bench/empty-handler.ts', description: 'empty handler: imports nothing' },
  { name: 'dynamodb-client-only', entry: 'bench/dynamodb-client-handler.ts', description: 'imports only `@aws-sdk/client-dynamodb`' },
] as const;
const BUNDLES_DIR = join(PROJECT_ROOT, 'node_modules/.cache/gcf-bench-bundles');

export interface BundleColdStart {
  lambda: LambdaEntry;
  bundle: Bundle;
  /** import() of index.mjs, per run (ms). */
  importMs: number[];
  /** The whole child process, spawn to exit (ms): Node's own start included. */
  processMs: number[];
}

export interface ReferenceColdStart extends Omit<BundleColdStart, 'lambda'> {
  name: string;
  description: string;
}

export interface ColdStartBenchResult {
  machine: MachineInfo;
  runs: number;
  /** The empty handler: what the ratios divide by. */
  empty: ReferenceColdStart;
  references: ReferenceColdStart[];
  bundles: BundleColdStart[];
  seconds: number;
}

/**
 * Lambda's environment, as far as the bundles' module init and handlers look at it, plus the
 * function's own variables (the runtime SDK check, test/support/runtime-sdk.ts, runs bundles in it too).
 */
export function lambdaEnvironment(name: string, variables: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    NODE_OPTIONS: '--enable-source-maps',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    AWS_LAMBDA_FUNCTION_NAME: `gcf-${name}`,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    AWS_REGION: 'us-east-1',
    POWERTOOLS_SERVICE_NAME: `gcf-${name}`,
    // No credentials are looked up at init; these keep any lookup local if one ever is.
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...variables,
  };
}

// Prints the milliseconds the import took; nothing else goes to stdout.
// biome-ignore lint/suspicious/noTemplateCurlyInString: the child process's own template literal
const IMPORT_SCRIPT = 'const t = performance.now(); await import(process.argv[1]); process.stdout.write(`\\n${performance.now() - t}\\n`);';

async function timeImport(file: string, name: string): Promise<{ importMs: number; processMs: number }> {
  const startedAt = performance.now();
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', IMPORT_SCRIPT, file], {
    cwd: PROJECT_ROOT,
    env: lambdaEnvironment(name),
    timeout: 60_000,
    maxBuffer: 1024 * 1024,
  });
  const processMs = performance.now() - startedAt;
  const importMs = Number(stdout.trim().split('\n').at(-1));
  if (!Number.isFinite(importMs)) throw new Error(`importing ${file} printed no time: ${stdout.slice(-500)}`);
  return { importMs, processMs };
}

export async function benchColdStart(runs: number, log: (line: string) => void): Promise<ColdStartBenchResult> {
  const machine = describeMachine();
  const startedAt = performance.now();
  rmSync(BUNDLES_DIR, { recursive: true, force: true });
  const lambdas = lambdaEntries();
  log(`\ncold start: bundling ${lambdas.length} Lambda entries and ${REFERENCE_ENTRIES.length} references`);
  const bundleOf = async (entry: string, name: string) => {
    const outdir = join(BUNDLES_DIR, name);
    mkdirSync(outdir, { recursive: true });
    return bundleEntry(entry, outdir);
  };
  const references: ReferenceColdStart[] = [];
  for (const { name, entry, description } of REFERENCE_ENTRIES)
    references.push({ name, description, bundle: await bundleOf(entry, name), importMs: [], processMs: [] });
  const empty = references[0]!;
  const measured: BundleColdStart[] = [];
  for (const lambda of lambdas) measured.push({ lambda, bundle: await bundleOf(lambda.entry, lambda.name), importMs: [], processMs: [] });

  // One import of each first, unrecorded: the OS file cache, not the bundle, would otherwise pay.
  const all = [
    ...references.map((reference) => ({ name: reference.name, target: reference as Omit<BundleColdStart, 'lambda'> })),
    ...measured.map((m) => ({ name: m.lambda.name, target: m as Omit<BundleColdStart, 'lambda'> })),
  ];
  for (const { name, target } of all) await timeImport(target.bundle.file!, name);
  for (let r = 0; r < runs; r++) {
    // Each run starts at another place in the list, so no bundle always follows the same one.
    const order = all.map((_, i) => all[(i + r) % all.length]!);
    for (const { name, target } of order) {
      const timing = await timeImport(target.bundle.file!, name);
      target.importMs.push(timing.importMs);
      target.processMs.push(timing.processMs);
    }
    log(
      `  run ${r + 1}/${runs}: empty ${median(empty.importMs).toFixed(1)} ms so far; ${measured.map((m) => `${m.lambda.name} ${m.importMs.at(-1)!.toFixed(0)}`).join(', ')}`,
    );
  }
  rmSync(BUNDLES_DIR, { recursive: true, force: true });
  return { machine, runs, empty, references, bundles: measured, seconds: (performance.now() - startedAt) / 1000 };
}

export interface ColdStartSummary {
  importMs: number;
  processMs: number;
  /** Median import time over the empty handler's median import time. */
  ratioToEmpty: number;
  /** Median over runs of the whole process's time over the empty handler's, run by run. */
  processRatioToEmpty: number;
}

export function summariseColdStart(result: ColdStartBenchResult, target: Omit<BundleColdStart, 'lambda'>): ColdStartSummary {
  const emptyImport = median(result.empty.importMs);
  const processRatios = target.processMs.map((ms, i) => ms / result.empty.processMs[i]!);
  return {
    importMs: median(target.importMs),
    processMs: median(target.processMs),
    ratioToEmpty: median(target.importMs) / emptyImport,
    processRatioToEmpty: median(processRatios),
  };
}
