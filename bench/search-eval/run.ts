// `npm run eval:search`: search quality (nDCG@10, recall@50) of keyword, semantic and hybrid search
// on ../shared/data, against the labelled queries in bench/search-eval/queries.json.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseListQuery, SEARCH_MODES, type SearchMode } from '../../lambdas/core/query/list-query';
import { listRecords } from '../../lambdas/core/use-cases/list-records';
import { utcDate } from '../../lambdas/ports/clock';
import { PROJECT_ROOT } from '../child-processes';
import { withMarkedSection } from '../report';
import { idsBySourceKey, SHARED_DATA, sharedDataCatalogue, sharedDataPresent } from '../shared-data-catalogue';
import { SEARCH_QUALITY_MARKERS, searchQualitySection, type QueryScore } from './report';
import { mean, ndcgAt, recallAt } from './metrics';

interface LabelledQuery {
  id: string;
  query: string;
  kind: 'grant' | 'contract';
  judgements: { source: string; source_id: string; grade: number; title: string }[];
}

const DATA_DIR = join(PROJECT_ROOT, 'bench', '.data', 'search-eval');
const REPORT = join(PROJECT_ROOT, 'docs', 'benchmarks.md');
const DEPTH = 50;

async function main(): Promise<void> {
  if (!sharedDataPresent()) {
    console.error(`eval:search: skipped, ../shared/data is absent (${SHARED_DATA})`);
    return;
  }
  const { queries } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'bench', 'search-eval', 'queries.json'), 'utf8')) as { queries: LabelledQuery[] };
  const stack = await sharedDataCatalogue(DATA_DIR);
  try {
    const ids = { grant: await idsBySourceKey(stack, 'grant'), contract: await idsBySourceKey(stack, 'contract') };
    const today = utcDate(stack.services.clock);
    const scores: QueryScore[] = [];
    for (const labelled of queries) {
      const grades = new Map<string, number>();
      for (const judgement of labelled.judgements) {
        const id = ids[labelled.kind].get(`${judgement.source}|${judgement.source_id}`);
        if (!id) throw new Error(`query ${labelled.id}: no ${labelled.kind} ${judgement.source} ${judgement.source_id} (${judgement.title}) in the catalogue`);
        grades.set(id, Math.max(grades.get(id) ?? 0, judgement.grade));
      }
      const byMode = {} as QueryScore['byMode'];
      for (const mode of SEARCH_MODES) {
        const query = parseListQuery(labelled.kind, { search: [labelled.query], search_mode: [mode], limit: [String(DEPTH)] }, today);
        const started = performance.now();
        const { results, total } = await listRecords(stack.services, query);
        const ranked = results.map((r) => r.id);
        byMode[mode as SearchMode] = { ndcg10: ndcgAt(10, ranked, grades), recall50: recallAt(DEPTH, ranked, grades), total, ms: performance.now() - started };
      }
      scores.push({ id: labelled.id, query: labelled.query, kind: labelled.kind, relevant: [...grades.values()].filter((g) => g >= 1).length, byMode });
    }
    for (const mode of SEARCH_MODES) {
      console.log(`${mode.padEnd(8)} nDCG@10 ${mean(scores.map((s) => s.byMode[mode].ndcg10)).toFixed(3)}  recall@50 ${mean(scores.map((s) => s.byMode[mode].recall50)).toFixed(3)}`);
    }
    const section = searchQualitySection(scores, { embedder: stack.services.embedder.space, floor: stack.services.semanticFloor, depth: DEPTH });
    writeFileSync(REPORT, withMarkedSection(existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : '# Benchmarks\n', SEARCH_QUALITY_MARKERS, section));
    console.log(`wrote the search quality section of ${REPORT}`);
  } finally {
    await stack.close();
  }
}

await main();
