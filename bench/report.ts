import type { CatalogueResult } from './bench-catalogue';
import { coldStartSection } from './coldstart-report';
import type { ColdStartBenchResult } from './coldstart';
import type { IngestBenchResult } from './ingest';
import { ingestSection } from './ingest-report';
import type { KnnBenchResult } from './knn';
import { knnSection } from './knn-report';
import type { MatchBenchResult } from './match';
import { matchSection } from './match-report';
import type { LoadBenchResult } from './load-bench';
import { loadSection } from './load-report';
import type { MachineInfo } from './machine';
import { BENCH_PARTS, type BenchOptions } from './options';
import { duration, int, megabytes, ms, percent, table } from './format';
import { checkTargets, TARGET_GRANTS } from './targets';
import type { WebhookBenchResult } from './webhooks';
import { webhookSection } from './webhook-report';
import type { AdminBenchResult } from './admin';
import { adminSection } from './admin-report';

export interface BenchRun {
  machine: MachineInfo;
  options: BenchOptions;
  catalogues: CatalogueResult[];
  /** Null when the ingest part did not run or ../shared/data was absent. */
  ingest: IngestBenchResult | null;
  /** Null when the knn part did not run. */
  knn: KnnBenchResult | null;
  /** Null when the match part did not run. */
  match: MatchBenchResult | null;
  /** Null when the webhooks part did not run. */
  webhooks: WebhookBenchResult | null;
  /** Null when the admin part did not run. */
  admin: AdminBenchResult | null;
  /** Null when the coldstart part did not run. */
  coldstart: ColdStartBenchResult | null;
  /** Null when the load part did not run. */
  load: LoadBenchResult | null;
  totalSeconds: number;
}


/** The report file with the section between two markers replaced (or appended), the rest untouched. */
export function withMarkedSection(report: string, markers: { start: string; end: string }, section: string): string {
  const start = report.indexOf(markers.start);
  const end = report.indexOf(markers.end);
  if (start === -1 || end === -1) return `${report.trimEnd()}\n\n${section}\n`;
  return report.slice(0, start) + section + report.slice(end + markers.end.length);
}

/** The section between two markers, markers included, or null. */
export function markedSection(report: string, markers: { start: string; end: string }): string | null {
  const start = report.indexOf(markers.start);
  const end = report.indexOf(markers.end);
  return start === -1 || end === -1 ? null : report.slice(start, end + markers.end.length);
}

function firstStartNote(result: CatalogueResult): string {
  const { seed, indexRebuildSeconds } = result.firstStart;
  const notes: string[] = [];
  if (!seed) notes.push('The data dir was seeded outside the bench; seeding time unknown.');
  else {
    const when = seed.inThisRun ? 'Seeded in this run' : `Seeded by an earlier run (${seed.seededAt.slice(0, 10)}) and reused here`;
    notes.push(`${when}: the first start took ${duration(seed.seconds)} to ready, seeding process peak RSS ${megabytes(seed.peakRssBytes)} MB.`);
  }
  if (indexRebuildSeconds !== null) {
    notes.push(`The search index was rebuilt from the record store at this run's first start (schema change; ${duration(indexRebuildSeconds)} to ready), then the server restarted.`);
  }
  return notes.join(' ');
}

