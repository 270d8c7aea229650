import type { KnnBenchResult } from './knn';
import { int, ms, table } from './format';
import { median } from './summary';

/** The "Exact k-NN against a bare dot-product loop" section of docs/benchmarks.md (`npm run bench -- --parts knn`). */

export const KNN_MARKERS = { start: '<!-- knn section: npm run bench -- --parts knn -->', end: '<!-- end of knn section -->' } as const;

export function knnSection(knn: KnnBenchResult | null): string {
  const heading = '## Exact k-NN against a bare dot-product loop';
  if (!knn) return `${KNN_MARKERS.start}\n${heading}\n\nNot measured in this run.\n${KNN_MARKERS.end}`;
  const bare = median(knn.bareMs);
  const scan = median(knn.scanMs);
  const sort = median(knn.sortMs);
  return [
    KNN_MARKERS.start,
    heading,
    '',
    `${int(knn.vectors)} vectors of ${knn.dimensions} dimensions (the wink embeddings of the synthetic catalogue's grants), one query`,
    `vector, ${knn.bareMs.length} interleaved repetitions after warm-up, medians. "Bare loop": the same dot products over the same`,
    'Float32Array, scores stored and nothing else, the floor of what an exact search can cost. "Index scan": the embedded',
    'index\'s k-NN (`VectorMatrix.matchesAbove`), which also applies the semantic floor and the filter mask inside the scan.',
    '',
    table(['', 'ms per scan', 'vs bare loop'], [
      ['bare Float32Array dot-product loop', ms(bare), '1.00x'],
      ['index k-NN scan (floor + filter inside)', ms(scan), `${(scan / bare).toFixed(2)}x`],
      [`ranking the ${int(knn.matches)} matches above the floor ${knn.floor} (cosine, ties by id)`, ms(sort), ''],
    ]),
    KNN_MARKERS.end,
  ].join('\n');
}
