import { int, ms, table } from './format';
import type { KnnBenchResult } from './knn';
import { median } from './summary';

/** The "Exact k-NN" section of docs/benchmarks.md (`npm run bench -- --parts knn`). */

export const KNN_MARKERS = { start: '<!-- knn section: npm run bench -- --parts knn -->', end: '<!-- end of knn section -->' } as const;

const percent = (share: number) => `${(share * 100).toFixed(1)}%`;

export function knnSection(knn: KnnBenchResult | null): string {
  const heading = '## Exact k-NN against a bare dot-product loop';
  if (!knn) return `${KNN_MARKERS.start}\n${heading}\n\nNot measured in this run.\n${KNN_MARKERS.end}`;
  const bare = median(knn.bareMs);
  const scan = median(knn.scanMs);
  const batch = median(knn.batchMs);
  const { recall, pruning } = knn;
  const shares = (values: number[]) => `median ${percent(median(values))}, highest ${percent(Math.max(...values))}`;
  return [
    KNN_MARKERS.start,
    heading,
    '',
    `Written by \`npm run bench -- --parts knn\` on ${new Date().toISOString().slice(0, 10)}: the ${int(knn.vectors)} grant vectors of the api part's`,
    `catalogue (bge-small-en-v1.5, ${knn.dimensions} dimensions, read from its index file), ${knn.queries} new query texts embedded by the model,`,
    `the floor ${knn.floor}; ${knn.bareMs.length} interleaved repetitions after warm-up, medians, in this process. "Bare loop": the same dot`,
    'products in a JavaScript loop over the same Float32Array, scores stored and nothing else. "Index scan": the embedded index\'s',
    "scan (`VectorScans.matchesAbove`: ONNX Runtime's product of every vector with the queries on one thread, as a served",
    "index's vector worker runs it, the floor applied in the same pass); the worker scores the scans that arrive together in",
    'one product.',
    '',
    table(
      ['', 'ms per query', 'vs bare loop'],
      [
        ['bare Float32Array dot-product loop', ms(bare), '1.00x'],
        ['index scan, one query', ms(scan), `${(scan / bare).toFixed(2)}x`],
        [`index scan, ${8} queries in one product`, ms(batch), `${(batch / bare).toFixed(2)}x`],
        [`ordering the best 20 of the matches (median ${int(median(knn.matches))} above the floor)`, ms(median(knn.pageMs)), ''],
        ['ordering every match (ties by id)', ms(median(knn.sortMs)), ''],
      ],
    ),
    '',
    `**Recall.** Against float64 sums of the same floats, over the ${knn.queries} queries: ${int(recall.reference)} records at or above the floor,`,
    `${int(recall.found)} of them found by the scan (recall ${(recall.found / Math.max(1, recall.reference)).toFixed(4)}), ${int(recall.missed)} missed, ${int(recall.extra)} found that the reference puts under it;`,
    `${int(recall.withinMillionthOfFloor)} reference cosines lie within a millionth of the floor, where a float32 sum may round the other way. The scan is exact`,
    'by construction (every vector is scored; filters narrow the result set, they never cut it short), and a property test',
    'holds it to the dot products and to the same cosines by every route (`test/unit/vector-scans.test.ts`).',
    '',
    '**Exact pruning, tried and dropped.** An index that skips vectors must prove the skipped ones are under the floor, or',
    'the total would undercount. Measured on these vectors and queries:',
    '',
    table(
      ['pruning', 'share of records', 'what it means'],
      [
        ['int8 copy of the vectors, a scale per dimension', shares(pruning.int8Band), "within the copy's error bound of the floor: scored again exactly"],
        [`${pruning.clusters} k-means clusters, each with its radius`, shares(pruning.clusterSkipped), 'in clusters whose bound lies under the floor: skipped'],
      ],
    ),
    '',
    `A cluster of these 384-dimension vectors has a radius near 0.5 while the cosines that matter lie within 0.3 of the floor,`,
    `so cluster bounds skip nothing. An int8 copy would decide most records (a quarter of the bytes to read), but ONNX Runtime's`,
    `int8 product is no faster than the float one at these shapes: ${ms(median(knn.int8ProductMs))} ms against ${ms(median(knn.floatProductMs))} ms for two query columns on one`,
    'thread, before the records near the floor are scored again; the saving would need a kernel of our own. An approximate',
    'index (HNSW) finds the best matches fast but cannot count the rest, and `pagination.total` counts every record above',
    'the floor.',
    KNN_MARKERS.end,
  ].join('\n');
}
