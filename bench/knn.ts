import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import ort from 'onnxruntime-node';
import { idRanksOf } from '../lambdas/adapters/embedded/id-order';
import { dotProducts, setProductThreads } from '../lambdas/adapters/embedded/onnx-dot-products';
import { oneNodeModel } from '../lambdas/adapters/embedded/onnx-one-node-model';
import { rankMatches, sortedThrough, unsortedRanking } from '../lambdas/adapters/embedded/ranked-set';
import { VectorScans } from '../lambdas/adapters/embedded/vector-scans';
import { semanticFloorOf } from '../lambdas/core/search/relevance';
import { loadLocalEmbedder } from '../local/local-embedder';
import { currentIndexFile } from '../local/local-index-files';
import { newSearchText } from './scenarios';
import { BENCH_DATA_DIR, startApiServer } from './server-process';
import { median } from './summary';

/**
 * Exact k-NN at the api part's biggest catalogue, on its real vectors (bge-small-en-v1.5, 384
 * dimensions) and new query texts: the index's scan (VectorScans: one product of every vector
 * with the queries, the floor applied in the same pass) against a bare JavaScript loop of the same
 * dot products, one query alone and eight asked together; ordering a page of the matches against
 * ordering all of them; the scan's recall against a float64 reference; and the two exact prunings
 * that were tried and dropped, measured on the same vectors.
 */

export interface KnnBenchResult {
  vectors: number;
  dimensions: number;
  queries: number;
  floor: number;
  /** Ms per query, one sample per repetition. */
  bareMs: number[];
  scanMs: number[];
  /** Ms per query when eight queries are asked together (one product). */
  batchMs: number[];
  /** Ms per product of an int8 copy of the vectors with two int8 query columns (ONNX Runtime's MatMulInteger), and of the float vectors with two columns. */
  int8ProductMs: number[];
  floatProductMs: number[];
  /** Ordering the best 20 of a query's matches, and all of them. */
  pageMs: number[];
  sortMs: number[];
  /** Matches above the floor, per query. */
  matches: number[];
  recall: { reference: number; found: number; missed: number; extra: number; withinMillionthOfFloor: number };
  pruning: {
    /** Per query: the share of records whose cosine lies within an int8 copy's error bound of the floor (they would need scoring again). */
    int8Band: number[];
    clusters: number;
    /** Per query: the share of records whose k-means cluster's bound puts them under the floor (they could be skipped). */
    clusterSkipped: number[];
  };
}

const QUERIES = 16;
const BATCH = 8;
const CLUSTERS = 256;
const KMEANS_ROUNDS = 4;

/** The catalogue's grant vectors, one row each, from its index file (seeded by the api part's server when missing). */
async function catalogueVectors(grants: number, log: (line: string) => void): Promise<{ matrix: Float32Array; rows: number; dimensions: number }> {
  const dataDir = join(BENCH_DATA_DIR, `grants-${grants}`);
  if (!existsSync(currentIndexFile(dataDir))) {
    log(`knn: no catalogue of ${grants} grants yet; seeding it as the api part does`);
    const { server } = await startApiServer(grants, { log });
    await server.child.stop();
  }
  const db = new Database(currentIndexFile(dataDir), { readonly: true });
  try {
    const rows = db.prepare('SELECT count(*) FROM grant_vectors').pluck().get() as number;
    const width = (db.prepare('SELECT length(vector) FROM grant_vectors LIMIT 1').pluck().get() as number) / 4;
    const matrix = new Float32Array(rows * width);
    const bytes = Buffer.from(matrix.buffer);
    let row = 0;
    for (const hex of db.prepare('SELECT hex(vector) FROM grant_vectors ORDER BY rowid').pluck().iterate() as Iterable<string>)
      bytes.write(hex, row++ * width * 4, width * 4, 'hex');
    return { matrix, rows, dimensions: width };
  } finally {
    db.close();
  }
}

const timed = async (run: () => unknown) => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};

