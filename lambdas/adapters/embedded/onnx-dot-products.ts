import ort from 'onnxruntime-node';
import { oneNodeModel } from './onnx-one-node-model';

/**
 * Exact k-NN's inner loop, the dot products of queries with every row of the vector matrix, run
 * by ONNX Runtime's MatMul (MLAS, vectorised): several times faster than a JavaScript loop
 * (docs/benchmarks.md, "Exact k-NN"), and the runtime is already loaded for the embedding model.
 *
 * The product reads the whole matrix from memory for each call, and that is what it waits on:
 * eight queries in one call take little longer than one, so queries that arrive together are
 * scored together (vector-scans.ts). A call always has at
 * least two query columns: MLAS takes another kernel for a single column, whose sums round
 * differently in the last bit, and a record's cosine must not depend on which queries it was
 * scored with. From two columns up, each cosine is the same whatever the other columns and rows.
 *
 * The model is one MatMul node (scores[n, b] = matrix[n, d] x queries[d, b]; onnx-one-node-model.ts).
 */

function matMulModel(): Uint8Array {
  return oneNodeModel(
    'MatMul',
    [
      { name: 'matrix', type: 'float', shape: ['rows', 'dimensions'] },
      { name: 'queries', type: 'float', shape: ['dimensions', 'columns'] },
    ],
    { name: 'scores', type: 'float', shape: ['rows', 'columns'] },
  );
}

let session: Promise<ort.InferenceSession> | undefined;
/** ONNX Runtime's default (0): a thread per core. */
let threads = 0;

/**
 * The threads each product runs on, before the first. The vector worker takes one: with the
 * model's workers and the event loop on the other threads, a second made each product about a
 * quarter faster for a third more CPU, and under load the CPU is what runs out.
 */
export function setProductThreads(count: number): void {
  if (session) throw new Error('the product threads are set before the first product');
  threads = count;
}

function matMulSession(): Promise<ort.InferenceSession> {
  session ??= ort.InferenceSession.create(matMulModel(), {
    graphOptimizationLevel: 'all',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  });
  return session;
}

let output = new Float32Array(0);

/** The scores' array (overwritten by the next product: read it before another starts). */
function outputFor(length: number): Float32Array {
  if (output.length < length) output = new Float32Array(Math.max(length, Math.ceil(output.length * 1.25)));
  return output.subarray(0, length);
}

/** The fewest query columns a product is run with (see above). */
const MIN_COLUMNS = 2;

/**
 * matrix holds `rows` unit vectors of `dimensions` values each, row after row. The result holds
 * row r's dot product with query q at r * columns + q, where columns is at least the number of
 * queries (zero columns pad a single query).
 */
export async function dotProducts(
  matrix: Float32Array,
  rows: number,
  queries: readonly Float32Array[],
  dimensions: number,
): Promise<{ scores: Float32Array; columns: number }> {
  const columns = Math.max(MIN_COLUMNS, queries.length);
  if (rows === 0) return { scores: new Float32Array(0), columns };
  const packed = new Float32Array(dimensions * columns);
  queries.forEach((query, q) => {
    if (query.length !== dimensions) throw new Error(`a ${query.length}-dimension query cannot score ${dimensions}-dimension vectors`);
    for (let d = 0; d < dimensions; d++) packed[d * columns + q] = query[d]!;
  });
  // Into an output array kept from product to product: the runtime's own outputs (a size for
  // each batch size) stayed behind in its memory pool.
  const scores = outputFor(rows * columns);
  const feeds = {
    matrix: new ort.Tensor('float32', matrix.subarray(0, rows * dimensions), [rows, dimensions]),
    queries: new ort.Tensor('float32', packed, [dimensions, columns]),
  };
  await (await matMulSession()).run(feeds, { scores: new ort.Tensor('float32', scores, [rows, columns]) });
  return { scores, columns };
}
