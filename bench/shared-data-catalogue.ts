import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ingestFiles } from '../lambdas/adapters/source-files/ingest-files';
import type { ResourceKind } from '../lambdas/core/records';
import type { Clock } from '../lambdas/ports/clock';
import { type EmbeddedStack, removeLocalIndex, startEmbeddedStack } from '../local/embedded-stack';
import { PROJECT_ROOT } from './child-processes';
import { INGEST_FILES } from './ingest';

/** The public data files the evaluations import (SOURCES.md in ../shared/data says what they are). */
export const SHARED_DATA = resolve(PROJECT_ROOT, '..', 'shared', 'data');

export function sharedDataPresent(files: readonly string[] = INGEST_FILES): boolean {
  return files.every((file) => existsSync(join(SHARED_DATA, file)));
}

/**
 * All of ../shared/data (or the named files of it) imported into an embedded stack in `dataDir`,
 * kept between runs (a re-import of unchanged files writes nothing). The index is rebuilt from the
 * store each run, so it always holds this code's embeddings. Importers close a posted opportunity
 * whose deadline has passed on the clock's date, so a pinned clock gives the same catalogue on any
 * day. A file left out of `files` is not removed from a store that imported it before.
 */
export async function sharedDataCatalogue(dataDir: string, clock?: Clock, files: readonly string[] = INGEST_FILES): Promise<EmbeddedStack> {
  mkdirSync(dataDir, { recursive: true });
  removeLocalIndex(dataDir);
  const stack = await startEmbeddedStack({ dataDir, seed: false, clock, onProgress: (m) => console.error(m) });
  const started = performance.now();
  const { summary } = await ingestFiles(
    files.map((file) => join(SHARED_DATA, file)),
    stack.services,
  );
  const created = Object.values(summary.byKind).reduce((sum, k) => sum + k.created, 0);
  console.error(
    `import of ../shared/data (${files.join(', ')}): ${created} created, ${summary.rejected} rejected (${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
  return stack;
}

/** Judgements name records by (source, source_id); the catalogue gives their ids. */
export async function idsBySourceKey(stack: EmbeddedStack, kind: Exclude<ResourceKind, 'funder'>): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for await (const page of stack.services.store.scan(kind)) {
    for (const record of page) ids.set(`${record.source}|${record.source_id}`, record.id);
  }
  return ids;
}
