import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { esbuildOptions, type LambdaEntry } from '../../bench/bundles';

const run = promisify(execFile);

/**
 * The AWS SDK as a Lambda runtime would provide it, for running the deployed bundles: a folder
 * outside the project (so no import can fall back to the project's own node_modules) holding one
 * release of every `@aws-sdk/*` package the bundles leave external, installed by npm.
 */

export interface RuntimeSdk {
  version: string;
  /** Holds node_modules/@aws-sdk/…; bundles are written under it so their imports resolve here. */
  dir: string;
}

export interface LambdaBundle {
  lambda: LambdaEntry;
  /** index.mjs, written under the runtime SDK's folder. */
  file: string;
  /** What its external imports name besides Node's own modules, e.g. `@aws-sdk/lib-dynamodb`. */
  externals: string[];
}

const isBuiltin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!);

/** Bundles an entry as a deployment does, into the runtime SDK's folder, and lists its external imports. */
export async function bundleForRuntime(lambda: LambdaEntry, sdk: RuntimeSdk): Promise<LambdaBundle> {
  const outdir = join(sdk.dir, 'bundles', lambda.name);
  const result = await build({ ...esbuildOptions(lambda.entry, outdir), metafile: true });
  const output = Object.entries(result.metafile.outputs).find(([path]) => path.endsWith('index.mjs'))![1];
  const externals = [...new Set(output.imports.filter((i) => i.external && !isBuiltin(i.path)).map((i) => i.path))].sort();
  return { lambda, file: join(outdir, 'index.mjs'), externals };
}

/** The folder `version` is installed in: under the system's temporary folder, outside the project. */
export const runtimeSdkAt = (version: string): RuntimeSdk => ({ version, dir: join(tmpdir(), 'gcf-runtime-sdk', version) });

const packageNameOf = (specifier: string) => specifier.split('/').slice(0, 2).join('/');

/** Where `specifier` resolves from `file`, and the version of the package it resolves to. */
export function resolvedFrom(file: string, specifier: string): { path: string; version: string } {
  const require = createRequire(file);
  const manifest = require.resolve(`${packageNameOf(specifier)}/package.json`);
  return { path: manifest, version: (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version };
}

/**
 * Installs `version` of each package into a cached folder (npm's cache makes a repeat cheap). A
 * package npm cannot fetch fails the run with its name: the check never passes by skipping.
 */
export async function installRuntimeSdk({ version, dir }: RuntimeSdk, packages: readonly string[]): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const names = packages.map(packageNameOf).filter((name, i, all) => all.indexOf(name) === i);
  const missing = names.filter((name) => !existsSync(join(dir, 'node_modules', name, 'package.json')));
  if (missing.length > 0) {
    // Every package, not only the missing ones: npm prunes what a --no-save install does not name,
    // so installing a new one alone (a bundle's new external) would remove the others.
    const specs = names.map((name) => `${name}@${version}`);
    await run('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', ...specs], {
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: Error & { stderr?: string }) => {
      throw new Error(
        `npm could not install the runtime's AWS SDK (${specs.join(' ')}): ${error.stderr?.trim().split('\n').slice(-3).join(' ') ?? error.message}`,
      );
    });
  }
}

// Imports the bundle, invokes its handler with the event (when one is given) and prints the result
// on a line of its own; Powertools writes its logs to stdout too. Exits at once: the SDK's
// keep-alive sockets would hold the process open.
const INVOKE_SCRIPT = `
const { handler } = await import(process.argv[1]);
if (typeof handler !== 'function') throw new Error('the bundle exports no handler');
const event = process.argv[2];
const context = { functionName: 'runtime-sdk', functionVersion: '$LATEST', memoryLimitInMB: '512', awsRequestId: 'runtime-sdk-request',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:runtime-sdk', getRemainingTimeInMillis: () => 30000 };
const result = event === undefined ? null : await handler(JSON.parse(event), context);
process.stdout.write('\\nHANDLER-RESULT ' + JSON.stringify(result ?? null) + '\\n', () => process.exit(0));
`;

/** Runs the bundle in a fresh `node`, as Lambda would load it: imported, then (with an event) invoked once. */
export async function invokeBundle(file: string, env: NodeJS.ProcessEnv, event?: unknown): Promise<unknown> {
  const args = ['--input-type=module', '-e', INVOKE_SCRIPT, file, ...(event === undefined ? [] : [JSON.stringify(event)])];
  const { stdout } = await run(process.execPath, args, { env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }).catch(
    (error: Error & { stderr?: string; stdout?: string }) => {
      throw new Error(`${file} failed on the runtime's SDK: ${(error.stderr || error.stdout || error.message).trim().slice(-2_000)}`);
    },
  );
  if (process.env.RUNTIME_SDK_DEBUG) console.log(stdout);
  const line = stdout.split('\n').find((l) => l.startsWith('HANDLER-RESULT '));
  if (!line) throw new Error(`${file} printed no result: ${stdout.slice(-1_000)}`);
  return JSON.parse(line.slice('HANDLER-RESULT '.length));
}
