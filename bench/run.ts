// `npm run bench`: API throughput and latency against a bare node:http baseline; see docs/benchmarks.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { benchCatalogue, type CatalogueResult } from './bench-catalogue';
import { PROJECT_ROOT, stopAllChildren } from './child-processes';
import { describeMachine } from './machine';
import { parseBenchOptions } from './options';
import { renderReport, renderSummary, type BenchRun } from './report';

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
  const machine = describeMachine();
  const startedAt = performance.now();
  log(`bench: sizes ${options.sizes.join(', ')}; ${options.rounds} rounds x ${options.durationSeconds} s; ${options.connections} connections`);

  const catalogues: CatalogueResult[] = [];
  for (const grants of options.sizes) catalogues.push(await benchCatalogue(grants, options, log));

  const run: BenchRun = { machine, options, catalogues, totalSeconds: (performance.now() - startedAt) / 1000 };
  const outFile = resolve(PROJECT_ROOT, options.outFile);
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, renderReport(run));
  log(`\n${renderSummary(run)}\n\nwrote ${outFile} (${run.totalSeconds.toFixed(0)} s)`);
}

try {
  await main();
} catch (error) {
  console.error(`\nbench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await stopAllChildren();
}
