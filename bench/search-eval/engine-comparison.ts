/**
 * The section `npm run eval:search -- --index opensearch` writes: each search mode's figures on
 * the OpenSearch adapter beside the embedded index, from the same labelled queries in one run,
 * and the queries on which the two engines disagree.
 */
import { SEARCH_MODES, type SearchMode } from '../../lambdas/core/query/list-query';
import { table } from '../format';
import { median } from '../summary';
import { type QueryScore, summarise } from './judgements';
import type { RecallOfFilters } from './knn-recall';

export const ENGINE_COMPARISON_MARKERS = {
  start: '<!-- search engines section: npm run eval:search -- --index opensearch -->',
  end: '<!-- end of search engines section -->',
} as const;

/** A query is listed when its nDCG@10 on the two engines differs by at least this much. */
const LISTED_DIFFERENCE = 0.1;

export interface EngineComparisonInput {
  evalDate: string;
  engine: string;
  embedded: readonly QueryScore[];
  openSearch: readonly QueryScore[];
  /** The window semantic and hybrid search rank on OpenSearch, and its recall against the exact scan per kind. */
  window: number;
  windowRecall: readonly { kind: string; results: readonly RecallOfFilters[] }[];
}

/** The targets of the window's recall (issue 40): at 10 and at 100, the mean over the labelled queries of each filter set. */
const RECALL_TARGETS = { 10: 0.99, 100: 0.97 } as const;

function windowRecallLines(input: EngineComparisonInput): string[] {
  const rows = input.windowRecall.flatMap(({ kind, results }) =>
    results.map((r) => [kind, r.filters, String(r.queries), fixed(r.mean[10]), fixed(r.worst[10]), fixed(r.mean[100]), fixed(r.worst[100])]),
  );
  const all = input.windowRecall.flatMap(({ results }) => results);
  const lowest = (depth: 10 | 100) => Math.min(...all.map((r) => r.mean[depth]));
  const met = lowest(10) >= RECALL_TARGETS[10] && lowest(100) >= RECALL_TARGETS[100];
  return [
    '### Recall of the k-NN window',
    '',
    `Semantic and hybrid search on OpenSearch rank the window of the ${input.window.toLocaleString('en-US')} nearest candidates that pass the filters, found on the HNSW graph (Lucene, m 16, ef_construction 128) with the filters inside the search. Here each labelled query's vector is searched both ways on the same index: the window, and an exact scan of every filtered record (the k-NN plugin's scoring script); recall@k is the share of the exact k nearest that the window's first k hold (a record tied with the exact k-th counts as found, as ann-benchmarks counts). The test \`test/engines/knn-window-recall.test.ts\` holds the targets on every run of \`npm run test:engines\`.`,
    '',
    table(['kind', 'filters', 'queries', 'recall@10 mean', 'recall@10 worst query', 'recall@100 mean', 'recall@100 worst query'], rows),
    '',
    `Targets: recall@10 at least ${RECALL_TARGETS[10]} and recall@100 at least ${RECALL_TARGETS[100]} for every filter set: ${met ? 'PASS' : 'short'} (lowest means ${fixed(lowest(10))} and ${fixed(lowest(100))}).`,
  ];
}

const fixed = (value: number) => value.toFixed(3);

export function engineComparisonSection(input: EngineComparisonInput): string {
  const { embedded, openSearch } = input;
  const scored = (scores: readonly QueryScore[]) => scores.filter((s) => s.status === 'scored');
  const rows = SEARCH_MODES.map((mode: SearchMode) => {
    const a = summarise(embedded, mode);
    const b = summarise(openSearch, mode);
    const ms = (scores: readonly QueryScore[]) => median(scored(scores).map((s) => s.bySystem[mode].ms));
    return [
      mode,
      fixed(a.ndcg10),
      fixed(b.ndcg10),
      fixed(a.recall50),
      fixed(b.recall50),
      `${a.noResultScored} / ${b.noResultScored}`,
      `${ms(embedded).toFixed(1)} / ${ms(openSearch).toFixed(1)}`,
    ];
  });
  const byId = new Map(scored(openSearch).map((s) => [s.id, s]));
  const differences: string[][] = [];
  for (const score of scored(embedded)) {
    const other = byId.get(score.id);
    if (!other) continue;
    for (const mode of SEARCH_MODES) {
      const delta = other.bySystem[mode].ndcg10 - score.bySystem[mode].ndcg10;
      if (Math.abs(delta) >= LISTED_DIFFERENCE) {
        differences.push([score.id, mode, fixed(score.bySystem[mode].ndcg10), fixed(other.bySystem[mode].ndcg10), `${delta > 0 ? '+' : ''}${fixed(delta)}`]);
      }
    }
  }
  const queries = scored(embedded).length;
  const semanticDiffering = scored(embedded).filter((score) => {
    const other = byId.get(score.id);
    return (
      other === undefined ||
      Math.abs(other.bySystem.semantic.ndcg10 - score.bySystem.semantic.ndcg10) >= 1e-9 ||
      Math.abs(other.bySystem.semantic.recall50 - score.bySystem.semantic.recall50) >= 1e-9
    );
  }).length;
  return [
    ENGINE_COMPARISON_MARKERS.start,
    '## Search quality on OpenSearch beside the embedded index',
    '',
    `Written by \`npm run eval:search -- --index opensearch\` on ${new Date().toISOString().slice(0, 10)} (evaluation date ${input.evalDate}): the ${queries} scored labelled queries of "Search quality on ../shared/data", through the same list code, on the embedded index (SQLite FTS5 and an exact k-NN scan) and on the OpenSearch adapter against ${input.engine} (Lucene BM25 with the english analyzer, and approximate k-NN over a window of nearest candidates). The catalogue and its vectors are the same in both (one embedding cache), so only the engines differ.`,
    '',
    table(
      [
        'mode',
        'nDCG@10 embedded',
        'nDCG@10 OpenSearch',
        'recall@50 embedded',
        'recall@50 OpenSearch',
        'no result (embedded / OpenSearch)',
        'median ms (embedded / OpenSearch)',
      ],
      rows,
    ),
    '',
    `Why they differ. Semantic search compares the same vectors against the same floor on both, but the embedded index scans every filtered record while OpenSearch ranks the window of nearest candidates its HNSW graph finds (below), and reads the floor's evidence from the graph too: the figures can differ only where the graph misses a candidate the scan finds. ${semanticDiffering === 0 ? "No query's semantic nDCG@10 or recall@50 differs." : `${semanticDiffering} of ${queries} queries differ in semantic nDCG@10 or recall@50.`} Keyword search is BM25 as Lucene scores it on both (k1 1.2, b 0.75, one-byte length norms, the weighted fields, the sloppy phrase): OpenSearch runs Lucene itself with the english analyzer, and the embedded index computes the same formula from SQLite FTS5's postings of the terms the service's own Porter stemmer writes. Which records match follows the same rules (identifiers, the minimum-should-match and the telling term), so the matches and scores differ only where the two stemmers and tokenizers do (Lucene's english analyzer stems possessives and a few suffixes differently) and where cross_fields blends a term's statistics over the fields; hybrid search fuses those keyword scores, so it differs with them.`,
    '',
    `Queries whose nDCG@10 differs by ${LISTED_DIFFERENCE} or more between the engines: ${differences.length === 0 ? 'none.' : ''}`,
    ...(differences.length === 0 ? [] : ['', table(['query', 'mode', 'embedded', 'OpenSearch', 'difference'], differences)]),
    '',
    ...windowRecallLines(input),
    ENGINE_COMPARISON_MARKERS.end,
  ].join('\n');
}
