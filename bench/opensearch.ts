import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenSearchHttpClient } from '../lambdas/adapters/aws/opensearch-client';
import { OpenSearchIndex } from '../lambdas/adapters/aws/opensearch-index';
import { SqliteEmbeddingCache } from '../lambdas/adapters/embedded/sqlite-embedding-cache';
import { reindexRecords } from '../lambdas/core/use-cases/reindex-records';
import { ENGINE_ENV, readState, startEngine, stopEngine } from '../local/engines/engine-processes';
import { startEmbeddedStack } from '../local/embedded-stack';
import { todayUtc } from './bench-catalogue';
import { readProcessMemory, startNodeChild, type ProcessMemory } from './child-processes';
import { measure } from './measure';
import type { BenchOptions } from './options';
import { BASELINE_PAGE_PATH, distinctPath, probe, probeListPage, scenarios, type ScenarioName } from './scenarios';
import { BENCH_DATA_DIR, benchAuthorization, startApiServer, startBaselineServer, type RunningServer } from './server-process';
import { median, summarise, type Round, type ScenarioSummary } from './summary';

/**
 * Search at a big catalogue on OpenSearch beside the embedded index and a bare node:http server,
 * in one run: the same grants (and the same vectors, from the data folder's embedding cache) in a
 * real OpenSearch 2.19 node, served by the same local HTTP server and route handlers as the
 * embedded API, with only the search index swapped for the adapter the Lambdas use. Rounds
 * interleave baseline, embedded and OpenSearch, so each ratio compares neighbours in time.
 */

/** The searches compared: every request a distinct query, so no result cache on either side answers it. */
export const OPENSEARCH_SCENARIOS = ['filtered-distinct', 'search-distinct', 'semantic-distinct', 'hybrid-distinct'] as const satisfies readonly ScenarioName[];
export type OpenSearchScenario = (typeof OPENSEARCH_SCENARIOS)[number];
export type Backend = 'embedded' | 'opensearch';
type BenchScenarioName = 'baseline' | `${Backend}:${OpenSearchScenario}`;

export interface OpenSearchFill {
  grants: number;
  /** Null when the indices were filled by an earlier run and reused. */
  seconds: number | null;
}

export interface OpenSearchBenchResult {
  grants: number;
  fill: OpenSearchFill;
  /** Per scenario: the total each backend answers (the same filters; text matching differs by engine). */
  totals: Record<OpenSearchScenario, Record<Backend, number>>;
  summaries: ScenarioSummary<{ name: BenchScenarioName }>[];
  /** Median over rounds of OpenSearch's req/s over the embedded index's, per scenario. */
  openSearchOverEmbedded: Record<OpenSearchScenario, number>;
  memory: { embeddedApi: ProcessMemory; openSearchApi: ProcessMemory; openSearchNode: ProcessMemory };
  openSearchVersion: string;
  seconds: number;
}

const FILL_RECORD = 'opensearch-fill.json';
const OS_API_READY_TIMEOUT_MS = 5 * 60_000;
const WARMUP_FLOOR_SECONDS = 5;