function catalogueSection(result: CatalogueResult): string {
  const rows = result.summaries.map((s) => [
    s.scenario.name === 'baseline' ? 'baseline (bare node:http)' : s.scenario.name,
    int(s.requestsPerSecond),
    ms(s.p50Ms),
    ms(s.p99Ms),
    s.ratioToBaseline === null ? '100%' : percent(s.ratioToBaseline),
    megabytes(s.rssBytes),
    s.requestsPerSecondByRound.map(int).join(' / '),
  ]);
  const scenarioLines = result.summaries.map(({ scenario }) => {
    const facts = result.facts[scenario.name];
    if (scenario.family === 'baseline') return `- **${scenario.name}**: ${scenario.label}; any path; ${int(facts.responseBytes)} bytes per response.`;
    const request = scenario.distinct ? `as above plus ${scenario.distinct.description}` : `\`GET ${scenario.path}\``;
    return `- **${scenario.name}**: ${scenario.label}; ${request}; ${int(facts.matches)} matching grants; ${int(facts.responseBytes)} bytes per response.`;
  });
  return [
    `## ${int(result.grants)} grants`,
    '',
    `${int(result.grants)} grants in the catalogue, ${int(result.openGrants)} of them open (the default listing). ${firstStartNote(result)}`,
    '',
    table(['scenario', 'req/s', 'p50 ms', 'p99 ms', 'vs bare node:http', 'RSS MB', 'req/s per round'], rows),
    '',
    ...scenarioLines,
    '',
    `API server memory: ${megabytes(result.apiMemory.idle.rssBytes)} MB idle after start, ` +
      `${megabytes(result.apiMemory.afterRuns.rssBytes)} MB after the runs, peak ${megabytes(result.apiMemory.afterRuns.peakRssBytes)} MB (VmHWM). ` +
      `Baseline server: ${megabytes(result.baselineMemory.rssBytes)} MB. Section took ${duration(result.seconds)}.`,
    '',
    worstCasesSection(result),
  ].join('\n');
}

/** Bad input at its costliest (bench/worst-cases.ts): one request at a time, after the rounds. */
function worstCasesSection(result: CatalogueResult): string {
  if (result.worstCases.length === 0) return '';
  const rows = result.worstCases.map((w) => [w.name, int(w.total), ms(w.firstMs), ms(w.p50Ms), ms(w.maxMs)]);
  const worst = result.worstCases.reduce((a, b) => (b.maxMs > a.maxMs ? b : a));
  return [
    `Bad input at its costliest, one request at a time (each distinct; the first apart, since it also pays for the text's ranking or a field order that later requests reuse; ${result.worstCases[0]!.requests} requests a case, the cursor walk one per page):`,
    '',
    table(['request', 'total', 'first ms', 'then p50 ms', 'then max ms'], rows),
    '',
    `Worst after the first: ${worst.name}, ${ms(worst.maxMs)} ms.`,
  ].join('\n');
}

function targetsSection(run: BenchRun): string {
  const measured = run.catalogues.find((c) => c.grants === TARGET_GRANTS);
  const heading = `## Targets (${int(TARGET_GRANTS)} grants, ${run.options.connections} connections)`;
  if (!measured) return `${heading}\n\nNot evaluated: this run did not include ${int(TARGET_GRANTS)} grants.`;
  const checks = checkTargets(measured);
  return [
    heading,
    '',
    table(['target', 'measured', 'result'], checks.map((c) => [c.target, c.measured, c.pass ? 'pass' : '**short**'])),
  ].join('\n');
}

/** The tables alone, for stdout. */
export function renderSummary(run: BenchRun): string {
  return [targetsSection(run), ...run.catalogues.map(catalogueSection)].join('\n\n');
}

