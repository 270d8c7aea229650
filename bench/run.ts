// `npm run bench`: API throughput and latency against a bare node:http baseline, ingest throughput, exact k-NN, grant matching, search on OpenSearch beside the embedded index, webhook delivery, admin commands with the server running and stopped, the Lambda bundles' sizes and cold start, and the mixed load run with the server's RSS over time; see docs/benchmarks.md.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { benchAdmin } from './admin';
import { ADMIN_MARKERS, adminSection } from './admin-report';
import { renderSummary } from './api-report';
import { benchCatalogue, type CatalogueResult } from './bench-catalogue';
import { PROJECT_ROOT, stopAllChildren } from './child-processes';
import { benchColdStart } from './coldstart';
import { COLDSTART_MARKERS, coldStartSection } from './coldstart-report';
import { benchIngest } from './ingest';
import { INGEST_MARKERS, ingestSection } from './ingest-report';
import { benchKnn } from './knn';
import { KNN_MARKERS, knnSection } from './knn-report';
import { benchLoad } from './load-bench';
import { LOAD_LONG_MARKERS, LOAD_MARKERS, loadMarkers, loadSection, loadSectionKindOf } from './load-report';
import { DEFAULT_LOAD_CONNECTIONS } from './load-workload';
import { describeMachine } from './machine';
import { benchMatch } from './match';
import { MATCH_MARKERS, MATCH_QUALITY_MARKERS, matchSection } from './match-report';
import { benchOpenSearch } from './opensearch';
import { OPENSEARCH_MARKERS, openSearchSection } from './opensearch-report';
import { parseBenchOptions, SUMMARY_PART } from './options';
import { type BenchRun, markedSection, renderReport, withMarkedSection } from './report';
import { ENGINE_COMPARISON_MARKERS } from './search-eval/engine-comparison';
import { EMBEDDING_MODEL_MARKERS, SEARCH_QUALITY_MARKERS } from './search-eval/report';
import { writeReportWithSummary } from './summary-table';
import { WEBHOOK_MARKERS, webhookSection } from './webhook-report';
import { benchWebhooks } from './webhooks';

const log = (line: string) => console.log(line);

// Ctrl-C or a kill mid-run: stop the servers (the API server closes LevelDB cleanly), then leave.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping child processes`);
    void stopAllChildren().finally(() => process.exit(130));
  });
}