export async function benchKnn(grants: number, repetitions: number, log: (line: string) => void): Promise<KnnBenchResult> {
  // One thread, as the served index's vector worker runs its products.
  setProductThreads(1);
  const { matrix, rows, dimensions } = await catalogueVectors(grants, log);
  const embedder = await loadLocalEmbedder({ onProgress: log });
  const floor = semanticFloorOf(embedder.space);
  const texts = Array.from({ length: QUERIES }, (_, i) => newSearchText(i * 997 + 11));
  const queries = (await embedder.embed(texts, 'query')).map((vector) => vector!);
  const scans = new VectorScans(dimensions);
  const rowids = Int32Array.from({ length: rows }, (_, i) => i + 1);
  scans.set('grant', rowids, matrix.slice());
  const ids = idRanksOf(new Map(Array.from(rowids, (rowid) => [rowid, String(rowid).padStart(8, '0')])));
  log(`knn: ${rows} vectors of ${dimensions} dimensions, ${QUERIES} new query texts, floor ${floor}`);

  const bare = (query: Float32Array) => {
    const scores = new Float32Array(rows);
    for (let r = 0, offset = 0; r < rows; r++, offset += dimensions) {
      let dot = 0;
      for (let d = 0; d < dimensions; d++) dot += matrix[offset + d]! * query[d]!;
      scores[r] = dot;
    }
    return scores;
  };
  const result: KnnBenchResult = {
    vectors: rows,
    dimensions,
    queries: QUERIES,
    floor,
    bareMs: [],
    scanMs: [],
    batchMs: [],
    int8ProductMs: [],
    floatProductMs: [],
    pageMs: [],
    sortMs: [],
    matches: [],
    recall: { reference: 0, found: 0, missed: 0, extra: 0, withinMillionthOfFloor: 0 },
    pruning: { int8Band: [], clusters: CLUSTERS, clusterSkipped: [] },
  };
  // Warm-up: the JIT compiles the loop, the runtime loads its product.
  for (let i = 0; i < 3; i++) {
    bare(queries[i]!);
    await scans.matchesAbove('grant', queries[i]!, floor);
  }
  const int8Product = await int8ProductOf(matrix, rows, dimensions);
  for (let i = 0; i < repetitions; i++) {
    const query = queries[i % QUERIES]!;
    result.floatProductMs.push(await timed(() => dotProducts(matrix, rows, [query], dimensions)));
    result.int8ProductMs.push(await timed(int8Product));
    result.bareMs.push(await timed(() => bare(query)));
    let found = await scans.matchesAbove('grant', query, floor);
    result.scanMs.push(
      await timed(async () => {
        found = await scans.matchesAbove('grant', query, floor);
      }),
    );
    const together = Array.from({ length: BATCH }, (_, j) => queries[(i + j) % QUERIES]!);
    result.batchMs.push((await timed(() => Promise.all(together.map((q) => scans.matchesAbove('grant', q, floor))))) / BATCH);
    result.pageMs.push(await timed(() => sortedThrough(unsortedRanking({ rowids: found.rowids.slice(), scores: found.cosines.slice() }, ids), 20)));
    result.sortMs.push(await timed(() => rankMatches(found, ids)));
    result.matches.push(found.rowids.length);
  }
  log(
    `knn: bare loop ${median(result.bareMs).toFixed(2)} ms, scan ${median(result.scanMs).toFixed(2)} ms, ${BATCH} together ${median(result.batchMs).toFixed(2)} ms a query`,
  );

  // Recall against float64 sums of the same floats, every query.
  for (const query of queries) {
    const found = new Set((await scans.matchesAbove('grant', query, floor)).rowids);
    for (let r = 0, offset = 0; r < rows; r++, offset += dimensions) {
      let dot = 0;
      for (let d = 0; d < dimensions; d++) dot += matrix[offset + d]! * query[d]!;
      const inReference = dot >= floor;
      if (Math.abs(dot - floor) < 1e-6) result.recall.withinMillionthOfFloor++;
      if (inReference) result.recall.reference++;
      if (inReference && found.has(r + 1)) result.recall.found++;
      if (inReference && !found.has(r + 1)) result.recall.missed++;
      if (!inReference && found.has(r + 1)) result.recall.extra++;
    }
  }
  result.pruning = {
    int8Band: int8BandShares(matrix, rows, dimensions, queries, floor, bare),
    clusters: CLUSTERS,
    clusterSkipped: await clusterSkippedShares(matrix, rows, dimensions, queries, floor),
  };
  await scans.close();
  return result;
}