/** The grants of the bench's data folder in the node's indices `<prefix>-*`, unless an earlier run left them complete. */
async function fillIndices(client: OpenSearchHttpClient, url: string, prefix: string, dataDir: string, log: (line: string) => void): Promise<OpenSearchFill> {
  const recordFile = join(dataDir, FILL_RECORD);
  const earlier = existsSync(recordFile) ? (JSON.parse(readFileSync(recordFile, 'utf8')) as { prefix: string; grants: number }) : null;
  if (earlier?.prefix === prefix) {
    const counted = await fetch(`${url}/${prefix}-grants/_count`).then(async (r) => ((await r.json()) as { count?: number }).count, () => undefined);
    if (counted === earlier.grants) {
      log(`  OpenSearch already holds the ${earlier.grants} grants (${prefix}-grants)`);
      return { grants: counted, seconds: null };
    }
  }
  await client.indices.delete({ index: `${prefix}-*` }).catch(() => undefined);
  const startedAt = performance.now();
  const stack = await startEmbeddedStack({ dataDir, seed: false });
  const cache = new SqliteEmbeddingCache(join(dataDir, 'embeddings.sqlite'));
  try {
    const index = new OpenSearchIndex(client, { space: stack.services.embedder.space, endpoint: url, aliasPrefix: prefix });
    await index.ensureIndices();
    let reported = 0;
    const counts = await reindexRecords(stack.services.store, { index, embeddings: { embedder: stack.services.embedder, cache } }, {
      kinds: ['grant'],
      onProgress: (_kind, indexed) => {
        if (indexed - reported >= 10_000) log(`  indexed ${(reported = indexed)} grants into OpenSearch`);
      },
    });
    await client.indices.refresh({ index: `${prefix}-*` });
    const seconds = (performance.now() - startedAt) / 1000;
    writeFileSync(recordFile, `${JSON.stringify({ prefix, grants: counts.grant, seconds, filledAt: new Date().toISOString() }, null, 2)}\n`);
    log(`  filled OpenSearch with ${counts.grant} grants and their vectors in ${seconds.toFixed(0)} s`);
    return { grants: counts.grant, seconds };
  } finally {
    cache.close();
    await stack.close();
  }
}

async function startOpenSearchApi(url: string, prefix: string, stateDir: string): Promise<RunningServer & { authorization: string }> {
  rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const { child, ready } = await startNodeChild({
    label: 'API server over OpenSearch',
    script: 'bench/opensearch-api-server.ts',
    args: [url, prefix, stateDir],
    readyLine: /API ready at (http:\/\/127\.0\.0\.1:\d+\/\S+)/,
    readyTimeoutMs: OS_API_READY_TIMEOUT_MS,
  });
  const keys = JSON.parse(readFileSync(join(stateDir, 'keys.json'), 'utf8')) as { developer: string };
  return { child, baseUrl: ready[1]!, authorization: `Bearer ${keys.developer}` };
}

