import { MATCH_SCORING } from '../lambdas/core/matching/scoring-config';
import type { CatalogueResult } from './bench-catalogue';
import type { IngestBenchResult } from './ingest';
import { ingestSection } from './ingest-report';
import type { KnnBenchResult } from './knn';
import { DISTINCT_MISSION_SUFFIX, MATCH_PROFILES, type MatchBenchResult } from './match';
import { median } from './summary';
import { summariseWebhookScenario, type WebhookBenchResult } from './webhooks';
import { BUNDLE_BUDGET_BYTES } from './bundles';
import { summariseColdStart, type ColdStartBenchResult } from './coldstart';
import type { LoadBenchResult } from './load-bench';
import { loadSection } from './load-report';
import type { MachineInfo } from './machine';
import { BENCH_PARTS, type BenchOptions } from './options';
import { duration, int, machineLines, megabytes, ms, percent, table } from './format';
import { checkTargets, TARGET_GRANTS } from './targets';

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
  /** Null when the coldstart part did not run. */
  coldstart: ColdStartBenchResult | null;
  /** Null when the load part did not run. */
  load: LoadBenchResult | null;
  totalSeconds: number;
}

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

export const MATCH_MARKERS = { start: '<!-- match section: npm run bench -- --parts match -->', end: '<!-- end of match section -->' } as const;
/** Written by `npm run eval:match`; every bench run keeps it. */
export const MATCH_QUALITY_MARKERS = { start: '<!-- match quality section: npm run eval:match -->', end: '<!-- end of match quality section -->' } as const;