export function renderReport(run: BenchRun): string {
  const { machine, options } = run;
  const load = machine.loadAverage.map((n) => n.toFixed(2)).join(' / ');
  const flags = `--sizes ${options.sizes.join(',')} --duration ${options.durationSeconds} --rounds ${options.rounds} --connections ${options.connections} --warmup ${options.warmupSeconds}` +
    ` --parts ${options.parts.join(',')} --coldstart-runs ${options.coldStartRuns} --load-duration ${options.loadDurationSeconds}`;
  return `# Benchmarks

Written by \`npm run bench\` (\`bench/run.ts\`); rerun it rather than editing by hand.

Machine: \`nproc\` ${machine.cpus} (${machine.cpuModel}), ${(machine.memoryBytes / 2 ** 30).toFixed(1)} GiB RAM, Node ${machine.node}, shared
(load average ${load} at start). Run ${machine.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC with \`npm run bench -- ${flags}\`;
the whole run took ${duration(run.totalSeconds)}. Code measured: ${machine.code}. A section written by a later
partial run (\`--parts\`, \`npm run bench:load\`, \`npm run eval:*\`) states its own machine and date.

Every part is reported side by side with a baseline measured in the same run, on the same machine:

| part | measured | same-run baseline |
| --- | --- | --- |
| api | list, keyword, semantic and hybrid search at each size | bare \`node:http\` serving the API's own first page |
| ingest | import of ../shared/data | reading and mapping the same files without a store |
| knn | exact k-NN over 100,000 vectors | a bare dot-product loop over the same vectors |
| match | \`POST /match-grants-api\` | bare \`node:http\` serving a real match response |
| opensearch | list, keyword, semantic and hybrid search at the biggest size on OpenSearch 2.19 | the embedded index over the same grants, and bare \`node:http\` |
| webhooks | webhook delivery | a bare \`node:http\` POST loop to the same receiver |
| admin | admin commands with \`npm start\` running (the admin channel) and with it stopped | \`admin --help\`, the CLI's own start |
| coldstart | every Lambda bundle's size and init time | an empty handler bundled the same way |
| load | every kind of request at once, and the server's RSS over time | bare \`node:http\` under the same connections and requests |

## How to rerun

\`\`\`sh
npm run bench                                   # every part, both sizes, 3 rounds of 10 s; writes this file (about 30 min)
npm run bench -- --sizes 5000 --duration 3      # quick check
npm run bench -- --rounds 5 --warmup 5 --out /tmp/bench.md
npm run bench -- --parts ingest                 # only the ingest section of this file
npm run bench -- --parts knn                    # only the exact k-NN section
npm run bench -- --parts match                  # only the grant matching section
npm run bench -- --parts opensearch             # only the OpenSearch section (starts the node through mvn; the first run fills it)
npm run bench -- --parts webhooks               # only the webhook delivery section (about 2 min)
npm run bench -- --parts admin                  # only the admin commands section (about 2 min)
npm run bench -- --parts coldstart              # only the bundles and cold start section (about 2 min)
npm run bench -- --parts load                   # only the mixed load section (60 s of load, --load-duration to change)
npm run bench:load -- --duration 600            # the same, alone, 10 minutes: the RSS growth check after the first minute
npm run eval:search && npm run eval:match       # the search and match quality sections
\`\`\`

\`--parts\` (\`BENCH_PARTS\`, default ${BENCH_PARTS.join(',')}) picks what runs; without \`api\`, only the sections of
the parts that ran are rewritten and the rest of the existing report is kept. A run with \`api\` but
without \`ingest\`, \`knn\`, \`match\`, \`opensearch\`, \`webhooks\`, \`admin\`, \`coldstart\` or \`load\` keeps the ingest, exact k-NN, grant matching, OpenSearch, webhook delivery, admin, cold start or load section of the existing report. The search quality and match
quality sections come from \`npm run eval:search\` and \`npm run eval:match\` and are kept by every bench run.

Flags (and environment variables): \`--sizes\` (\`BENCH_SIZES\`, default 5000,100000), \`--duration\`
seconds per measurement (\`BENCH_DURATION\`, 10), \`--rounds\` (\`BENCH_ROUNDS\`, 3), \`--connections\`
(\`BENCH_CONNECTIONS\`, 10), \`--warmup\` seconds per scenario (\`BENCH_WARMUP\`, 2), \`--coldstart-runs\` imports of each
bundle (\`BENCH_COLDSTART_RUNS\`, 15), \`--load-duration\` seconds of the load part's mixed run (\`BENCH_LOAD_DURATION\`, 60; \`npm run bench:load\`
takes \`--duration\`, \`--connections\`, \`--grants\` and \`--out\`, see \`npm run bench:load -- --help\`), \`--out\` report path (\`BENCH_OUT\`, docs/benchmarks.md). The first run seeds \`bench/.data/grants-<N>\` (gitignored), which
takes minutes for 100,000 grants; later runs reuse it. With the sentence-embedding model the first
seed also embeds every text once (20-35 a second on two cores: about an hour for 100,000 grants);
the vectors are kept in the folder, so a reseed of unchanged texts embeds nothing. The catalogue's dates are relative to the
day it was seeded, so delete the folder to reseed after a change to the synthetic catalogue or when
the data is weeks old (fewer deadlines then lie ahead of today).

## API throughput and latency

What is measured: the local API (\`bin/local.ts\`: the Lambda handlers behind a \`node:http\` front,
reading the embedded SQLite FTS5 index) on deterministic synthetic catalogues, against a bare
\`node:http\` server on the same machine in the same run. The bare server answers every request
with the bytes of the API's own \`GET /grants-api?limit=20\`, so "vs bare node:http" is the share
of plain Node HTTP throughput the API keeps for the same response size. Every request carries the
local developer key (\`Authorization: Bearer\`, sent to the bare server too): the authorizer and the
usage counting are part of what is measured (the developer tier is unlimited, so its counts are
batched; a limited key adds one quota write per request).

How:

- Each catalogue size gets its own server, \`node --import tsx bin/local.ts --data-dir bench/.data/grants-<N> --grants <N>\`,
  started as a child of the bench so its pid is the serving process. A data dir is seeded on first
  start and reused afterwards; a start that had to seed (or rebuild the search index) is timed,
  then the server is restarted, so the measured process carries no heap from that work.
- Load comes from autocannon's programmatic API in the bench process: ${options.connections} connections, closed loop,
  ${options.durationSeconds} s per measurement, after ${options.warmupSeconds} s of unrecorded warm-up per scenario. Measurements are
  interleaved (each round runs every scenario once, in table order) for ${options.rounds} rounds. Every run must be
  all 200s with no errors or timeouts, or the bench fails.
- The filtered list and the keyword, semantic and hybrid searches each run twice: the same URL on
  every request, as a client polling one query (or paging through it) would send, and a "distinct"
  variant where every request carries a parameter that makes its query unique without changing
  the query plan (the bench checks that every request gets the same total and page; see the
  scenario notes for what it filters). A result cache in the index answers the repeated URL from
  memory after its first request (the code measured here has one); the distinct variant measures
  the query itself. The search text stays the same, so its vector comes from the stack's memo of
  recent query vectors (as in AWS), and the model's own time per new query (about 2.5 ms, "The
  local embedding model" below) is not in the distinct figures; nor is reading a word's postings
  from FTS5 the first time it is searched ("Where the time goes" below has that cost), since the
  words repeat too. The three searches also run a "new-text" variant: every request a text never
  sent before (a topic users type and two more words), so the model embeds each query and the
  index ranks each text afresh; its words repeat, as a language's do, so their postings are read
  once. Keyword search keeps the lexical matches whose cosine reaches the floor (one
  cosine per candidate) and adds partial matches that do; semantic search is exact k-NN over every
  grant's vector (bge-small-en-v1.5, 384 dimensions, the product in ONNX Runtime) with the filters
  applied inside the scan, and ranks every match above the floor; hybrid fuses the two. The latency
  targets are set for the filtered list and keyword search; semantic and hybrid are reported
  against the same baseline.
- req/s is autocannon's mean of per-second samples, median across rounds. p50/p99 are per-response
  latencies seen by the client, median across rounds. "vs bare node:http" is the median across rounds
  of scenario req/s divided by baseline req/s of the same round. RSS is the VmRSS of the process that
  served the scenario (the bare server for the baseline row) right after a run, highest over rounds;
  the API server's peak is its VmHWM over its life.
- The load generator shares the ${machine.cpus} CPUs with the server, so absolute req/s understate what the
  server would do alone; the ratio to the baseline, which pays the same tax, is the figure that
  carries across machines.

${renderSummary(run)}

${ingestSection(run)}

${knnSection(run.knn)}

${matchSection(run.match)}

${webhookSection(run.webhooks)}

${adminSection(run.admin)}

${coldStartSection(run.coldstart)}

${loadSection(run.load, 'short')}

${loadSection(run.load, 'long')}

## Where the time goes without the cache

Profiled at 100,000 grants on 2026-11-26 (each step timed in process over 200 requests, and the V8
profiler on the server under the bench's load). Issue 24 took a distinct filter on a known text
from 5.7 to 0.7 ms in keyword mode, 11.2 to 1.1 ms in semantic mode and 17.7 to 2.9 ms in hybrid
mode, and the filtered list from 0.84 to 0.5 ms, in process; the rest of a request (parsing, the
key check, the cursor's HMAC, reading and serialising 20 records, the log line, HTTP) is about
0.4 ms.

- **A search text is ranked once.** Keyword and semantic rankings are made over the whole
  catalogue and narrowed to a query's filters by their bitmap (\`cached-rankings.ts\`,
  \`rankingWithin\`): a record's place depends on its own score and id alone, so the filtered
  ranking is the whole one with the others left out, and a user narrowing a search filter by
  filter has the text scored once (about 20 µs a step for the narrowing). Hybrid narrows both
  lists and fuses them (fusion scales BM25 by the best match among those kept). A text never
  searched before, with filters that keep at most a tenth of the catalogue, is scored among those
  rows alone instead: a SIMD product per kept row rather than the product over every vector.
  Property tests hold both routes to the same answer (\`filtered-scoring.test.ts\`,
  \`search-rankers.test.ts\`).
- **Filters** are bitmaps over rowids, kept as rows are written, for the values with few choices
  (type, status, every state, national; liveness is computed once a day), and a range-encoded
  bitmap index for deadlines and amounts (\`range-index.ts\`: the rows with a value in sorted
  order, cut into 64 runs, with the bitmap of the rows before each cut; a range is two bitmaps'
  difference plus at most two partial runs). A range took a 170 µs pass over every row; it now
  takes tens of microseconds. The index is rebuilt on first use after a write (about 15 ms), at
  most once a second while writes keep coming, and the pass answers in between. Everything is
  property-tested against the SQL it stands in for (\`filter-columns.ts\`, \`row-bitmap.ts\`,
  \`range-index.ts\`). \`pagination.total\` is a population count of the bitmap.
- **Pages in a field order** (deadline, amount, title, posted date) walk every row of the kind in
  that order, read once from SQLite after a write (\`field-orders.ts\`), testing each row's bit in
  the filter's bitmap, or in the ranking's for a search sorted by a field. A page at offset 10,000
  by deadline took 130 ms in SQLite (an index walk testing the filters row by row); it takes
  1.4 ms. A cursor finds its place through its record's position in the order; SQL answers when
  that record has changed, and while an order waits to be read again.
- **Keyword search**: FTS5's BM25 is a sum over the query's words, so each word's scored postings
  are read from FTS5 once and kept in memory (LRU, 32 MB, cleared by every write), and a query
  merges them (about 1.4 ms for "community health", whose words 13,535 grants share). The records
  where the words stand near each other (FTS5's NEAR, for the phrase boost) are kept the same way.
  A word's first search pays for its postings: 166 ms for "community" (in 53,778 grants), 67 ms for
  "health" (23,337). The floor's cosine for each match (SimSIMD on views of the matrix, about 3 ms
  for 10,000 matches) is paid once per text, in its whole-catalogue ranking.
- **Semantic search** is exact: the product of the query with every grant's vector in ONNX
  Runtime (about 6 ms on both cores; \`run\` blocks the event loop's thread meanwhile), then the
  ranking of every match above the floor. ONNX Runtime's worker threads no longer spin after a run
  (\`session.intra_op.allow_spinning\` 0): on two cores the sentence model's spinning threads
  took the CPU the product's threads needed, and a semantic search for a new text went from 21.8
  to 13.2 ms in process.
- **A text never searched before** costs its embedding (about 2.7 ms, "The local embedding model"
  above) and its whole ranking: about 13 ms in semantic mode, 20-25 ms in keyword and hybrid mode
  in process, most of it the product over every vector and the keyword gate's cosines. Those are
  the -new-text rows of the tables above, and why they fall short of issue 24's latency targets:
  each request holds about 10-20 ms of CPU on a machine whose two cores it shares with the load
  generator. An approximate index (HNSW) would not change that without losing the floor's exact
  meaning (every record above it is returned, and counted): a broad query has a fifth of the
  catalogue above the floor, so every one of them must be scored exactly anyway. An int8 product
  (ONNX Runtime's MatMulInteger) measured 1.4 times faster than the float product, less than the
  exact re-scoring of those candidates would cost back.
- **Rankings** break ties by id with one native sort: each match's score and its record's place
  in id order (kept per kind until a write) are one float64 key.
- **Memory**: the vector matrix is allocated once for the stored vectors and grows by a quarter
  (doubling had left room for 131,072 rows, 48 MB unused); the index file is read through a 16 MB
  SQLite page cache, not memory-mapped (a map counted every page the start-up load touched, about
  450 MB, in the server's RSS; 64 MB of cache cost 57 MB of RSS for no measurable speed).
- A repeated query (paging through results, a dashboard polling one filter) is answered from the
  index's cache of counts and rankings, which every write clears.
`;
}
