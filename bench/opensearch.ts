import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { OpenSearchHttpClient } from '../lambdas/adapters/aws/opensearch-client';
import { ENGINE_ENV, readState, startEngine, stopEngine } from '../local/engines/engine-processes';
import { todayUtc } from './bench-catalogue';
import { type ProcessMemory, readProcessMemory, startNodeChild } from './child-processes';
import { measure } from './measure';
import { fillDerived, fillSeeded, type OpenSearchFill } from './opensearch-fill';
import { recallQueryVectors, windowRecallAtScale } from './opensearch-recall';
import type { BenchOptions } from './options';
import { BASELINE_PAGE_PATH, distinctPath, probe, probeListPage, type ScenarioName, scenarios } from './scenarios';
import type { RecallOfFilters } from './search-eval/knn-recall';
import { BENCH_DATA_DIR, benchAuthorization, type RunningServer, startApiServer, startBaselineServer } from './server-process';
import { median, type Round, type ScenarioSummary, summarise } from './summary';

/**
 * Search at big catalogues on OpenSearch beside the embedded index and a bare node:http server,
 * in one run: the seeded catalogue's grants (and the same vectors, from the data folder's
 * embedding cache) in a real OpenSearch 2.19 node, served by the same local HTTP server and route
 * handlers as the embedded API with only the search index swapped for the adapter the Lambdas
 * use; and a catalogue `openSearchScale` times bigger derived from it (opensearch-fill.ts), on
 * OpenSearch alone. Rounds interleave baseline, embedded and both OpenSearch catalogues, so each
 * ratio compares neighbours in time.
 */

/** The searches compared: every request a distinct query, so no result cache on either side answers it. */
export const OPENSEARCH_SCENARIOS = ['filtered-distinct', 'search-distinct', 'semantic-distinct', 'hybrid-distinct'] as const satisfies readonly ScenarioName[];
export type OpenSearchScenario = (typeof OPENSEARCH_SCENARIOS)[number];
/** The embedded index, OpenSearch with the seeded catalogue, OpenSearch with the derived one. */
export type Backend = 'embedded' | 'opensearch' | 'opensearch-derived';
type BenchScenarioName = 'baseline' | `${Backend}:${OpenSearchScenario}`;

/** One catalogue in the node: its fill, what its index takes, and each scenario's total. */
export interface OpenSearchCatalogue {
  grants: number;
  fill: OpenSearchFill;
  indexBytes: number;
  segments: number;
  totals: Record<OpenSearchScenario, number>;
  /** The window's recall against the exact scan, per filter set (measured after the rounds). */
  recall: RecallOfFilters[];
}

export interface OpenSearchBenchResult {
  grants: number;
  /** The seeded catalogue, and the derived one when measured. */
  catalogues: Partial<Record<Exclude<Backend, 'embedded'>, OpenSearchCatalogue>>;
  embeddedTotals: Record<OpenSearchScenario, number>;
  summaries: ScenarioSummary<{ name: BenchScenarioName }>[];
  /** Median over rounds of OpenSearch's req/s over the embedded index's, per scenario (the seeded catalogue). */
  openSearchOverEmbedded: Record<OpenSearchScenario, number>;
  memory: { embeddedApi: ProcessMemory; openSearchApi: ProcessMemory; openSearchNode: ProcessMemory; nodeHeapUsedBytes: number; nodeHeapMaxBytes: number };
  openSearchVersion: string;
  window: number;
  copies: number;
  seconds: number;
}

const OS_API_READY_TIMEOUT_MS = 5 * 60_000;
const WARMUP_FLOOR_SECONDS = 5;

async function startOpenSearchApi(url: string, prefix: string, stateDir: string, window: number): Promise<RunningServer & { authorization: string }> {
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const { child, ready } = await startNodeChild({
    label: 'API server over OpenSearch',
    script: 'bench/opensearch-api-server.ts',
    args: [url, prefix, stateDir, String(window)],
    readyLine: /API ready at (http:\/\/127\.0\.0\.1:\d+\/\S+)/,
    readyTimeoutMs: OS_API_READY_TIMEOUT_MS,
  });
  const keys = JSON.parse(readFileSync(join(stateDir, 'keys.json'), 'utf8')) as { developer: string };
  return { child, baseUrl: ready[1]!, authorization: `Bearer ${keys.developer}` };
}