export function matchSection(match: MatchBenchResult | null): string {
  const heading = '## Grant matching latency';
  if (!match) return `${MATCH_MARKERS.start}\n${heading}\n\nNot measured in this run.\n${MATCH_MARKERS.end}`;
  const { machine } = match;
  const rows = match.summaries.map((s) => [
    s.scenario.name === 'baseline' ? 'baseline (bare node:http)' : s.scenario.name,
    s.requestsPerSecond < 100 ? s.requestsPerSecond.toFixed(1) : int(s.requestsPerSecond),
    ms(s.p50Ms),
    ms(s.p99Ms),
    s.ratioToBaseline === null ? '100%' : percent(s.ratioToBaseline),
    megabytes(s.rssBytes),
    s.requestsPerSecondByRound.map((r) => (r < 100 ? r.toFixed(1) : int(r))).join(' / '),
    s.p99MsByRound.map((p) => (p < 100 ? ms(p) : int(p))).join(' / '),
  ]);
  const profileRows = match.profiles.map((p, i) => [
    String(i + 1), p.sector ?? '', p.applicantType ?? '', p.geography ?? '', int(p.candidates), int(p.count), int(p.responseBytes),
  ]);
  const sameMatches = match.profiles.filter((p) => p.distinctSameMatches).length;
  const serverMs = (name: string) => {
    const summary = match.summaries.find((s) => s.scenario.name === name);
    return summary ? ms(1000 / summary.requestsPerSecond) : '?';
  };
  const rebuild = match.firstStart.indexRebuildSeconds;
  const profiles = MATCH_PROFILES.length;
  const suffixNote = sameMatches === match.profiles.length
    ? [
      `  The suffix is a bare number, which changes neither the embedding nor the answer (all ${sameMatches} profiles return`,
      '  the same matches with it as without), so the work is the repeated profile\'s with the cache taken away.',
    ]
    : [
      `  The suffix is meant to change only the cache key, but ${match.profiles.length - sameMatches} of ${match.profiles.length} profiles return different`,
      '  matches with it than without.',
    ];
  return [
    MATCH_MARKERS.start,
    heading,
    '',
    `\`POST /functions/v1/match-grants-api\` on the ${int(match.grants)}-grant synthetic catalogue (${int(match.openGrants)} open grants), against a`,
    'bare `node:http` server in the same run that answers every request with the bytes of one real match response',
    `(profile 1's, ${int(match.baselineBytes)} bytes). A match embeds the profile's text (wink word vectors), runs the exact k-NN over`,
    'every open grant with the eligibility filters (open, the applicant\'s type and state, 501(c)(3) status) applied inside',
    `the scan, reads the ${MATCH_SCORING.candidateWindow} nearest, scores and explains them, and returns the best ${MATCH_PROFILES[0]!.limit ?? 10}.`,
    '',
    `- **match**: ${profiles} profiles written for the catalogue's topics (table below), sent in rotation, the same ${profiles}`,
    '  bodies over and over. The index caches one ranking per distinct query text, so after a profile\'s first request',
    `  the k-NN comes from memory; reading, scoring and explaining the ${MATCH_SCORING.candidateWindow} candidates is not cached.`,
    `- **match-distinct**: the same profiles with "${DISTINCT_MISSION_SUFFIX('<n>')}" appended to every request's mission, n counting up,`,
    '  so no cached ranking can answer it and every request pays the full scan, its filter mask (one pass over the',
    '  in-memory filter columns) and the ranking.',
    ...suffixNote,
    '- **baseline**: the same POSTs and headers (the developer key) to the bare server, which ignores them.',
    '',
    `How: ${match.connections} connections, closed loop, fewer than the api part's. One Node process serves the API, so in a closed`,
    'loop every further connection only waits in its queue, and the p99 would mostly measure that queue. Even at',
    `${match.connections}, a request may wait behind ${match.connections - 1} others (the mean latency is ${match.connections} / req/s, Little's law); the server's own`,
    `time per request is about 1 / req/s: ${serverMs('match')} ms for match, ${serverMs('match-distinct')} ms for match-distinct. ${match.rounds} rounds of ${match.durationSeconds} s,`,
    `interleaved (baseline, match, match-distinct), after ${match.warmupSeconds} s of unrecorded warm-up per scenario. req/s, p50 and p99`,
    'are medians across rounds; "vs bare node:http" is the median over rounds of req/s divided by the baseline\'s req/s',
    'in the same round. RSS is the VmRSS of the serving process right after a run, highest over rounds. The load',
    'generator shares the CPUs with the servers.',
    '',
    table(['scenario', 'req/s', 'p50 ms', 'p99 ms', 'vs bare node:http', 'RSS MB', 'req/s per round', 'p99 ms per round'], rows),
    '',
    table(['profile', 'sector', 'applicant type', 'geography', 'candidates', 'matches', 'response bytes'], profileRows),
    '',
    `API server memory: ${megabytes(match.apiMemory.idle.rssBytes)} MB idle after start, ${megabytes(match.apiMemory.afterRuns.rssBytes)} MB after the runs, ` +
      `peak ${megabytes(match.apiMemory.afterRuns.peakRssBytes)} MB (VmHWM). Baseline server: ${megabytes(match.baselineMemory.rssBytes)} MB.` +
      (rebuild === null ? '' : ` The search index was rebuilt at this part's first start (${duration(rebuild)} to ready), then the server restarted.`),
    '',
    ...machineLines(machine),
    `The part took ${duration(match.seconds)}. Code measured: ${machine.code}.`,
    MATCH_MARKERS.end,
  ].join('\n');
}

export const WEBHOOK_MARKERS = { start: '<!-- webhooks section: npm run bench -- --parts webhooks -->', end: '<!-- end of webhooks section -->' } as const;

