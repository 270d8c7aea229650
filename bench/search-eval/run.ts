// `npm run eval:search`: search quality (nDCG@10, recall@50, queries with no result) of keyword,
// semantic and hybrid search and of an independent BM25 baseline on ../shared/data, against the
// labelled queries and off-topic probes in bench/search-eval/queries.json, on a pinned date.
//
//   npm run eval:search                          # writes the section of docs/benchmarks.md
//   npm run eval:search -- --pool pool.json      # also writes the judging pool (or EVAL_POOL=pool.json)
//   npm run eval:search -- --scope applyable     # only what the default listing shows (scope.ts)
//   npm run eval:search -- --index opensearch    # also on the OpenSearch adapter (OPENSEARCH_URL, or a node it starts)
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SEARCH_MODES } from '../../lambdas/core/query/list-query';
import { similarityScaleOf } from '../../lambdas/core/search/relevance';
import { PROJECT_ROOT } from '../child-processes';
import { withMarkedSection } from '../report';
import { idsBySourceKey, SHARED_DATA, sharedDataCatalogue, sharedDataPresent } from '../shared-data-catalogue';
import { writeReportWithSummary } from '../summary-table';
import { calibrate, calibratedFloors } from './calibration';
import { type Collection, type OpportunityKind, searchableCollection } from './collection';
import { ENGINE_COMPARISON_MARKERS, engineComparisonSection } from './engine-comparison';
import { EVAL_DATE, pinnedClock } from './eval-date';
import type { QuerySet } from './judgements';
import { type LabelledQuery, QUERY_CATEGORIES, QUERY_SETS, type SystemSummary, scoreQueries, summarise } from './judgements';
import { measureWindowRecall, queryVectors, recallCases } from './knn-recall';
import { openSearchEvalIndex } from './opensearch-index';
import { judgingPool, POOL_DEPTH, writePool } from './pool';
import { probesAnsweredBy, runProbes, summariseProbes, validateProbes } from './probes';
import { SEARCH_QUALITY_MARKERS, searchQualitySection } from './report';
import { EVAL_SCOPES, type EvalScope } from './scope';
import { allSystems, SYSTEMS, type SystemName } from './systems';
import { targetChecks, verdict } from './targets';

/** Awards are never in a default search, and embedding their 16,000 records costs minutes. */
const FILES = ['funders.jsonl', 'grants.jsonl', 'contracts.jsonl'] as const;
// Not bench/.data/search-eval: a store there from before may hold awards, which a re-import of
// these files would not remove, and the index rebuild would embed them again.
const DATA_DIR = join(PROJECT_ROOT, 'bench', '.data', 'search-eval-open');
const QUERIES = join(PROJECT_ROOT, 'bench', 'search-eval', 'queries.json');
const REPORT = join(PROJECT_ROOT, 'docs', 'benchmarks.md');
const DEPTH = 50;

const INDEXES = ['embedded', 'opensearch'] as const;

function options(): { pool: string | null; scope: EvalScope; openSearch: boolean } {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { pool: { type: 'string' }, scope: { type: 'string', default: 'catalogue' }, index: { type: 'string', default: 'embedded' } },
  });
  const pool = values.pool ?? process.env.EVAL_POOL ?? null;
  const scope = values.scope as EvalScope;
  if (!EVAL_SCOPES.includes(scope)) throw new Error(`--scope must be one of ${EVAL_SCOPES.join(', ')}`);
  if (!(INDEXES as readonly string[]).includes(values.index!)) throw new Error(`--index must be one of ${INDEXES.join(', ')}`);
  return { pool: pool ? resolve(pool) : null, scope, openSearch: values.index === 'opensearch' };
}

function loadQueries(): { queries: LabelledQuery[]; probes: string[]; holdout: string[] } {
  const file = JSON.parse(readFileSync(QUERIES, 'utf8')) as { queries: LabelledQuery[]; off_topic_probes?: unknown; off_topic_holdout?: unknown };
  const ids = file.queries.map((q) => q.id);
  const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (duplicates.length > 0) throw new Error(`queries.json: duplicate query ids: ${duplicates.join(', ')}`);
  for (const q of file.queries) {
    if (!QUERY_CATEGORIES.includes(q.category)) throw new Error(`queries.json: query ${q.id} has no category (${QUERY_CATEGORIES.join(', ')})`);
    if (!QUERY_SETS.includes(q.set)) throw new Error(`queries.json: query ${q.id} has no set (${QUERY_SETS.join(', ')})`);
  }
  return {
    queries: file.queries,
    probes: validateProbes(file.off_topic_probes ?? []),
    holdout: validateProbes(file.off_topic_holdout ?? [], 'off_topic_holdout'),
  };
}

function logSummary(summary: Record<SystemName, SystemSummary>): void {
  for (const system of SYSTEMS) {
    const s = summary[system];
    console.log(
      `${system.padEnd(8)} nDCG@10 ${s.ndcg10.toFixed(3)}  recall@50 ${s.recall50.toFixed(3)} (capped ${s.cappedRecall50.toFixed(3)})  no result: ${s.noResultScored} judged, ${s.noResultLabelled} labelled`,
    );
  }
}