async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv.slice(2), process.env);
  if (options.parts.every((part) => part === SUMMARY_PART)) {
    const outFile = resolve(PROJECT_ROOT, options.outFile);
    if (!existsSync(outFile)) throw new Error(`${outFile} does not exist: nothing to summarise`);
    writeReportWithSummary(outFile, readFileSync(outFile, 'utf8'));
    log(`rebuilt the summary table of ${outFile} from its sections`);
    return;
  }
  const machine = describeMachine();
  const startedAt = performance.now();
  log(`bench: sizes ${options.sizes.join(', ')}; ${options.rounds} rounds x ${options.durationSeconds} s; ${options.connections} connections`);

  const ingest = options.parts.includes('ingest') ? await benchIngest(options.rounds, log) : null;
  const knn = options.parts.includes('knn') ? await benchKnn(Math.max(...options.sizes), 30, log) : null;
  const catalogues: CatalogueResult[] = [];
  if (options.parts.includes('api')) {
    for (const grants of options.sizes) catalogues.push(await benchCatalogue(grants, options, log));
  }
  const match = options.parts.includes('match') ? await benchMatch(Math.max(...options.sizes), options, log) : null;
  const openSearch = options.parts.includes('opensearch') ? await benchOpenSearch(Math.max(...options.sizes), options, log) : null;
  const loadGrants = Math.max(...options.sizes);
  const load = options.parts.includes('load')
    ? await benchLoad(
        {
          grants: loadGrants,
          durationSeconds: options.loadDurationSeconds,
          connections: DEFAULT_LOAD_CONNECTIONS,
          command:
            `\`npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\` (its load part; the same alone: ` +
            `\`npm run bench:load -- --duration ${options.loadDurationSeconds} --connections ${DEFAULT_LOAD_CONNECTIONS} --grants ${loadGrants}\`)`,
        },
        log,
      )
    : null;
  const webhooks = options.parts.includes('webhooks') ? await benchWebhooks(options, log) : null;
  const admin = options.parts.includes('admin') ? await benchAdmin(Math.min(...options.sizes), options.rounds, log) : null;
  const coldstart = options.parts.includes('coldstart') ? await benchColdStart(options.coldStartRuns, log) : null;

  const run: BenchRun = {
    machine,
    options,
    catalogues,
    ingest,
    knn,
    match,
    webhooks,
    admin,
    coldstart,
    load,
    totalSeconds: (performance.now() - startedAt) / 1000,
  };
  const outFile = resolve(PROJECT_ROOT, options.outFile);
  mkdirSync(dirname(outFile), { recursive: true });
  const previous = existsSync(outFile) ? readFileSync(outFile, 'utf8') : '# Benchmarks\n';
  if (options.parts.includes('api')) {
    // The quality sections are written by `npm run eval:search`, `eval:models` and `eval:match`, and the
    // match, webhooks, coldstart and load sections by `--parts match` / `--parts webhooks` /
    // `--parts coldstart` / `npm run bench:load` runs when this one left them out; the new report keeps them.
    let report = renderReport(run);
    const kept = [
      SEARCH_QUALITY_MARKERS,
      EMBEDDING_MODEL_MARKERS,
      MATCH_QUALITY_MARKERS,
      ENGINE_COMPARISON_MARKERS,
      ...(ingest ? [] : [INGEST_MARKERS]),
      ...(knn ? [] : [KNN_MARKERS]),
      ...(match ? [] : [MATCH_MARKERS]),
      ...(openSearch ? [] : [OPENSEARCH_MARKERS]),
      ...(webhooks ? [] : [WEBHOOK_MARKERS]),
      ...(admin ? [] : [ADMIN_MARKERS]),
      ...(coldstart ? [] : [COLDSTART_MARKERS]),
      // Of the load sections, the one for the other length of run (or both, without the load part).
      ...[LOAD_MARKERS, LOAD_LONG_MARKERS].filter((markers) => !load || markers !== loadMarkers(loadSectionKindOf(load.durationSeconds))),
    ];
    for (const markers of kept) {
      const section = markedSection(previous, markers);
      if (section) report = withMarkedSection(report, markers, section);
    }
    writeReportWithSummary(outFile, report);
    log(`\n${renderSummary(run)}`);
  } else {
    // Only the sections of the parts that ran change; the API figures of the last full run stay.
    let report = previous;
    if (ingest) report = withMarkedSection(report, INGEST_MARKERS, ingestSection(run));
    if (knn) report = withMarkedSection(report, KNN_MARKERS, knnSection(knn));
    if (match) report = withMarkedSection(report, MATCH_MARKERS, matchSection(match));
    if (openSearch)
      report = withMarkedSection(
        report,
        OPENSEARCH_MARKERS,
        openSearchSection(openSearch, machine, options.connections, options.rounds, options.durationSeconds),
      );
    if (webhooks) report = withMarkedSection(report, WEBHOOK_MARKERS, webhookSection(webhooks));
    if (admin) report = withMarkedSection(report, ADMIN_MARKERS, adminSection(admin));
    if (coldstart) report = withMarkedSection(report, COLDSTART_MARKERS, coldStartSection(coldstart));
    if (load) report = withMarkedSection(report, loadMarkers(loadSectionKindOf(load.durationSeconds)), loadSection(load));
    writeReportWithSummary(outFile, report);
  }
  log(`\nwrote ${outFile} (${run.totalSeconds.toFixed(0)} s)`);
  // The load part's failures (errors, RSS growth) are in the report; the run still fails.
  if (load && !load.pass) {
    console.error(
      `\nbench: the load part failed (${load.errors} errors, RSS growth ${load.rss.growth === null ? 'not checked' : `${(load.rss.growth * 100).toFixed(1)}%`}); see its section`,
    );
    process.exitCode = 1;
  }
}

try {
  await main();
} catch (error) {
  console.error(`\nbench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await stopAllChildren();
}
