/**
 * The OpenSearch part's indices: the bench's seeded catalogue (the grants of a data folder, with
 * their vectors from its embedding cache), or a catalogue `copies` times that one for OpenSearch
 * alone. A derived catalogue writes each grant `copies` times under new ids, the first copy with
 * its own vector and each other copy with that vector plus Gaussian noise, renormalised (cosine
 * about 0.97 to its source), so the vectors keep the real catalogue's spread without embedding a
 * million texts (hours here). Texts repeat, so keyword matches grow with the copies; ids and
 * vectors do not repeat. A fill is recorded in the data folder and reused while the node holds it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenSearchHttpClient } from '../lambdas/adapters/aws/opensearch-client';
import { OpenSearchIndex } from '../lambdas/adapters/aws/opensearch-index';
import { SqliteEmbeddingCache } from '../lambdas/adapters/embedded/sqlite-embedding-cache';
import type { Grant } from '../lambdas/core/records';
import { embedRecords } from '../lambdas/core/use-cases/embed-records';
import { reindexRecords } from '../lambdas/core/use-cases/reindex-records';
import { type EmbeddedStack, startEmbeddedStack } from '../local/embedded-stack';
import { seededRandom } from '../local/seeded-random';

/** Per-dimension standard deviation of the noise, per unit of 1/sqrt(dimensions): cos ≈ 1 / sqrt(1 + NOISE²) ≈ 0.97. */
const NOISE = 0.25;
const BATCH = 500;

export interface OpenSearchFill {
  grants: number;
  /** Writing and refreshing the index (its HNSW graphs built as segments are written and merged); null when reused. */
  seconds: number | null;
}

/** The grants an earlier fill left in `<prefix>-grants`, when its record says so and the node still holds them all. */
async function earlierFill(url: string, prefix: string, recordFile: string): Promise<number | null> {
  const earlier = existsSync(recordFile) ? (JSON.parse(readFileSync(recordFile, 'utf8')) as { prefix: string; grants: number }) : null;
  if (earlier?.prefix !== prefix) return null;
  const counted = await fetch(`${url}/${prefix}-grants/_count`).then(
    async (r) => ((await r.json()) as { count?: number }).count,
    () => undefined,
  );
  return counted === earlier.grants ? counted : null;
}

/** Fills `<prefix>-*` with `write` (given the adapter and the data folder's embedding ports) unless an earlier fill is reusable, and records it. */
async function fillOnce(
  client: OpenSearchHttpClient,
  url: string,
  prefix: string,
  dataDir: string,
  recordName: string,
  log: (line: string) => void,
  write: (index: OpenSearchIndex, stack: EmbeddedStack, cache: SqliteEmbeddingCache) => Promise<number>,
): Promise<OpenSearchFill> {
  const recordFile = join(dataDir, recordName);
  const reused = await earlierFill(url, prefix, recordFile);
  if (reused !== null) {
    log(`  OpenSearch already holds the ${reused} grants of ${prefix}-grants`);
    return { grants: reused, seconds: null };
  }
  await client.indices.delete({ index: `${prefix}-*` }).catch(() => undefined);
  const stack = await startEmbeddedStack({ dataDir, seed: false });
  const cache = new SqliteEmbeddingCache(join(dataDir, 'embeddings.sqlite'));
  const startedAt = performance.now();
  try {
    const index = new OpenSearchIndex(client, { space: stack.services.embedder.space, endpoint: url, aliasPrefix: prefix });
    await index.ensureIndices(['grant']);
    const grants = await write(index, stack, cache);
    await client.indices.refresh({ index: `${prefix}-*` });
    const seconds = (performance.now() - startedAt) / 1000;
    writeFileSync(recordFile, `${JSON.stringify({ prefix, grants, seconds, filledAt: new Date().toISOString() }, null, 2)}\n`);
    log(`  filled OpenSearch with ${grants} grants and their vectors in ${seconds.toFixed(0)} s`);
    return { grants, seconds };
  } finally {
    cache.close();
    await stack.close();
  }
}

/** The grants of the bench's data folder, with their vectors from its embedding cache. */
export function fillSeeded(client: OpenSearchHttpClient, url: string, prefix: string, dataDir: string, log: (line: string) => void): Promise<OpenSearchFill> {
  return fillOnce(client, url, prefix, dataDir, 'opensearch-fill.json', log, async (index, stack, cache) => {
    let reported = 0;
    const counts = await reindexRecords(
      stack.services.store,
      { index, embeddings: { embedder: stack.services.embedder, cache } },
      {
        kinds: ['grant'],
        onProgress: (_kind, indexed) => {
          if (indexed - reported >= 10_000) log(`  indexed ${(reported = indexed)} grants into OpenSearch`);
        },
      },
    );
    return counts.grant;
  });
}

/** A uuid-shaped id of copy `copy` of a record, the same every run. */
export function copyId(id: string, copy: number): string {
  if (copy === 0) return id;
  const hex = createHash('sha256').update(`${id}#${copy}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The vector plus Gaussian noise (Box-Muller), renormalised to unit length. */
export function noisyCopy(vector: Float32Array, next: () => number): Float32Array {
  const sigma = NOISE / Math.sqrt(vector.length);
  const out = new Float32Array(vector.length);
  let norm = 0;
  for (let i = 0; i < vector.length; i++) {
    const gaussian = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
    out[i] = vector[i]! + sigma * gaussian;
    norm += out[i]! * out[i]!;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < out.length; i++) out[i]! *= scale;
  return out;
}

/** The data folder's grants `copies` times over (see the top of this file). */
export function fillDerived(
  client: OpenSearchHttpClient,
  url: string,
  prefix: string,
  dataDir: string,
  copies: number,
  log: (line: string) => void,
): Promise<OpenSearchFill> {
  return fillOnce(client, url, prefix, dataDir, `opensearch-derived-${copies}x.json`, log, async (index, stack, cache) => {
    const next = seededRandom(40);
    let written = 0;
    let reported = 0;
    for await (const page of stack.services.store.scan('grant')) {
      const vectors = await embedRecords('grant', page, { embedder: stack.services.embedder, cache });
      for (let copy = 0; copy < copies; copy++) {
        const records = (page as Grant[]).map((grant) => ({
          ...grant,
          id: copyId(grant.id, copy),
          source_id: copy === 0 ? grant.source_id : `${grant.source_id}~${copy}`,
        }));
        const copied = vectors.map((vector) => (vector && copy > 0 ? noisyCopy(vector, next) : vector));
        for (let at = 0; at < records.length; at += BATCH) await index.upsert('grant', records.slice(at, at + BATCH), copied.slice(at, at + BATCH));
        written += records.length;
      }
      if (written - reported >= 50_000) log(`  wrote ${(reported = written)} derived grants`);
    }
    return written;
  });
}
