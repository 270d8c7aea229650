import { Worker } from 'node:worker_threads';

/**
 * A worker thread running `entry` (a module URL, TypeScript or JavaScript) through
 * worker-bootstrap.mjs, with `data` as its workerData beside the entry.
 */
export function typeScriptWorker(entry: URL, data: object): Worker {
  return new Worker(new URL('./worker-bootstrap.mjs', import.meta.url), { workerData: { ...data, entry: entry.href } });
}
