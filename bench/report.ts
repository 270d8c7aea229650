import type { AdminBenchResult } from './admin';
import { adminSection } from './admin-report';
import { apiMethodSection, apiTimeSection, renderSummary } from './api-report';
import type { CatalogueResult } from './bench-catalogue';
import type { ColdStartBenchResult } from './coldstart';
import { coldStartSection } from './coldstart-report';
import { duration } from './format';
import type { IngestBenchResult } from './ingest';
import { ingestSection } from './ingest-report';
import type { KnnBenchResult } from './knn';
import { knnSection } from './knn-report';
import type { LoadBenchResult } from './load-bench';
import { loadSection } from './load-report';
import type { MachineInfo } from './machine';
import type { MatchBenchResult } from './match';
import { matchSection } from './match-report';
import { BENCH_PARTS, type BenchOptions } from './options';
import { webhookSection } from './webhook-report';
import type { WebhookBenchResult } from './webhooks';

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

export function renderReport(run: BenchRun): string {
  const { machine, options } = run;
  const load = machine.loadAverage.map((n) => n.toFixed(2)).join(' / ');
  const flags =
    `--sizes ${options.sizes.join(',')} --duration ${options.durationSeconds} --rounds ${options.rounds} --connections ${options.connections} --warmup ${options.warmupSeconds}` +
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
| opensearch | list, keyword, semantic and hybrid search at the biggest size on OpenSearch 2.19, and on a catalogue ten times bigger derived from it | the embedded index over the same grants, and bare \`node:http\` |
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
npm run bench -- --parts opensearch --opensearch-window 1000   # the same with another k-NN window (the fills are reused)
npm run bench -- --parts webhooks               # only the webhook delivery section (about 2 min)
npm run bench -- --parts admin                  # only the admin commands section (about 2 min)
npm run bench -- --parts coldstart              # only the bundles and cold start section (about 2 min)
npm run bench -- --parts load                   # only the mixed load section (60 s of load, --load-duration to change)
npm run bench:load -- --duration 600            # the same, alone, 10 minutes: the RSS growth check after the first minute
npm run eval:search && npm run eval:match       # the search and match quality sections
npm run bench -- --parts summary                # only the summary table at the top, rebuilt from the sections (measures nothing)
\`\`\`

\`--parts\` (\`BENCH_PARTS\`, default ${BENCH_PARTS.join(',')}) picks what runs; without \`api\`, only the sections of
the parts that ran are rewritten and the rest of the existing report is kept. A run with \`api\` but
without \`ingest\`, \`knn\`, \`match\`, \`opensearch\`, \`webhooks\`, \`admin\`, \`coldstart\` or \`load\` keeps the ingest, exact k-NN, grant matching, OpenSearch, webhook delivery, admin, cold start or load section of the existing report. The search quality and match
quality sections come from \`npm run eval:search\` and \`npm run eval:match\` and are kept by every bench run. Every writer of
this file (\`npm run bench\`, \`npm run bench:load\`, \`npm run eval:*\`) rebuilds the summary table at the top from the sections.

Flags (and environment variables): \`--sizes\` (\`BENCH_SIZES\`, default 5000,100000), \`--duration\`
seconds per measurement (\`BENCH_DURATION\`, 10), \`--rounds\` (\`BENCH_ROUNDS\`, 3), \`--connections\`
(\`BENCH_CONNECTIONS\`, 10), \`--warmup\` seconds per scenario (\`BENCH_WARMUP\`, 2), \`--coldstart-runs\` imports of each
bundle (\`BENCH_COLDSTART_RUNS\`, 15), \`--load-duration\` seconds of the load part's mixed run (\`BENCH_LOAD_DURATION\`, 60; \`npm run bench:load\`
takes \`--duration\`, \`--connections\`, \`--grants\` and \`--out\`, see \`npm run bench:load -- --help\`), \`--opensearch-scale\` (\`BENCH_OPENSEARCH_SCALE\`, 10: the
opensearch part also measures a catalogue that many times the biggest size, derived from it on OpenSearch alone; its first fill
builds the graphs of a million vectors, about half an hour here, in a node started with \`OPENSEARCH_HEAP=2g npm run engines -- start opensearch\`
so later runs reuse it; 1 for none), \`--opensearch-window\` (\`BENCH_OPENSEARCH_WINDOW\`, the default window: the k-NN window the
OpenSearch servers search with), \`--out\` report path (\`BENCH_OUT\`, docs/benchmarks.md). The first run seeds \`bench/.data/grants-<N>\` (gitignored), which
takes minutes for 100,000 grants; later runs reuse it. With the sentence-embedding model the first
seed also embeds every text once (20-35 a second on two cores: about an hour for 100,000 grants);
the vectors are kept in the folder, so a reseed of unchanged texts embeds nothing. The catalogue's dates are relative to the
day it was seeded, so delete the folder to reseed after a change to the synthetic catalogue or when
the data is weeks old (fewer deadlines then lie ahead of today).

${apiMethodSection(run)}

${renderSummary(run)}

${ingestSection(run)}

${knnSection(run.knn)}

${matchSection(run.match)}

${webhookSection(run.webhooks)}

${adminSection(run.admin)}

${coldStartSection(run.coldstart)}

${loadSection(run.load, 'short')}

${loadSection(run.load, 'long')}

${apiTimeSection()}
`;
}
