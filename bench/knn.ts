import { idRanksOf } from '../lambdas/adapters/embedded/id-order';
import { rankMatches } from '../lambdas/adapters/embedded/ranked-set';
import type { Matches } from '../lambdas/adapters/embedded/vector-matrix';
import { VectorScans } from '../lambdas/adapters/embedded/vector-scans';
import { loadWinkEmbedder } from '../lambdas/adapters/embedded/wink-embedder';
import { embeddingTextOf } from '../lambdas/core/search/embedding-text';
import { semanticFloorOf } from '../lambdas/core/search/relevance';
import { DEFAULT_CATALOGUE, generateFunders, generateGrants } from '../local/synthetic-catalogue';
import { SEARCH_TEXT } from './scenarios';
import { median } from './summary';

/**
 * Exact k-NN against its physical limit: the embedded index's scan (VectorMatrix.matchesAbove:
 * dot products over one Float32Array, the floor and the filter mask applied inside the scan)
 * against a bare loop of the same dot products over the same matrix that only stores the scores.
 * The vectors are the real wink embeddings of the synthetic catalogue's grants.
 */

export interface KnnBenchResult {
  vectors: number;
  dimensions: number;
  /** Ms per full scan, one sample per repetition, interleaved. */
  bareMs: number[];
  scanMs: number[];
  /** Ranking the matches by cosine, ties by id (what a relevance-ordered page adds). */
  sortMs: number[];
  matches: number;
  floor: number;
}

export async function benchKnn(vectors: number, repetitions: number, log: (line: string) => void): Promise<KnnBenchResult> {
  const embedder = await loadWinkEmbedder();
  const spec = { ...DEFAULT_CATALOGUE, grants: vectors, awardedGrants: 0, today: '2026-11-22' };
  const funders = generateFunders(spec);
  const { dimensions } = embedder.space;
  const scans = new VectorScans(dimensions);
  scans.reserve('grant', vectors);
  const flat = new Float32Array(vectors * dimensions);
  let row = 0;
  for (const batch of generateGrants(spec, funders, 2000)) {
    const embedded = await embedder.embed(batch.map((grant) => embeddingTextOf('grant', grant)));
    for (const vector of embedded) {
      if (vector) {
        scans.set('grant', Int32Array.of(row + 1), vector);
        flat.set(vector, row * dimensions);
      }
      row++;
    }
  }
  // Ties break by id: rowid n's id sorts as n does.
  const ids = idRanksOf(new Map(Array.from({ length: vectors }, (_, i) => [i + 1, String(i + 1).padStart(8, '0')])));
  const [query] = await embedder.embed([SEARCH_TEXT]);
  const floor = semanticFloorOf(embedder.space);
  log(`knn: ${scans.size('grant')} vectors of ${dimensions} dimensions; query "${SEARCH_TEXT}", floor ${floor}`);

  const scores = new Float32Array(vectors);
  const bare = () => {
    for (let r = 0, offset = 0; r < vectors; r++, offset += dimensions) {
      let dot = 0;
      for (let d = 0; d < dimensions; d++) dot += flat[offset + d]! * query![d]!;
      scores[r] = dot;
    }
  };
  const timed = async (run: () => unknown) => {
    const started = performance.now();
    await run();
    return performance.now() - started;
  };
  const result: KnnBenchResult = { vectors: scans.size('grant'), dimensions, bareMs: [], scanMs: [], sortMs: [], matches: 0, floor };
  // Warm-up: let the JIT compile both loops before anything is recorded.
  for (let i = 0; i < 5; i++) {
    bare();
    await scans.matchesAbove('grant', query!, floor);
  }
  for (let i = 0; i < repetitions; i++) {
    result.bareMs.push(await timed(bare));
    let matches: Matches | undefined;
    result.scanMs.push(await timed(async () => { matches = await scans.matchesAbove('grant', query!, floor); }));
    result.sortMs.push(await timed(() => rankMatches(matches!, ids)));
    result.matches = matches!.rowids.length;
  }
  log(`knn: bare loop ${median(result.bareMs).toFixed(2)} ms, index scan ${median(result.scanMs).toFixed(2)} ms (${(median(result.scanMs) / median(result.bareMs)).toFixed(2)}x), sort of ${result.matches} matches ${median(result.sortMs).toFixed(2)} ms`);
  return result;
}
