/**
 * The section `npm run eval:search -- --index opensearch` writes: each search mode's figures on
 * the OpenSearch adapter beside the embedded index, from the same labelled queries in one run,
 * and the queries on which the two engines disagree.
 */
import { SEARCH_MODES, type SearchMode } from '../../lambdas/core/query/list-query';
import { table } from '../format';
import { median } from '../summary';
import { summarise, type QueryScore } from './judgements';

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
}

const fixed = (value: number) => value.toFixed(3);

export function engineComparisonSection(input: EngineComparisonInput): string {
  const { embedded, openSearch } = input;
  const scored = (scores: readonly QueryScore[]) => scores.filter((s) => s.status === 'scored');
  const rows = SEARCH_MODES.map((mode: SearchMode) => {
    const a = summarise(embedded, mode);
    const b = summarise(openSearch, mode);
    const ms = (scores: readonly QueryScore[]) => median(scored(scores).map((s) => s.bySystem[mode].ms));
    return [mode, fixed(a.ndcg10), fixed(b.ndcg10), fixed(a.recall50), fixed(b.recall50), `${a.noResultScored} / ${b.noResultScored}`, `${ms(embedded).toFixed(1)} / ${ms(openSearch).toFixed(1)}`];
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
  const semanticEqual = scored(embedded).every((score) => {
    const other = byId.get(score.id);
    return other !== undefined && Math.abs(other.bySystem.semantic.ndcg10 - score.bySystem.semantic.ndcg10) < 1e-9 && Math.abs(other.bySystem.semantic.recall50 - score.bySystem.semantic.recall50) < 1e-9;
  });
  return [
    ENGINE_COMPARISON_MARKERS.start,
    '## Search quality on OpenSearch beside the embedded index',
    '',
    `Written by \`npm run eval:search -- --index opensearch\` on ${new Date().toISOString().slice(0, 10)} (evaluation date ${input.evalDate}): the ${queries} scored labelled queries of "Search quality on ../shared/data", through the same list code, on the embedded index (SQLite FTS5 and an exact k-NN scan) and on the OpenSearch adapter against ${input.engine} (Lucene BM25 with the english analyzer, and an exact similarity scan with the k-NN plugin's scoring script). The catalogue and its vectors are the same in both (one embedding cache), so only the engines differ.`,
    '',
    table(['mode', 'nDCG@10 embedded', 'nDCG@10 OpenSearch', 'recall@50 embedded', 'recall@50 OpenSearch', 'no result (embedded / OpenSearch)', 'median ms (embedded / OpenSearch)'], rows),
    '',
    `Why they differ. Semantic search is the same computation on both (an exact scan of the same vectors against the same floor), so its figures must be equal: ${semanticEqual ? 'they are' : 'they are NOT, which is a defect to find'}. Keyword search is BM25 as Lucene scores it on both (k1 1.2, b 0.75, one-byte length norms, the weighted fields, the sloppy phrase): OpenSearch runs Lucene itself with the english analyzer, and the embedded index computes the same formula from SQLite FTS5's postings of the terms the service's own Porter stemmer writes. Which records match follows the same rules (identifiers, the minimum-should-match and the telling term), so the matches and scores differ only where the two stemmers and tokenizers do (Lucene's english analyzer stems possessives and a few suffixes differently) and where cross_fields blends a term's statistics over the fields; hybrid search fuses those keyword scores, so it differs with them.`,
    '',
    `Queries whose nDCG@10 differs by ${LISTED_DIFFERENCE} or more between the engines: ${differences.length === 0 ? 'none.' : ''}`,
    ...(differences.length === 0 ? [] : ['', table(['query', 'mode', 'embedded', 'OpenSearch', 'difference'], differences)]),
    ENGINE_COMPARISON_MARKERS.end,
  ].join('\n');
}