/** The node's JVM heap, used and most, from its stats. */
async function nodeHeap(url: string): Promise<{ used: number; max: number }> {
  const stats = (await (await fetch(`${url}/_nodes/stats/jvm`)).json()) as {
    nodes: Record<string, { jvm: { mem: { heap_used_in_bytes: number; heap_max_in_bytes: number } } }>;
  };
  const node = Object.values(stats.nodes)[0]!;
  return { used: node.jvm.mem.heap_used_in_bytes, max: node.jvm.mem.heap_max_in_bytes };
}

/** What a catalogue's grant index takes on disk (primaries) and in how many segments. */
async function indexSize(url: string, prefix: string): Promise<{ bytes: number; segments: number }> {
  const stats = (await (await fetch(`${url}/${prefix}-grants/_stats/store,segments`)).json()) as {
    _all: { primaries: { store: { size_in_bytes: number }; segments: { count: number } } };
  };
  return { bytes: stats._all.primaries.store.size_in_bytes, segments: stats._all.primaries.segments.count };
}

export async function benchOpenSearch(grants: number, options: BenchOptions, log: (line: string) => void): Promise<OpenSearchBenchResult> {
  const startedAt = performance.now();
  const copies = options.openSearchScale;
  log(`\n== search on OpenSearch beside the embedded index, ${grants} grants${copies > 1 ? ` and ${grants * copies} derived` : ''} ==`);
  const given = process.env[ENGINE_ENV.opensearch];
  const startedEngine = !given && !readState('opensearch');
  const url = given ?? (await startEngine('opensearch')).url;
  const client = new OpenSearchHttpClient({ node: url });
  const dataDir = join(BENCH_DATA_DIR, `grants-${grants}`);
  const prefixes: Partial<Record<Exclude<Backend, 'embedded'>, string>> = {
    opensearch: `gcf-bench-${grants}`,
    ...(copies > 1 ? { 'opensearch-derived': `gcf-bench-${grants}x${copies}` } : {}),
  };
  const servers: Partial<Record<Backend, RunningServer & { authorization: string }>> = {};
  let baseline: RunningServer | undefined;
  try {
    const info = (await (await fetch(url)).json()) as { version?: { number?: string } };
    // The embedded API server seeds the data folder on its first start; the fills read it after.
    if (!existsSync(join(dataDir, 'keys.json'))) await (await startApiServer(grants, { log })).server.child.stop();
    const fills: Partial<Record<Exclude<Backend, 'embedded'>, OpenSearchFill>> = {
      opensearch: await fillSeeded(client, url, prefixes.opensearch!, dataDir, log),
    };
    if (prefixes['opensearch-derived']) fills['opensearch-derived'] = await fillDerived(client, url, prefixes['opensearch-derived'], dataDir, copies, log);
    const recallVectors = await recallQueryVectors(dataDir);
    const embedded = (await startApiServer(grants, { log })).server;
    servers.embedded = { ...embedded, authorization: benchAuthorization(grants) };
    for (const backend of ['opensearch', 'opensearch-derived'] as const) {
      const prefix = prefixes[backend];
      if (prefix) servers[backend] = await startOpenSearchApi(url, prefix, join(BENCH_DATA_DIR, `opensearch-api-${prefix}`), options.openSearchWindow);
    }
    const backends = Object.keys(servers) as Backend[];
    const headers = (backend: Backend) => ({ Authorization: servers[backend]!.authorization });
    const page = await probe(`${embedded.baseUrl}${BASELINE_PAGE_PATH}`, headers('embedded'));
    baseline = await startBaselineServer(page.body, page.contentType);

    const byName = new Map(scenarios(todayUtc()).map((s) => [s.name, s]));
    const nextPaths = new Map<string, () => string>();
    const totals = Object.fromEntries(backends.map((backend) => [backend, {} as Record<OpenSearchScenario, number>])) as Record<
      Backend,
      Record<OpenSearchScenario, number>
    >;
    for (const name of OPENSEARCH_SCENARIOS) {
      const scenario = byName.get(name)!;
      for (const backend of backends) {
        const base = new URL(servers[backend]!.baseUrl);
        let n = 0;
        nextPaths.set(`${backend}:${name}`, () => `${base.pathname}${distinctPath(scenario, n++)}`);
        const facts = await probeListPage(`${base.origin}${nextPaths.get(`${backend}:${name}`)!()}`, headers(backend));
        totals[backend][name] = facts.total;
        log(`  ${backend.padEnd(18)} ${name}: ${facts.total} matches`);
      }
    }

    const list: { name: BenchScenarioName }[] = [
      { name: 'baseline' },
      ...OPENSEARCH_SCENARIOS.flatMap((name) => backends.map((backend) => ({ name: `${backend}:${name}` as const }))),
    ];
    const run = async (name: BenchScenarioName, durationSeconds: number) => {
      try {
        if (name === 'baseline')
          return await measure(`${baseline!.baseUrl}/`, { connections: options.connections, durationSeconds, headers: headers('embedded') });
        const backend = name.split(':')[0] as Backend;
        const server = servers[backend]!;
        const measured = await measure(server.baseUrl, {
          connections: options.connections,
          durationSeconds,
          nextPath: nextPaths.get(name),
          headers: headers(backend),
        });
        // Requests autocannon abandoned may still be in flight; one more answers after them.
        await probe(`${server.baseUrl}${BASELINE_PAGE_PATH}`, headers(backend));
        return measured;
      } catch (error) {
        throw new Error(`${name}: ${(error as Error).message}`);
      }
    };
    const rssOf = (name: BenchScenarioName) =>
      readProcessMemory((name === 'baseline' ? baseline! : servers[name.split(':')[0] as Backend]!).child.pid).rssBytes;
    // A search on OpenSearch at this size can take longer than a short warm-up under load: warm each for at least WARMUP_FLOOR_SECONDS.
    if (options.warmupSeconds > 0) for (const { name } of list) await run(name, Math.max(options.warmupSeconds, WARMUP_FLOOR_SECONDS));
    const rounds: Round<BenchScenarioName>[] = [];
    for (let i = 1; i <= options.rounds; i++) {
      const round = {} as Round<BenchScenarioName>;
      for (const { name } of list) {
        round[name] = { ...(await run(name, options.durationSeconds)), rssBytes: rssOf(name) };
        log(
          `  round ${i}/${options.rounds} ${name.padEnd(38)} ${round[name].requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${round[name].p50Ms.toFixed(2)} ms  p99 ${round[name].p99Ms.toFixed(2)} ms`,
        );
      }
      rounds.push(round);
    }
    const openSearchOverEmbedded = Object.fromEntries(
      OPENSEARCH_SCENARIOS.map((name) => [
        name,
        median(rounds.map((round) => round[`opensearch:${name}`].requestsPerSecond / round[`embedded:${name}`].requestsPerSecond)),
      ]),
    ) as Record<OpenSearchScenario, number>;
    // Memory as the rounds left it, before the recall measure's exact scans.
    const nodePid = readState('opensearch')?.pid;
    const heap = await nodeHeap(url);
    const memory = {
      embeddedApi: readProcessMemory(servers.embedded.child.pid),
      openSearchApi: readProcessMemory(servers.opensearch!.child.pid),
      openSearchNode: nodePid ? readProcessMemory(nodePid) : ({ rssBytes: Number.NaN, peakRssBytes: Number.NaN } as ProcessMemory),
      nodeHeapUsedBytes: heap.used,
      nodeHeapMaxBytes: heap.max,
    };
    const catalogues: OpenSearchBenchResult['catalogues'] = {};
    for (const backend of ['opensearch', 'opensearch-derived'] as const) {
      const prefix = prefixes[backend];
      if (!prefix) continue;
      const size = await indexSize(url, prefix);
      log(`  the window's recall against the exact scan on ${prefix}-grants, ${recallVectors.length} labelled queries…`);
      const recall = await windowRecallAtScale(client, prefix, recallVectors, options.openSearchWindow, todayUtc());
      for (const r of recall)
        log(
          `    ${r.filters}: @10 ${r.mean[10].toFixed(3)} (worst ${r.worst[10].toFixed(2)}), @100 ${r.mean[100].toFixed(3)} (worst ${r.worst[100].toFixed(2)})`,
        );
      catalogues[backend] = {
        grants: fills[backend]!.grants,
        fill: fills[backend]!,
        indexBytes: size.bytes,
        segments: size.segments,
        totals: totals[backend],
        recall,
      };
    }
    return {
      grants,
      catalogues,
      embeddedTotals: totals.embedded,
      summaries: summarise(list, rounds),
      openSearchOverEmbedded,
      memory,
      openSearchVersion: info.version?.number ?? 'unknown',
      window: options.openSearchWindow,
      copies,
      seconds: (performance.now() - startedAt) / 1000,
    };
  } finally {
    await baseline?.child.stop();
    for (const server of Object.values(servers)) await server?.child.stop();
    if (startedEngine) await stopEngine('opensearch');
  }
}
