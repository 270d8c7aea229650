import { readProcessMemory, type ProcessMemory } from './child-processes';
import { measure } from './measure';
import type { BenchOptions } from './options';
import { BASELINE_PAGE_PATH, countGrants, probe, probeListPage, scenarios, type Scenario, type ScenarioName } from './scenarios';
import { startApiServer, startBaselineServer, type RunningServer, type SeedRecord } from './server-process';
import { summarise, type Round, type RoundMeasurement, type ScenarioSummary } from './summary';

export interface ScenarioFacts {
  /** Grants matching the scenario's query (the baseline page's own total for the baseline). */
  matches: number;
  responseBytes: number;
}

export interface CatalogueResult {
  grants: number;
  openGrants: number;
  seed: SeedRecord | null;
  facts: Record<ScenarioName, ScenarioFacts>;
  summaries: ScenarioSummary[];
  apiMemory: { idle: ProcessMemory; afterRuns: ProcessMemory };
  baselineMemory: ProcessMemory;
  seconds: number;
}

function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

/** Everything for one catalogue size: start both servers, check, warm up, interleaved rounds, stop. */
export async function benchCatalogue(grants: number, options: BenchOptions, log: (line: string) => void): Promise<CatalogueResult> {
  const startedAt = performance.now();
  log(`\n== ${grants} grants ==`);
  const { server: api, seed } = await startApiServer(grants, { log });
  let baseline: RunningServer | undefined;
  try {
    const idle = readProcessMemory(api.child.pid);
    log(`  API server pid ${api.child.pid} at ${api.baseUrl}, idle RSS ${mb(idle.rssBytes)}`);

    const page = await probe(`${api.baseUrl}${BASELINE_PAGE_PATH}`);
    if (page.status !== 200) throw new Error(`baseline page ${BASELINE_PAGE_PATH}: status ${page.status}`);
    baseline = await startBaselineServer(page.body, page.contentType);
    log(`  baseline pid ${baseline.child.pid} at ${baseline.baseUrl}, serving ${page.body.length} bytes`);

    const list = scenarios(todayUtc());
    const serverFor = (scenario: Scenario) => (scenario.name === 'baseline' ? baseline! : api);
    const urlFor = (scenario: Scenario) => `${serverFor(scenario).baseUrl}${scenario.path || '/'}`;

    const facts = {} as Record<ScenarioName, ScenarioFacts>;
    for (const scenario of list) {
      const probed = await probeListPage(urlFor(scenario));
      facts[scenario.name] = { matches: probed.total, responseBytes: probed.bytes };
      log(`  ${scenario.name}: ${facts[scenario.name].matches} matches, ${facts[scenario.name].responseBytes} bytes per response`);
    }
    const openGrants = await countGrants(api.baseUrl, '');

    const run = async (scenario: Scenario, durationSeconds: number) => {
      try {
        return await measure(urlFor(scenario), { connections: options.connections, durationSeconds });
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
          `  round ${i}/${options.rounds} ${scenario.name.padEnd(8)} ${entry.requestsPerSecond.toFixed(0).padStart(6)} req/s` +
            `  p50 ${entry.p50Ms.toFixed(2)} ms  p99 ${entry.p99Ms.toFixed(2)} ms  RSS ${mb(entry.rssBytes)}`,
        );
      }
      rounds.push(round);
    }

    return {
      grants,
      openGrants,
      seed,
      facts,
      summaries: summarise(list, rounds),
      apiMemory: { idle, afterRuns: readProcessMemory(api.child.pid) },
      baselineMemory: readProcessMemory(baseline.child.pid),
      seconds: (performance.now() - startedAt) / 1000,
    };
  } finally {
    await baseline?.child.stop();
    await api.child.stop();
  }
}
