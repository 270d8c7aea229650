import { Worker } from 'node:worker_threads';

/**
 * A worker thread running `entry` (a module URL, TypeScript or JavaScript) through
 * worker-bootstrap.mjs, with `data` as its workerData beside the entry. It takes none of the
 * process's Node options: a worker given them runs their `--import` preloads again, which loads a
 * TypeScript preload before the bootstrap can register the loader that reads it, and a preload
 * meant for the process (the bench's exit-with-parent.ts) has no business in a worker.
 */
export function typeScriptWorker(entry: URL, data: object): Worker {
  return new Worker(new URL('./worker-bootstrap.mjs', import.meta.url), { workerData: { ...data, entry: entry.href }, execArgv: [] });
}
