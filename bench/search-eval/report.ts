import { SEARCH_MODES, type SearchMode } from '../../lambdas/core/query/list-query';
import { describeSpace } from '../../lambdas/core/search/vector-space';
import type { VectorSpace } from '../../lambdas/ports/embedder';
import { table } from '../format';
import { mean } from './metrics';

export const SEARCH_QUALITY_MARKERS = {
  start: '<!-- search quality section: npm run eval:search -->',
  end: '<!-- end of search quality section -->',
} as const;

export interface ModeScore {
  ndcg10: number;
  recall50: number;
  total: number;
  ms: number;
}

export interface QueryScore {
  id: string;
  query: string;
  kind: 'grant' | 'contract';
  /** Records judged relevant (grade 1 or more). */
  relevant: number;
  byMode: Record<SearchMode, ModeScore>;
}

const f3 = (n: number) => n.toFixed(3);

export function searchQualitySection(scores: QueryScore[], setup: { embedder: VectorSpace; floor: number; depth: number }): string {
  const summaryRows = SEARCH_MODES.map((mode) => {
    const of = (kind?: 'grant' | 'contract') => scores.filter((s) => !kind || s.kind === kind).map((s) => s.byMode[mode]);
    return [
      mode,
      f3(mean(of().map((m) => m.ndcg10))),
      f3(mean(of().map((m) => m.recall50))),
      f3(mean(of('grant').map((m) => m.ndcg10))),
      f3(mean(of('contract').map((m) => m.ndcg10))),
      String(of().filter((m) => m.total === 0).length),
    ];
  });
  const wins = scores.filter((s) => s.byMode.hybrid.ndcg10 > s.byMode.keyword.ndcg10).length;
  const losses = scores.filter((s) => s.byMode.hybrid.ndcg10 < s.byMode.keyword.ndcg10).length;
  const perQuery = scores.map((s) => [
    `${s.query} (${s.kind}, ${s.relevant})`,
    ...SEARCH_MODES.map((mode) => `${f3(s.byMode[mode].ndcg10)} / ${f3(s.byMode[mode].recall50)}`),
  ]);
  return [
    SEARCH_QUALITY_MARKERS.start,
    '## Search quality on ../shared/data',
    '',
    `Written by \`npm run eval:search\` (\`bench/search-eval/run.ts\`) on ${new Date().toISOString().slice(0, 10)}: all of ../shared/data imported into the`,
    `embedded stack, then ${scores.length} labelled natural-language queries (bench/search-eval/queries.json; judgements made by reading`,
    'the records, not by running the search) run through the list endpoints\' code with the default filters (open opportunities),',
    `${setup.depth} results each. Embedder ${describeSpace(setup.embedder)}, semantic floor ${setup.floor}; hybrid is RRF (k = 60) of the keyword`,
    'and semantic lists. nDCG@10 uses gains 2^grade - 1 against the ideal order of all judgements; recall@50 counts records graded 1',
    'or more. Unjudged records count as not relevant.',
    '',
    table(['mode', 'nDCG@10', 'recall@50', 'nDCG@10 grants', 'nDCG@10 contracts', 'queries with no result'], summaryRows),
    '',
    `Hybrid beats keyword on nDCG@10 in ${wins} queries, loses in ${losses}, ties in ${scores.length - wins - losses}.`,
    '',
    '<details><summary>Per query: nDCG@10 / recall@50 (kind, records judged relevant)</summary>',
    '',
    table(['query', ...SEARCH_MODES], perQuery),
    '',
    '</details>',
    SEARCH_QUALITY_MARKERS.end,
  ].join('\n');
}