export async function benchOpenSearch(grants: number, options: BenchOptions, log: (line: string) => void): Promise<OpenSearchBenchResult> {
  const startedAt = performance.now();
  log(`\n== search on OpenSearch beside the embedded index, ${grants} grants ==`);
  const given = process.env[ENGINE_ENV.opensearch];
  const startedEngine = !given && !readState('opensearch');
  const url = given ?? (await startEngine('opensearch')).url;
  const client = new OpenSearchHttpClient({ node: url });
  const prefix = `gcf-bench-${grants}`;
  const dataDir = join(BENCH_DATA_DIR, `grants-${grants}`);
  let embedded: RunningServer | undefined;
  let openSearch: (RunningServer & { authorization: string }) | undefined;
  let baseline: RunningServer | undefined;
  try {
    const info = (await (await fetch(url)).json()) as { version?: { number?: string } };
    // The embedded API server seeds the data folder on its first start; the fill reads it after.
    if (!existsSync(join(dataDir, 'keys.json'))) await (await startApiServer(grants, { log })).server.child.stop();
    const fill = await fillIndices(client, url, prefix, dataDir, log);
    embedded = (await startApiServer(grants, { log })).server;
    openSearch = await startOpenSearchApi(url, prefix, join(BENCH_DATA_DIR, `opensearch-api-${grants}`));
    const headers: Record<Backend, Record<string, string>> = { embedded: { Authorization: benchAuthorization(grants) }, opensearch: { Authorization: openSearch.authorization } };
    const page = await probe(`${embedded.baseUrl}${BASELINE_PAGE_PATH}`, headers.embedded);
    baseline = await startBaselineServer(page.body, page.contentType);

    const byName = new Map(scenarios(todayUtc()).map((s) => [s.name, s]));
    const servers: Record<Backend, RunningServer> = { embedded, opensearch: openSearch };
    const nextPaths = new Map<string, () => string>();
    const totals = {} as OpenSearchBenchResult['totals'];
    for (const name of OPENSEARCH_SCENARIOS) {
      const scenario = byName.get(name)!;
      totals[name] = {} as Record<Backend, number>;
      for (const backend of ['embedded', 'opensearch'] as const) {
        const base = new URL(servers[backend].baseUrl);
        let n = 0;
        nextPaths.set(`${backend}:${name}`, () => `${base.pathname}${distinctPath(scenario, n++)}`);
        const facts = await probeListPage(`${base.origin}${nextPaths.get(`${backend}:${name}`)!()}`, headers[backend]);
        totals[name][backend] = facts.total;
        log(`  ${backend.padEnd(10)} ${name}: ${facts.total} matches`);
      }
    }

    const list: { name: BenchScenarioName }[] = [{ name: 'baseline' }, ...OPENSEARCH_SCENARIOS.flatMap((name) => (['embedded', 'opensearch'] as const).map((backend) => ({ name: `${backend}:${name}` as const })))];
    const run = async (name: BenchScenarioName, durationSeconds: number) => {
      try {
        if (name === 'baseline') return await measure(`${baseline!.baseUrl}/`, { connections: options.connections, durationSeconds, headers: headers.embedded });
        const backend = name.split(':')[0] as Backend;
        const measured = await measure(servers[backend].baseUrl, { connections: options.connections, durationSeconds, nextPath: nextPaths.get(name), headers: headers[backend] });
        // Requests autocannon abandoned may still be in flight; one more answers after them.
        await probe(`${servers[backend].baseUrl}${BASELINE_PAGE_PATH}`, headers[backend]);
        return measured;
      } catch (error) {
        throw new Error(`${name}: ${(error as Error).message}`);
      }
    };
    const rssOf = (name: BenchScenarioName) => readProcessMemory((name === 'baseline' ? baseline! : servers[name.split(':')[0] as Backend]).child.pid).rssBytes;
    // A search on OpenSearch at this size can take longer than a short warm-up under load: warm each for at least WARMUP_FLOOR_SECONDS.
    if (options.warmupSeconds > 0) for (const { name } of list) await run(name, Math.max(options.warmupSeconds, WARMUP_FLOOR_SECONDS));
    const rounds: Round<BenchScenarioName>[] = [];
    for (let i = 1; i <= options.rounds; i++) {
      const round = {} as Round<BenchScenarioName>;
      for (const { name } of list) {
        round[name] = { ...(await run(name, options.durationSeconds)), rssBytes: rssOf(name) };
        log(`  round ${i}/${options.rounds} ${name.padEnd(30)} ${round[name].requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${round[name].p50Ms.toFixed(2)} ms  p99 ${round[name].p99Ms.toFixed(2)} ms`);
      }
      rounds.push(round);
    }
    const openSearchOverEmbedded = Object.fromEntries(OPENSEARCH_SCENARIOS.map((name) => [name,
      median(rounds.map((round) => round[`opensearch:${name}`].requestsPerSecond / round[`embedded:${name}`].requestsPerSecond))])) as Record<OpenSearchScenario, number>;
    const nodePid = readState('opensearch')?.pid;
    return {
      grants,
      fill,
      totals,
      summaries: summarise(list, rounds),
      openSearchOverEmbedded,
      memory: {
        embeddedApi: readProcessMemory(embedded.child.pid),
        openSearchApi: readProcessMemory(openSearch.child.pid),
        openSearchNode: nodePid ? readProcessMemory(nodePid) : { rssBytes: Number.NaN, peakRssBytes: Number.NaN } as ProcessMemory,
      },
      openSearchVersion: info.version?.number ?? 'unknown',
      seconds: (performance.now() - startedAt) / 1000,
    };
  } finally {
    await baseline?.child.stop();
    await openSearch?.child.stop();
    await embedded?.child.stop();
    if (startedEngine) await stopEngine('opensearch');
  }
}
