import { type ProcessMemory, readProcessMemory } from './child-processes';
import { megabytes } from './format';
import { measure } from './measure';
import type { BenchOptions } from './options';
import {
  BASELINE_PAGE_PATH,
  countGrants,
  distinctPath,
  type ListPageFacts,
  probe,
  probeListPage,
  type Scenario,
  type ScenarioName,
  scenarios,
} from './scenarios';
import { benchAuthorization, type FirstStart, type RunningServer, startApiServer, startBaselineServer } from './server-process';
import { type Round, type RoundMeasurement, type ScenarioSummary, summarise } from './summary';
import { measureWorstCases, type WorstCaseResult } from './worst-cases';

export interface ScenarioFacts {
  /** Grants matching the scenario's query (the baseline page's own total for the baseline). */
  matches: number;
  responseBytes: number;
}

export interface CatalogueResult {
  grants: number;
  openGrants: number;
  firstStart: FirstStart;
  facts: Record<ScenarioName, ScenarioFacts>;
  summaries: ScenarioSummary[];
  apiMemory: { idle: ProcessMemory; afterRuns: ProcessMemory };
  /** Bad input at its costliest, after the rounds (worst-cases.ts). */
  worstCases: WorstCaseResult[];
  baselineMemory: ProcessMemory;
  seconds: number;
}

export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

function samePage(a: ListPageFacts, b: ListPageFacts): boolean {
  return a.total === b.total && a.ids.join() === b.ids.join();
}

/** Everything for one catalogue size: start both servers, check, warm up, interleaved rounds, stop. */
export async function benchCatalogue(grants: number, options: BenchOptions, log: (line: string) => void): Promise<CatalogueResult> {
  const startedAt = performance.now();
  log(`\n== ${grants} grants ==`);
  const { server: api, firstStart } = await startApiServer(grants, { log });
  let baseline: RunningServer | undefined;
  try {
    const idle = readProcessMemory(api.child.pid);
    log(`  API server pid ${api.child.pid} at ${api.baseUrl}, idle RSS ${megabytes(idle.rssBytes)} MB`);

    const headers = { Authorization: benchAuthorization(grants) };
    const page = await probe(`${api.baseUrl}${BASELINE_PAGE_PATH}`, headers);
    if (page.status !== 200) throw new Error(`baseline page ${BASELINE_PAGE_PATH}: status ${page.status}`);
    baseline = await startBaselineServer(page.body, page.contentType);
    log(`  baseline pid ${baseline.child.pid} at ${baseline.baseUrl}, serving ${page.body.length} bytes`);

    const list = scenarios(todayUtc());
    const serverFor = (scenario: Scenario) => (scenario.name === 'baseline' ? baseline! : api);
    const urlFor = (scenario: Scenario) => `${serverFor(scenario).baseUrl}${scenario.path || '/'}`;
    // One counter per scenario for the whole bench, so no distinct query is ever sent twice.
    const apiBasePath = new URL(api.baseUrl).pathname;
    const nextPathFor = new Map(
      list
        .filter((s) => s.distinct)
        .map((s) => {
          let n = 0;
          return [s.name, () => `${apiBasePath}${distinctPath(s, n++)}`] as const;
        }),
    );

    const facts = {} as Record<ScenarioName, ScenarioFacts>;
    for (const scenario of list) {
      let probed = await probeListPage(urlFor(scenario), headers);
      const nextPath = nextPathFor.get(scenario.name);
      if (nextPath) {
        const origin = new URL(api.baseUrl).origin;
        const [first, second] = [await probeListPage(`${origin}${nextPath()}`, headers), await probeListPage(`${origin}${nextPath()}`, headers)];
        const consistent = scenario.distinct!.newText || (samePage(first, second) && (!scenario.distinct!.sameAnswerAsRepeated || samePage(first, probed)));
        if (!consistent) throw new Error(`${scenario.name}: the distinct-query parameter changes the answer from one request to the next`);
        probed = first;
      }
      facts[scenario.name] = { matches: probed.total, responseBytes: probed.bytes };
      log(`  ${scenario.name}: ${probed.total} matches, ${probed.bytes} bytes per response`);
    }
    const openGrants = await countGrants(api.baseUrl, '', headers);

    const run = async (scenario: Scenario, durationSeconds: number) => {
      try {
        const measured = await measure(urlFor(scenario), {
          connections: options.connections,
          durationSeconds,
          nextPath: nextPathFor.get(scenario.name),
          headers,
        });
        // The server may still be working through requests autocannon abandoned when it stopped;
        // one more request returns only after them, so the next run starts on an idle server.
        await probe(scenario.name === 'baseline' ? `${baseline!.baseUrl}/` : `${api.baseUrl}${BASELINE_PAGE_PATH}`, headers);
        return measured;
      } catch (error) {
        const output = serverFor(scenario).child.output().slice(-3000);
        throw new Error(`${(error as Error).message}\n--- ${serverFor(scenario).child.label} output (tail) ---\n${output}`);
      }
    };

    if (options.warmupSeconds > 0) {
      for (const scenario of list) await run(scenario, options.warmupSeconds);
      log(`  warmed up (${options.warmupSeconds} s per scenario)`);
    }

    const rounds: Round[] = [];
    for (let i = 1; i <= options.rounds; i++) {
      const round = {} as Round;
      for (const scenario of list) {
        const measured = await run(scenario, options.durationSeconds);
        const entry: RoundMeasurement = { ...measured, rssBytes: readProcessMemory(serverFor(scenario).child.pid).rssBytes };
        round[scenario.name] = entry;
        log(
          `  round ${i}/${options.rounds} ${scenario.name.padEnd(17)} ${entry.requestsPerSecond.toFixed(0).padStart(6)} req/s` +
            `  p50 ${entry.p50Ms.toFixed(2)} ms  p99 ${entry.p99Ms.toFixed(2)} ms  RSS ${megabytes(entry.rssBytes)} MB`,
        );
      }
      rounds.push(round);
    }

    const apiMemoryAfterRuns = readProcessMemory(api.child.pid);
    const worstCases = await measureWorstCases(api.baseUrl, headers);
    for (const worst of worstCases)
      log(`  worst case: ${worst.name}: first ${worst.firstMs.toFixed(1)} ms, then p50 ${worst.p50Ms.toFixed(1)} ms, max ${worst.maxMs.toFixed(1)} ms`);
    return {
      grants,
      openGrants,
      worstCases,
      firstStart,
      facts,
      summaries: summarise(list, rounds),
      apiMemory: { idle, afterRuns: apiMemoryAfterRuns },
      baselineMemory: readProcessMemory(baseline.child.pid),
      seconds: (performance.now() - startedAt) / 1000,
    };
  } finally {
    await baseline?.child.stop();
    await api.child.stop();
  }
}
