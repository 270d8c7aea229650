// The first module of every worker thread the embedded stack starts. Node gives a worker none of
// the parent's module hooks, so a TypeScript entry (npm start, the tests and the bench run the
// sources through tsx) needs tsx's loader registered in the worker before it is imported.
import { workerData } from 'node:worker_threads';

const { entry } = workerData;
if (entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(entry);
