import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestFiles } from '../lambdas/adapters/source-files/ingest-files';
import { readSourceFile } from '../lambdas/adapters/source-files/read-source-files';
import { sourceFormatOf } from '../lambdas/core/ingest/formats';
import { RESOURCE_KINDS } from '../lambdas/core/records';
import { localAuthorizer, localRoutes } from '../local/api-routes';
import { removeLocalIndex, startEmbeddedStack } from '../local/embedded-stack';
import { createApiServer, listen } from '../local/http-server';
import { ensureLocalKeys } from '../local/local-keys';
import { PROJECT_ROOT } from './child-processes';
import { median } from './summary';

/**
 * Ingest of all of ../shared/data into the embedded stack (file-backed, as `npm start` keeps it):
 * records/s for a first import and a re-import, against reading and mapping the same files
 * without storing anything (the share of the pipeline the store, index and change events cost);
 * the time to rebuild the search index from the store; and how long a changed record takes to be
 * found by a search over HTTP.
 */

export const INGEST_FILES = ['funders.jsonl', 'grants.jsonl', 'contracts.jsonl', 'awards.jsonl'] as const;
const SHARED_DATA = join(PROJECT_ROOT, '..', 'shared', 'data');
const CHANGES_PER_ROUND = 10;

export interface IngestRound {
  records: number;
  readAndMapSeconds: number;
  firstImportSeconds: number;
  reimportSeconds: number;
  rebuildIndexSeconds: number;
  /** Ms from starting the import of one changed record to a search over HTTP returning it. */
  changeToSearchableMs: number[];
  created: number;
  rejected: number;
}

export interface IngestBenchResult {
  files: string[];
  rounds: IngestRound[];
  /** Peak resident memory of the bench process (the whole embedded stack runs in it). */
  peakRssBytes: number;
}

async function readAndMap(files: string[]): Promise<number> {
  let records = 0;
  for (const file of files) {
    for await (const item of readSourceFile(file)) {
      if (!item.record) continue;
      try {
        sourceFormatOf(item.record)?.map(item.record, { today: '2026-01-01' });
      } catch {
        // Rejections cost the same to find as mappings; both count.
      }
      records++;
    }
  }
  return records;
}

const seconds = (started: number) => (performance.now() - started) / 1000;

async function oneRound(files: string[], log: (line: string) => void): Promise<IngestRound> {
  let started = performance.now();
  const records = await readAndMap(files);
  const readAndMapSeconds = seconds(started);

  const dataDir = mkdtempSync(join(tmpdir(), 'gcf-bench-ingest-'));
  try {
    let stack = await startEmbeddedStack({ dataDir, seed: false });
    started = performance.now();
    const first = await ingestFiles(files, stack.services);
    const firstImportSeconds = seconds(started);
    started = performance.now();
    await ingestFiles(files, stack.services);
    const reimportSeconds = seconds(started);
    await stack.close();

    removeLocalIndex(dataDir);
    started = performance.now();
    stack = await startEmbeddedStack({ dataDir, seed: false });
    const rebuildIndexSeconds = seconds(started);

    const { keys } = await ensureLocalKeys(stack.services);
    const server = createApiServer(localRoutes(stack.services), localAuthorizer(stack.services));
    const baseUrl = await listen(server, 0);
    const changeToSearchableMs: number[] = [];
    const source = { 'Opportunity ID': 'BENCH-0001', Title: '', Description: 'A benchmark record.', Agency: 'NSF', Status: 'Posted', 'Post Date': '2026-01-05', URL: '' };
    for (let i = 0; i < CHANGES_PER_ROUND; i++) {
      const token = `benchmarkword${String.fromCharCode(97 + i)}x${Date.now() % 1000}`;
      const file = join(dataDir, 'change.jsonl');
      writeFileSync(file, `${JSON.stringify({ ...source, Title: `Research ${token}` })}\n`);
      started = performance.now();
      await ingestFiles([file], stack.services);
      for (;;) {
        const response = await fetch(`${baseUrl}/grants-api?search=${token}`, { headers: { Authorization: `Bearer ${keys.developer}` } });
        const body = await response.json() as { pagination: { total: number } };
        if (body.pagination.total === 1) break;
        if (performance.now() - started > 10_000) throw new Error(`a changed record was not searchable after 10 s (${token})`);
      }
      changeToSearchableMs.push(performance.now() - started);
    }
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await stack.close();

    const created = RESOURCE_KINDS.reduce((sum, kind) => sum + first.summary.byKind[kind].created, 0);
    const round = { records, readAndMapSeconds, firstImportSeconds, reimportSeconds, rebuildIndexSeconds, changeToSearchableMs, created, rejected: first.summary.rejected };
    log(`  ingest: ${records} records; read+map ${readAndMapSeconds.toFixed(1)} s, import ${firstImportSeconds.toFixed(1)} s, re-import ${reimportSeconds.toFixed(1)} s, index rebuild ${rebuildIndexSeconds.toFixed(1)} s, change->searchable ${median(changeToSearchableMs).toFixed(1)} ms`);
    return round;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Null when ../shared/data is absent (a fresh clone): the report then says the section was skipped. */
export async function benchIngest(rounds: number, log: (line: string) => void): Promise<IngestBenchResult | null> {
  const files = INGEST_FILES.map((file) => join(SHARED_DATA, file));
  if (!files.every((file) => existsSync(file))) {
    log(`ingest: skipped, ../shared/data is absent (${SHARED_DATA})`);
    return null;
  }
  log(`ingest: all of ../shared/data (${INGEST_FILES.join(', ')}), ${rounds} rounds`);
  const results: IngestRound[] = [];
  for (let round = 0; round < rounds; round++) results.push(await oneRound(files, log));
  return { files: [...INGEST_FILES], rounds: results, peakRssBytes: process.resourceUsage().maxRSS * 1024 };
}
