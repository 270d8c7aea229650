import ort from 'onnxruntime-node';

/**
 * Exact k-NN's inner loop, the dot products of queries with every row of the vector matrix, run
 * by ONNX Runtime's MatMul (MLAS, vectorised and on both cores). At 100,000 x 384 one query takes
 * about 6 ms where a JavaScript loop takes 66-96 ms, and the runtime is already loaded for the
 * sentence-embedding model.
 *
 * The product reads the whole matrix (150 MB at 100,000 x 384) from memory for each call, and that
 * is what it waits on: eight queries in one call take about as long as one (6.5 against 5.7 ms),
 * so queries that arrive together are scored together (vector-scans.ts). A call always has at
 * least two query columns: MLAS takes another kernel for a single column, whose sums round
 * differently in the last bit, and a record's cosine must not depend on which queries it was
 * scored with. From two columns up, each cosine is the same whatever the other columns and rows.
 *
 * The one-node graph (scores[n, b] = matrix[n, d] x queries[d, b]) is written here as ONNX
 * protobuf bytes: it is 200 bytes, and a protobuf or ONNX-builder dependency for it would weigh
 * far more than the few lines below.
 */

function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 127) {
    bytes.push((rest & 127) | 128);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return bytes;
}
const FIELD_VARINT = 0;
const FIELD_BYTES = 2;
const tag = (field: number, wireType: number) => varint(field * 8 + wireType);
const message = (field: number, content: number[]) => [...tag(field, FIELD_BYTES), ...varint(content.length), ...content];
const text = (field: number, value: string) => message(field, [...Buffer.from(value, 'utf8')]);
const integer = (field: number, value: number) => [...tag(field, FIELD_VARINT), ...varint(value)];

const FLOAT = 1;
/** TensorShapeProto.Dimension: a named (dynamic) size or a fixed one. */
const dimension = (size: string | number) => message(1, typeof size === 'string' ? text(2, size) : integer(1, size));
/** ValueInfoProto { name, type: TypeProto { tensor_type: { elem_type: FLOAT, shape } } }. */
const floatTensor = (name: string, shape: (string | number)[]) =>
  [...text(1, name), ...message(2, message(1, [...integer(1, FLOAT), ...message(2, shape.flatMap(dimension))]))];

function matMulModel(): Uint8Array {
  const node = [...text(1, 'matrix'), ...text(1, 'queries'), ...text(2, 'scores'), ...text(4, 'MatMul')];
  const graph = [
    ...message(1, node),
    ...text(2, 'dot_products'),
    ...message(11, floatTensor('matrix', ['rows', 'dimensions'])),
    ...message(11, floatTensor('queries', ['dimensions', 'columns'])),
    ...message(12, floatTensor('scores', ['rows', 'columns'])),
  ];
  // ModelProto { ir_version 8, graph, opset_import { domain "", version 13 } }.
  return Uint8Array.from([...integer(1, 8), ...message(7, graph), ...message(8, [...text(1, ''), ...integer(2, 13)])]);
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
  session ??= ort.InferenceSession.create(matMulModel(), { graphOptimizationLevel: 'all', intraOpNumThreads: threads, interOpNumThreads: 1, extra: { session: { intra_op: { allow_spinning: '0' } } } });
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
export async function dotProducts(matrix: Float32Array, rows: number, queries: readonly Float32Array[], dimensions: number): Promise<{ scores: Float32Array; columns: number }> {
  const columns = Math.max(MIN_COLUMNS, queries.length);
  if (rows === 0) return { scores: new Float32Array(0), columns };
  const packed = new Float32Array(dimensions * columns);
  queries.forEach((query, q) => {
    if (query.length !== dimensions) throw new Error(`a ${query.length}-dimension query cannot score ${dimensions}-dimension vectors`);
    for (let d = 0; d < dimensions; d++) packed[d * columns + q] = query[d]!;
  });
  // Into an output array kept from product to product: one for every batch size, the runtime's
  // own outputs (a size for each) left about 60 MB behind in its memory pool.
  const scores = outputFor(rows * columns);
  const feeds = {
    matrix: new ort.Tensor('float32', matrix.subarray(0, rows * dimensions), [rows, dimensions]),
    queries: new ort.Tensor('float32', packed, [dimensions, columns]),
  };
  await (await matMulSession()).run(feeds, { scores: new ort.Tensor('float32', scores, [rows, columns]) });
  return { scores, columns };
}