export function webhookSection(result: WebhookBenchResult | null): string {
  const heading = '## Webhook delivery (local)';
  if (!result) return `${WEBHOOK_MARKERS.start}\n${heading}\n\nNot measured in this run.\n${WEBHOOK_MARKERS.end}`;
  const { machine } = result;
  const rate = (n: number) => (n < 100 ? n.toFixed(1) : int(n));
  const wholeMs = (n: number) => (n < 100 ? ms(n) : int(n));
  const subscriptions = (n: number) => `${n} subscription${n === 1 ? '' : 's'}`;
  const summaries = result.scenarios.map((scenario) => ({ scenario, summary: summariseWebhookScenario(scenario) }));
  const rows = summaries.map(({ scenario, summary: s }) => [
    subscriptions(scenario.subscriptions),
    rate(s.deliveriesPerSecond),
    int(s.bareRequestsPerSecond),
    percent(s.ratioToBare),
    int(s.bareSequentialRequestsPerSecond),
    String(s.peakInFlight),
    ms(s.p50Ms),
    ms(s.p99Ms),
    s.deliveriesPerSecondByRound.map(rate).join(' / '),
    s.p99MsByRound.map(wholeMs).join(' / '),
  ]);
  const alone = summariseWebhookScenario(result.writesAlone);
  const one = summaries.find(({ scenario }) => scenario.subscriptions === 1)?.summary;
  const most = summaries.at(-1)!;
  const writeCalls = [
    ...summaries.map(({ scenario, summary }) => `${ms(summary.writeCallP50Ms)} ms with ${subscriptions(scenario.subscriptions)}`),
    `${ms(alone.writeCallP50Ms)} ms with none`,
  ].join(', ');
  const rounds = result.writesAlone.rounds.length;
  const sizes = result.scenarios.map((s) => `${int(s.bulkRecords)} records with ${subscriptions(s.subscriptions)}`).join(', ');
  const singles = result.scenarios.map((s) => `${int(s.singleRecords)} with ${subscriptions(s.subscriptions)}`).join(', ');
  const stallMax = median(result.idleStalls.map((s) => s.maxMs));
  const stallP99 = median(result.idleStalls.map((s) => s.p99Ms));
  return [
    WEBHOOK_MARKERS.start,
    heading,
    '',
    'New grants written through the embedded stack\'s store (`startEmbeddedStack({ webhooks })`, as `npm start` runs it:',
    'file-backed dynalite and SQLite in a temporary folder, the production retry schedule and 10 s timeout) become',
    '`grant.created` change events; the local dispatcher fans each out to the active subscriptions (one delivery log entry',
    'per subscription) and its in-process queue POSTs them, signed, with the production `node:http` transport to a',
    'receiver on 127.0.0.1 that answers 204 at once and notes when each request has fully arrived. Each subscription has',
    'its own receiver path. The stack, dynalite, the queue, the receiver and the bare loops all share the bench process.',
    '',
    `- **deliveries/s**: per round, new records written in the ingest's batches of ${result.batchSize}`,
    `  (${sizes}), every delivery counted, from the start of the first write to the last arrival. Every delivery must arrive once, at`,
    '  its first attempt, carrying its record, or the bench fails. "peak in flight" is the most delivery attempts the',
    '  queue had under way at once (highest over rounds).',
    '- **bare POSTs/s**: right after, in the same round, the same POSTs (paths, bodies and signed headers as they arrived)',
    '  from a bare `node:http` loop to the same receiver, one new connection per request as the transport opens. "All at',
    '  once" is the queue\'s own concurrency: it has no limit (each queued message starts when its 0 s timer fires). "vs',
    '  bare" is the median over rounds of deliveries/s divided by that loop\'s POSTs/s in the same round. "One at a time"',
    '  sends each POST when the previous one was answered, the concurrency the queue in fact reaches.',
    `- **write→delivery**: per round, records written one at a time (${singles}),`,
    '  each on an idle stack (its deliveries awaited before the next write), from the start of the record\'s write call to the arrival of each of its',
    '  deliveries. From the start, not the return: locally the write call itself appends the change event and waits for',
    '  the fan-out, and the queue starts a POST as soon as its log entry is written, so with several subscriptions most',
    '  deliveries arrive before the write call returns.',
    `  Median write call: ${writeCalls}.`,
    '',
    `${rounds} round${rounds === 1 ? '' : 's'}, interleaved (no subscription, then each scenario in table order)${result.warmedUp ? ', after an unrecorded warm-up of each stack' : ''};`,
    'figures are medians across rounds (p50 and p99 are each round\'s, then the median).',
    '',
    table(['scenario', 'deliveries/s', 'bare POSTs/s, all at once', 'vs bare', 'bare POSTs/s, one at a time', 'peak in flight', 'p50 ms write→delivery', 'p99 ms write→delivery', 'deliveries/s per round', 'p99 ms per round'], rows),
    '',
    `- The same batches written with no subscription: ${rate(alone.deliveriesPerSecond)} records/s` +
      (one ? `, against ${rate(one.deliveriesPerSecond)} with one subscription.` : '.'),
    `  A delivery attempt (the transport's own timing) took ${ms(most.summary.attemptP50Ms)} ms at the median with ${subscriptions(most.scenario.subscriptions)},`,
    `  against ${ms(1000 / most.summary.bareSequentialRequestsPerSecond)} ms per POST for the bare loop one at a time: the POST waits for the same busy event loop.`,
    '- What bounds it: the DynamoDB calls, not the POSTs. A record\'s way to its first delivery is six dynalite calls in a',
    '  row in this process (the write\'s version read and put, the outbox append, the delivery log entry\'s create, then its',
    '  read and the subscription\'s read before the POST), each about 3 ms (timed one by one, 2026-11-22: p50 2.8 to 3.3 ms,',
    '  p99 about 10 ms), which adds up to the p50 with one subscription; no timer or batch window waits on the way (the',
    '  queue\'s 0 s timer costs a millisecond). In bulk each delivery makes four calls (the log entry\'s create, read and',
    '  save, and the subscription\'s read). Events are fanned out one after another, an event\'s deliveries together, so',
    '  with one subscription the queue seldom has more than one POST under way. A `--cpu-prof` of the bulk runs',
    '  (2026-11-22, before an event\'s deliveries were logged together): 28% of the CPU in the AWS SDK client, 18% in',
    '  dynalite and LevelDB, 14% in HTTP and sockets (the SDK\'s requests to dynalite and the POSTs), 5% idle.',
    `- For scale, the machine's own stalls in this run: before each round, a 10 ms timer in the otherwise idle bench`,
    `  process fired up to ${int(stallMax)} ms late (p99 ${int(stallP99)} ms; medians over rounds). At busy times on this shared machine`,
    '  the same probe sees stalls of 100 to 250 ms (CPU steal of 25 to 50%, 2026-11-22), which any write or delivery can',
    '  meet: the p99s swing with them, so the p50 is the figure to compare across changes.',
    '',
    ...machineLines(machine),
    `The part took ${duration(result.seconds)}. Code measured: ${machine.code}.`,
    WEBHOOK_MARKERS.end,
  ].join('\n');
}

