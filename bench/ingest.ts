import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestFiles } from '../lambdas/adapters/source-files/ingest-files';
import { readSourceFile } from '../lambdas/adapters/source-files/read-source-files';
import { sourceFormatOf } from '../lambdas/core/ingest/formats';
import { RESOURCE_KINDS } from '../lambdas/core/records';
import { embeddingTextOf } from '../lambdas/core/search/embedding-text';
import type { Embedder } from '../lambdas/ports/embedder';
import { localAuthorizer, localRoutes } from '../local/api-routes';
import { removeLocalIndex, startEmbeddedStack } from '../local/embedded-stack';
import { createApiServer, listen } from '../local/http-server';
import { loadLocalEmbedder } from '../local/local-embedder';
import { ensureLocalKeys } from '../local/local-keys';
import { PROJECT_ROOT } from './child-processes';
import { BENCH_DATA_DIR } from './server-process';
import { median } from './summary';

/**
 * Ingest of all of ../shared/data into the embedded stack (file-backed, as `npm start` keeps it):
 * records/s for a first import and a re-import, against reading and mapping the same files
 * without storing anything (the share of the pipeline the store, index and change events cost);
 * the time to rebuild the search index from the store; and how long a changed record takes to be
 * found by a search over HTTP.
 *
 * Those passes find every record vector in a cache kept across runs (the sentence model embeds
 * 20 records a second, so a cold import of all 21,000 lines would be a quarter of an hour of model
 * time and nothing else). The model's part is measured apart, side by side in each round: the first
 * COLD_SAMPLE grants imported with nothing cached, against the embedder alone on the same texts.
 */

export const INGEST_FILES = ['funders.jsonl', 'grants.jsonl', 'contracts.jsonl', 'awards.jsonl'] as const;
const SHARED_DATA = join(PROJECT_ROOT, '..', 'shared', 'data');
const CHANGES_PER_ROUND = 10;
/** Record vectors of the files, kept across runs (gitignored, like the bench's data dirs). */
const VECTOR_CACHE = join(BENCH_DATA_DIR, 'ingest-embeddings.sqlite');
const COLD_SAMPLE = 200;

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
  /** The first COLD_SAMPLE grants imported into a fresh stack with no vector cached. */
  coldSample: { records: number; texts: number; importSeconds: number; embedderSeconds: number };
}

