import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { buildSync } from 'esbuild';

/**
 * A worker thread running a TypeScript module of this folder, bundled by esbuild into one
 * JavaScript file: a worker given tsx's loader instead held more memory (a second thread and
 * runtime for the loader's hooks, and the compiler), and the server runs two such workers. The
 * bundle keeps its packages as imports (they load from node_modules) and is written under the
 * project's .cache/workers (gitignored), named by a hash of its contents, so processes running
 * the same sources share one file and a changed source gets a new one (old ones are left: a
 * running server may still start a worker from its own). Each process bundles an entry once, on
 * its first worker (some tens of milliseconds).
 *
 * The worker takes none of the process's Node options: given them, it would run the process's
 * `--import` preloads again (the bench's exit-with-parent.ts has no business in a worker).
 */

const WORKERS_DIR = fileURLToPath(new URL('../../../.cache/workers/', import.meta.url));

const bundles = new Map<string, string>();

export function bundledWorker(entry: URL, workerData: object): Worker {
  return new Worker(bundleOf(entry), { workerData, execArgv: [] });
}

function bundleOf(entry: URL): string {
  const source = fileURLToPath(entry);
  let bundle = bundles.get(source);
  if (bundle) return bundle;
  const built = buildSync({
    entryPoints: [source],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    write: false,
    logLevel: 'silent',
  });
  const code = built.outputFiles[0]!.contents;
  const name = basename(source, '.ts');
  bundle = join(WORKERS_DIR, `${name}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(bundle)) {
    mkdirSync(WORKERS_DIR, { recursive: true });
    // Written beside and renamed: another process may be writing the same file at the same moment.
    const partial = `${bundle}.${process.pid}.partial`;
    writeFileSync(partial, code);
    renameSync(partial, bundle);
  }
  bundles.set(source, bundle);
  return bundle;
}