export const COLDSTART_MARKERS = { start: '<!-- coldstart section: npm run bench -- --parts coldstart -->', end: '<!-- end of coldstart section -->' } as const;

const kb = (bytes: number) => (bytes / 1000).toFixed(1);

export function coldStartSection(result: ColdStartBenchResult | null): string {
  const heading = '## Bundles and cold start';
  if (!result) return `${COLDSTART_MARKERS.start}\n${heading}\n\nNot measured in this run.\n${COLDSTART_MARKERS.end}`;
  const empty = summariseColdStart(result, result.empty);
  const ratio = (n: number) => `${n.toFixed(1)}x`;
  const rows = result.bundles.map(({ lambda, bundle, ...timings }) => {
    const s = summariseColdStart(result, { bundle, ...timings });
    const budget = lambda.api ? `${Math.round((bundle.bytes / BUNDLE_BUDGET_BYTES) * 100)}%` : '-';
    const largest = bundle.contributions.slice(0, 3).map(([owner, bytes]) => `${owner} ${kb(bytes)}`).join(', ');
    return [`\`${lambda.name}\``, lambda.role, kb(bundle.bytes), budget, kb(bundle.mapBytes), ms(s.importMs), ratio(s.ratioToEmpty), int(s.processMs), ratio(s.processRatioToEmpty), largest];
  });
  for (const reference of result.references) {
    const s = summariseColdStart(result, reference);
    rows.push([`*${reference.description}*`, 'reference', kb(reference.bundle.bytes), '-', kb(reference.bundle.mapBytes), ms(s.importMs), ratio(s.ratioToEmpty), int(s.processMs), ratio(s.processRatioToEmpty), '']);
  }
  const dynamo = result.references.find((r) => r.name === 'dynamodb-client-only');
  const dynamoMs = dynamo ? summariseColdStart(result, dynamo).importMs : null;
  const openapi = result.bundles.find((b) => b.lambda.name === 'openapi');
  const openapiMs = openapi ? summariseColdStart(result, openapi).importMs : null;
  const apiBundles = result.bundles.filter((b) => b.lambda.api);
  const largestApi = apiBundles.reduce((a, b) => (b.bundle.bytes > a.bundle.bytes ? b : a));
  const { machine } = result;
  return [
    COLDSTART_MARKERS.start,
    heading,
    '',
    `Every Lambda entry (\`lambdas/handlers/*.ts\`) bundled as a deployment bundles it: esbuild with ServiceFunction's own`,
    'options (`FUNCTION_BUNDLING` in lib/constructs/service-function.ts: minified ESM for Node 22, the AWS SDK external as',
    'the runtime ships it), by `bench/bundles.ts`, which a test checks against the asset CDK synthesizes. Each API',
    `function (the routes and the authorizer) must stay at or under ${kb(BUNDLE_BUDGET_BYTES)} KB: \`test/infra/bundle-budget.test.ts\` fails when one`,
    `goes over. The largest is \`${largestApi.lambda.name}\`, ${kb(largestApi.bundle.bytes)} KB.`,
    '',
    `- **index.mjs KB**: the code Lambda loads (decimal KB); **budget**: its share of ${kb(BUNDLE_BUDGET_BYTES)} KB (API functions only);`,
    '  **.map KB**: the source map shipped beside it (read only to print a stack trace).',
    `- **init ms**: median over ${result.runs} runs of \`await import('index.mjs')\` in a fresh \`node\` process: reading, compiling and running`,
    '  the bundle\'s module scope, including the AWS SDK modules it imports at load (from node_modules here; Lambda has them',
    '  in the runtime). The environment is Lambda\'s as far as the code looks (`AWS_EXECUTION_ENV`, so Tracer loads the X-Ray',
    '  SDK; `NODE_OPTIONS=--enable-source-maps`, as deployed). Clients and adapters are built on first use, so a first',
    '  request adds its own connections on top.',
    `- **x empty**: that median over the median of an empty handler (\`bench/empty-handler.ts\`) bundled and imported the same way,`,
    `  interleaved in the same runs: ${ms(empty.importMs)} ms. **process ms** is the whole child from spawn to exit (Node's own start, about`,
    `  ${int(empty.processMs)} ms for the empty handler here), and its **x empty** the median of run-by-run ratios.`,
    '',
    table(['function', 'serves', 'index.mjs KB', 'budget', '.map KB', 'init ms', 'x empty', 'process ms', 'x empty', 'largest parts (KB)'], rows),
    '',
    '- What the sizes are: every bundle carries Powertools Logger, Metrics and Tracer; Tracer brings the X-Ray SDK',
    '  (aws-xray-sdk-core and semver, about 100 KB, loaded in Lambda only). The search functions talk to OpenSearch through',
    '  a thin SigV4 client (lambdas/adapters/aws/opensearch-client.ts, node:https and @smithy/signature-v4, about 20 KB);',
    '  @opensearch-project/opensearch, which they bundled before, was 250 KB of minified code on its own and put',
    '  match-grants at 412 KB and semantic-search at 401 KB before Powertools Metrics and Tracer were added.',
    ...(dynamoMs !== null && openapiMs !== null
      ? [
        `- Where init time goes: the DynamoDB client alone takes ${ms(dynamoMs)} ms to import here, and \`openapi\`, the one function that`,
        `  imports no AWS SDK client (but the same Powertools, the X-Ray SDK and zod), ${ms(openapiMs)} ms. Every other function imports`,
        '  the DynamoDB client at load (the search functions Bedrock\'s too, the webhook functions SQS\'s), so most of its init is',
        '  the SDK\'s, which a smaller bundle cannot remove.',
      ]
      : []),
    '- Node here is the machine\'s, not the runtime\'s Node 22, and a shared machine\'s figures swing by tens of percent',
    '  between runs: compare the ratios, within one run.',
    '',
    ...machineLines(machine),
    `The part took ${duration(result.seconds)}. Code measured: ${machine.code}.`,
    COLDSTART_MARKERS.end,
  ].join('\n');
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
| webhooks | webhook delivery | a bare \`node:http\` POST loop to the same receiver |
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
npm run bench -- --parts webhooks               # only the webhook delivery section (about 2 min)
npm run bench -- --parts coldstart              # only the bundles and cold start section (about 2 min)
npm run bench -- --parts load                   # only the mixed load section (60 s of load, --load-duration to change)
npm run bench:load -- --duration 600            # the same, alone, 10 minutes: the RSS growth check after the first minute
npm run eval:search && npm run eval:match       # the search and match quality sections
\`\`\`

\`--parts\` (\`BENCH_PARTS\`, default ${BENCH_PARTS.join(',')}) picks what runs; without \`api\`, only the sections of
the parts that ran are rewritten and the rest of the existing report is kept. A run with \`api\` but
without \`ingest\`, \`knn\`, \`match\`, \`webhooks\`, \`coldstart\` or \`load\` keeps the ingest, exact k-NN, grant matching, webhook delivery, cold start or load section of the existing report. The search quality and match
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
  words repeat too. Keyword search keeps the lexical matches whose cosine reaches the floor (one
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

${coldStartSection(run.coldstart)}

${loadSection(run.load, 'short')}

${loadSection(run.load, 'long')}

## Where the time goes without the cache

Profiled at 100,000 grants on 2026-11-26 (each step timed in process, and the V8 profiler in
process over 60 distinct queries). "community health" with a distinct filter takes about 7.4 ms
in keyword mode, 11.8 ms in semantic mode and 18.2 ms in hybrid mode; on 2026-11-25 it took 40,
15 and 55 ms, and the day before 105, 65 and 150 ms with 82-92% of the server's CPU inside SQLite.

- **Filters** are one pass over the rows' filter columns, held in memory beside the vectors
  (\`filter-columns.ts\`, property-tested against the SQL it stands in for): about 1 ms for the
  default "open and live" filter plus an amount, made once a query. SQLite scanned its row table
  at about 0.6 µs a row, 60-80 ms whatever the filter. A listing's exact \`pagination.total\` is the
  count of that mask; its page is still an index walk in SQLite that stops after 20 rows.
  Liveness is one stored day per row (\`live_until\`), so the listing indexes cover it.
- **Keyword search**: FTS5's BM25 is a sum over the query's words, so each word's scored postings
  are read from FTS5 once and kept in memory (LRU, 64 MB, cleared by every write), and a query
  merges them (about 1.4 ms for "community health", whose words 13,535 grants share). The records
  where the words stand near each other (FTS5's NEAR, for the phrase boost) are kept the same way,
  by the sequence of words. A word's first search pays for its postings: 166 ms for "community"
  (in 53,778 grants), 67 ms for "health" (23,337), and a sequence's first search 3 ms for its NEAR;
  the distinct scenarios repeat their words, so they do not. What remains per query: the filters
  (about 1 ms), the floor's cosine for each match left (SimSIMD on views of the matrix, about
  3 ms for the 10,000 left here, half a JavaScript loop's time; the rows are scattered, so it is
  bound by memory) and the ranking (about 1 ms).
- **Rankings** break ties by id with one native sort: each match's score and its record's place
  in id order (kept per kind until a write) are one float64 key. The synthetic catalogue repeats
  texts, so 13,535 keyword matches had only 3,303 distinct scores, and breaking those ties by
  comparing ids had cost 7 ms.
- **Semantic search** is exact: the product of the query with every grant's vector in ONNX
  Runtime (about 6 ms; \`run\` executes on the event loop's thread, MLAS on both cores), then the
  mask and the ranking of every match above the floor.
- **Hybrid** takes the keyword matches' cosines from the same product as its semantic list, then
  fuses the two lists by rowid in dense arrays.
- **Memory**: the index file is read through a 64 MB SQLite page cache, not memory-mapped; the map
  had counted every page the start-up load touched (about 450 MB) in the server's RSS, for no
  measurable speed.
- A repeated query (paging through results, a dashboard polling one filter) is answered from the
  index's cache of counts and rankings, which every write clears.
`;
}