export interface IngestBenchResult {
  files: string[];
  /** The vector space of the records' embeddings (the model's id). */
  embedder: string;
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

/**
 * The first COLD_SAMPLE grants of grants.jsonl imported into a fresh stack with an empty vector
 * cache, then the embedder alone on the distinct texts the import embedded (it embeds a repeated
 * text once).
 */
async function coldSample(grantsFile: string, embedder: Embedder): Promise<IngestRound['coldSample']> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gcf-bench-ingest-cold-'));
  try {
    const sample = join(dataDir, 'sample.jsonl');
    writeFileSync(sample, `${readFileSync(grantsFile, 'utf8').split('\n').slice(0, COLD_SAMPLE).join('\n')}\n`);
    const stack = await startEmbeddedStack({ dataDir, seed: false, embedder, embeddingCacheFile: ':memory:' });
    let texts: string[];
    const started = performance.now();
    try {
      await ingestFiles([sample], stack.services);
      const importSeconds = seconds(started);
      texts = [];
      for await (const page of stack.services.store.scan('grant')) texts.push(...page.map((grant) => embeddingTextOf('grant', grant)));
      const distinct = [...new Set(texts)];
      const embedStarted = performance.now();
      await embedder.embed(distinct, 'document');
      return { records: texts.length, texts: distinct.length, importSeconds, embedderSeconds: seconds(embedStarted) };
    } finally {
      await stack.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function oneRound(files: string[], embedder: Embedder, log: (line: string) => void): Promise<IngestRound> {
  let started = performance.now();
  const records = await readAndMap(files);
  const readAndMapSeconds = seconds(started);
  const stackOptions = { seed: false, embedder, embeddingCacheFile: VECTOR_CACHE };

  const dataDir = mkdtempSync(join(tmpdir(), 'gcf-bench-ingest-'));
  try {
    let stack = await startEmbeddedStack({ dataDir, ...stackOptions });
    started = performance.now();
    const first = await ingestFiles(files, stack.services);
    const firstImportSeconds = seconds(started);
    started = performance.now();
    await ingestFiles(files, stack.services);
    const reimportSeconds = seconds(started);
    await stack.close();

    removeLocalIndex(dataDir);
    started = performance.now();
    stack = await startEmbeddedStack({ dataDir, ...stackOptions });
    const rebuildIndexSeconds = seconds(started);

    const { keys } = await ensureLocalKeys(stack.services);
    const server = createApiServer(localRoutes(stack.services), localAuthorizer(stack.services));
    const baseUrl = await listen(server, 0);
    const changeToSearchableMs: number[] = [];
    const source = {
      'Opportunity ID': 'BENCH-0001',
      Title: '',
      Description: 'A benchmark record.',
      Agency: 'NSF',
      Status: 'Posted',
      'Post Date': '2026-01-05',
      URL: '',
    };
    for (let i = 0; i < CHANGES_PER_ROUND; i++) {
      const token = `benchmarkword${String.fromCharCode(97 + i)}x${Date.now() % 1000}`;
      const file = join(dataDir, 'change.jsonl');
      writeFileSync(file, `${JSON.stringify({ ...source, Title: `Research ${token}` })}\n`);
      started = performance.now();
      await ingestFiles([file], stack.services);
      for (;;) {
        const response = await fetch(`${baseUrl}/grants-api?search=${token}`, { headers: { Authorization: `Bearer ${keys.developer}` } });
        const body = (await response.json()) as { pagination: { total: number } };
        if (body.pagination.total === 1) break;
        if (performance.now() - started > 10_000) throw new Error(`a changed record was not searchable after 10 s (${token})`);
      }
      changeToSearchableMs.push(performance.now() - started);
    }
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await stack.close();

    const created = RESOURCE_KINDS.reduce((sum, kind) => sum + first.summary.byKind[kind].created, 0);
    const cold = await coldSample(files.find((file) => file.endsWith('grants.jsonl'))!, embedder);
    const round = {
      records,
      readAndMapSeconds,
      firstImportSeconds,
      reimportSeconds,
      rebuildIndexSeconds,
      changeToSearchableMs,
      created,
      rejected: first.summary.rejected,
      coldSample: cold,
    };
    log(
      `  ingest: ${records} records; read+map ${readAndMapSeconds.toFixed(1)} s, import ${firstImportSeconds.toFixed(1)} s, re-import ${reimportSeconds.toFixed(1)} s, index rebuild ${rebuildIndexSeconds.toFixed(1)} s, change->searchable ${median(changeToSearchableMs).toFixed(1)} ms`,
    );
    log(
      `  cold sample: ${cold.records} grants imported with nothing cached in ${cold.importSeconds.toFixed(1)} s; the embedder alone on their ${cold.texts} texts ${cold.embedderSeconds.toFixed(1)} s`,
    );
    return round;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** An unmeasured import that embeds whatever the vector cache lacks: everything on a first run, nothing later. */
async function fillVectorCache(files: string[], embedder: Embedder, log: (line: string) => void): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gcf-bench-ingest-fill-'));
  try {
    const stack = await startEmbeddedStack({ dataDir, seed: false, embedder, embeddingCacheFile: VECTOR_CACHE, onProgress: log });
    try {
      await ingestFiles(files, stack.services);
    } finally {
      await stack.close();
    }
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
  const embedder = await loadLocalEmbedder({ onProgress: log });
  await fillVectorCache(files, embedder, log);
  const results: IngestRound[] = [];
  for (let round = 0; round < rounds; round++) results.push(await oneRound(files, embedder, log));
  return { files: [...INGEST_FILES], embedder: embedder.space.embedder, rounds: results, peakRssBytes: process.resourceUsage().maxRSS * 1024 };
}