/** A product of an int8 copy of the vectors with two int8 query columns, on one thread: what an int8 first pass would run. */
async function int8ProductOf(matrix: Float32Array, rows: number, dimensions: number): Promise<() => Promise<unknown>> {
  const session = await ort.InferenceSession.create(
    oneNodeModel(
      'MatMulInteger',
      [
        { name: 'matrix', type: 'int8', shape: ['rows', dimensions] },
        { name: 'queries', type: 'int8', shape: [dimensions, 'columns'] },
      ],
      { name: 'scores', type: 'int32', shape: ['rows', 'columns'] },
    ),
    { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' },
  );
  const codes = Int8Array.from(matrix.subarray(0, rows * dimensions), (x) => Math.max(-127, Math.min(127, Math.round(x * 300))));
  const queries = Int8Array.from({ length: dimensions * 2 }, (_, i) => ((i * 37) % 255) - 127);
  return () => session.run({ matrix: new ort.Tensor('int8', codes, [rows, dimensions]), queries: new ort.Tensor('int8', queries, [dimensions, 2]) });
}

/**
 * An int8 copy of the vectors (a scale per dimension) puts each cosine within δ = Σ|q_d|·s_d/2 of
 * the true one; a scan of it decides a record only when its cosine is farther than δ from the
 * floor. The share of records it leaves undecided, per query.
 */
function int8BandShares(
  matrix: Float32Array,
  rows: number,
  dimensions: number,
  queries: Float32Array[],
  floor: number,
  cosines: (query: Float32Array) => Float32Array,
): number[] {
  const scale = new Float32Array(dimensions);
  for (let r = 0; r < rows; r++) for (let d = 0; d < dimensions; d++) scale[d] = Math.max(scale[d]!, Math.abs(matrix[r * dimensions + d]!) / 127);
  return queries.map((query) => {
    let bound = 0;
    for (let d = 0; d < dimensions; d++) bound += (Math.abs(query[d]!) * scale[d]!) / 2;
    const all = cosines(query);
    let undecided = 0;
    for (const cosine of all) if (Math.abs(cosine - floor) <= bound) undecided++;
    return undecided / rows;
  });
}

/**
 * k-means clusters with their radius r (the farthest member from the centre c): a member's cosine
 * is at most q·c + r, so a cluster with q·c + r under the floor could be skipped whole. The share
 * of records such clusters hold, per query.
 */
async function clusterSkippedShares(matrix: Float32Array, rows: number, dimensions: number, queries: Float32Array[], floor: number): Promise<number[]> {
  const centres = Array.from({ length: CLUSTERS }, (_, k) => matrix.slice(((k * 7919) % rows) * dimensions, (((k * 7919) % rows) + 1) * dimensions));
  const assigned = new Int32Array(rows);
  for (let round = 0; round <= KMEANS_ROUNDS; round++) {
    const { scores, columns } = await dotProducts(matrix, rows, centres, dimensions);
    for (let r = 0; r < rows; r++) {
      let best = 0;
      for (let k = 1; k < CLUSTERS; k++) if (scores[r * columns + k]! > scores[r * columns + best]!) best = k;
      assigned[r] = best;
    }
    if (round === KMEANS_ROUNDS) break;
    const sums = Array.from({ length: CLUSTERS }, () => new Float64Array(dimensions));
    const counts = new Int32Array(CLUSTERS);
    for (let r = 0; r < rows; r++) {
      counts[assigned[r]!]!++;
      for (let d = 0; d < dimensions; d++) sums[assigned[r]!]![d]! += matrix[r * dimensions + d]!;
    }
    sums.forEach((sum, k) => {
      if (counts[k]! > 0) centres[k] = Float32Array.from(sum, (x) => x / counts[k]!);
    });
  }
  const radius = new Float64Array(CLUSTERS);
  const size = new Int32Array(CLUSTERS);
  for (let r = 0; r < rows; r++) {
    const k = assigned[r]!;
    size[k]!++;
    let squares = 0;
    for (let d = 0; d < dimensions; d++) squares += (matrix[r * dimensions + d]! - centres[k]![d]!) ** 2;
    radius[k] = Math.max(radius[k]!, Math.sqrt(squares));
  }
  return queries.map((query) => {
    let skipped = 0;
    centres.forEach((centre, k) => {
      let dot = 0;
      for (let d = 0; d < dimensions; d++) dot += centre[d]! * query[d]!;
      if (dot + radius[k]! < floor) skipped += size[k]!;
    });
    return skipped / rows;
  });
}