async function main(): Promise<void> {
  if (!sharedDataPresent(FILES)) {
    console.error(`eval:search: skipped, ../shared/data is absent (${SHARED_DATA})`);
    return;
  }
  const { pool: poolFile, scope, openSearch } = options();
  const { queries, probes, holdout } = loadQueries();
  const stack = await sharedDataCatalogue(DATA_DIR, pinnedClock(EVAL_DATE), FILES);
  try {
    const collections = {} as Record<OpportunityKind, Collection>;
    const idsBySource = {} as Record<OpportunityKind, Map<string, string>>;
    for (const kind of ['grant', 'contract'] as const) {
      collections[kind] = await searchableCollection(stack, kind, EVAL_DATE, scope);
      idsBySource[kind] = await idsBySourceKey(stack, kind);
      console.error(`${kind} collection (scope ${scope}) on ${EVAL_DATE}: ${collections[kind].records.size} records (${collections[kind].method})`);
    }
    const systems = allSystems(stack, collections, EVAL_DATE, scope);

    const started = performance.now();
    const run = await scoreQueries(queries, idsBySource, collections, systems, DEPTH);
    console.error(`${queries.length} labelled queries x ${SYSTEMS.length} systems: ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const summaryOf = (set: QuerySet) =>
      Object.fromEntries(
        SYSTEMS.map((system) => [
          system,
          summarise(
            run.scores.filter((s) => s.set === set),
            system,
          ),
        ]),
      ) as Record<SystemName, SystemSummary>;
    const summary = { tuning: summaryOf('tuning'), holdout: summaryOf('holdout'), fresh: summaryOf('fresh') };
    for (const set of QUERY_SETS) {
      console.log(`${set} queries:`);
      logSummary(summary[set]);
    }

    const probeAnswers = await runProbes(probes, systems);
    const holdoutAnswers = await runProbes(holdout, systems);
    for (const [name, answers, texts] of [
      ['calibration', probeAnswers, probes],
      ['held-out', holdoutAnswers, holdout],
    ] as const) {
      for (const p of summariseProbes(texts, answers))
        console.log(`${p.system.padEnd(8)} ${name} off-topic probes answered: ${p.either} of ${texts.length} (grants ${p.grants}, contracts ${p.contracts})`);
    }
    const vectorModes = SEARCH_MODES.filter((mode) => mode !== 'keyword');
    const answeredInVectorModes = probesAnsweredBy(probeAnswers, vectorModes).length + probesAnsweredBy(holdoutAnswers, vectorModes).length;

    const targets = targetChecks({
      holdout: summary.holdout,
      fresh: summary.fresh,
      scores: run.scores,
      probesAnswered: answeredInVectorModes,
      probes: probes.length + holdout.length,
    });
    const scale = similarityScaleOf(stack.services.embedder.space, stack.services.semanticFloor);
    const calibration = await calibrate(stack, { scale, today: EVAL_DATE, scope }, queries, probes, holdout);
    console.log(
      `floors by the calibration rule: ${JSON.stringify(calibratedFloors(calibration))} (in force: floor ${scale.floor}, lexical floor ${scale.lexicalFloor})`,
    );
    for (const t of targets) console.log(`target ${verdict(t).padEnd(5)} ${t.name}: ${t.value} (target ${t.target})`);

    if (poolFile) {
      writePool(poolFile, judgingPool(queries, run.answers, run.grades, collections), { evalDate: EVAL_DATE, depth: POOL_DEPTH });
      console.log(`wrote the judging pool (top ${POOL_DEPTH} of each system per query) to ${poolFile}`);
    }

    const section = searchQualitySection({
      setup: {
        evalDate: EVAL_DATE,
        scope,
        files: FILES,
        embedder: stack.services.embedder.space,
        scale,
        depth: DEPTH,
        collections: {
          grant: { size: collections.grant.records.size, method: collections.grant.method },
          contract: { size: collections.contract.records.size, method: collections.contract.method },
        },
      },
      scores: run.scores,
      summary,
      probes,
      probeAnswers,
      holdout,
      holdoutAnswers,
      targets,
      calibration,
      run,
    });
    writeReportWithSummary(REPORT, withMarkedSection(existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : '# Benchmarks\n', SEARCH_QUALITY_MARKERS, section));
    console.log(`wrote the search quality section of ${REPORT}`);

    if (openSearch) {
      const engine = await openSearchEvalIndex(stack, DATA_DIR);
      try {
        const onOpenSearch = await scoreQueries(queries, idsBySource, collections, allSystems(engine.stack, collections, EVAL_DATE, scope), DEPTH);
        const compared = Object.fromEntries(SYSTEMS.map((system) => [system, summarise(onOpenSearch.scores, system)])) as Record<SystemName, SystemSummary>;
        console.log('on OpenSearch:');
        logSummary(compared);
        const windowRecall = [];
        for (const kind of ['grant', 'contract'] as const) {
          const vectors = await queryVectors(
            stack.services.embedder,
            queries.filter((q) => q.kind === kind).map((q) => q.query),
          );
          const results = await measureWindowRecall(
            engine.client,
            engine.index.aliasOf(kind),
            vectors,
            recallCases(kind, EVAL_DATE),
            engine.index.vectors.window,
          );
          for (const r of results)
            console.log(
              `window recall ${kind}s, ${r.filters}: @10 ${r.mean[10].toFixed(3)} (worst ${r.worst[10].toFixed(3)}), @100 ${r.mean[100].toFixed(3)} (worst ${r.worst[100].toFixed(3)}) over ${r.queries} queries`,
            );
          windowRecall.push({ kind: `${kind}s`, results });
        }
        const comparison = engineComparisonSection({
          evalDate: EVAL_DATE,
          engine: 'a single OpenSearch 2.19.1 node with the k-NN plugin (npm run engines)',
          embedded: run.scores,
          openSearch: onOpenSearch.scores,
          window: engine.index.vectors.window,
          windowRecall,
        });
        writeReportWithSummary(REPORT, withMarkedSection(readFileSync(REPORT, 'utf8'), ENGINE_COMPARISON_MARKERS, comparison));
        console.log(`wrote the search engines section of ${REPORT}`);
      } finally {
        await engine.close();
      }
    }
  } finally {
    await stack.close();
  }
}

await main();
