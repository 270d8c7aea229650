// `npm run bench`: API throughput and latency against a bare node:http baseline, and ingest throughput; see docs/benchmarks.md.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { benchCatalogue, type CatalogueResult } from './bench-catalogue';
import { PROJECT_ROOT, stopAllChildren } from './child-processes';
import { describeMachine } from './machine';
import { parseBenchOptions } from './options';
import { benchIngest } from './ingest';
import { ingestSection, renderReport, renderSummary, withIngestSection, type BenchRun } from './report';

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

  const ingest = options.parts.includes('ingest') ? await benchIngest(options.rounds, log) : null;
  const catalogues: CatalogueResult[] = [];
  if (options.parts.includes('api')) {
    for (const grants of options.sizes) catalogues.push(await benchCatalogue(grants, options, log));
  }

  const run: BenchRun = { machine, options, catalogues, ingest, totalSeconds: (performance.now() - startedAt) / 1000 };
  const outFile = resolve(PROJECT_ROOT, options.outFile);
  mkdirSync(dirname(outFile), { recursive: true });
  if (options.parts.includes('api')) {
    writeFileSync(outFile, renderReport(run));
    log(`\n${renderSummary(run)}`);
  } else {
    // Only the ingest section changes; the API figures of the last full run stay.
    writeFileSync(outFile, withIngestSection(existsSync(outFile) ? readFileSync(outFile, 'utf8') : '# Benchmarks\n', ingestSection(run)));
  }
  log(`\nwrote ${outFile} (${run.totalSeconds.toFixed(0)} s)`);
}

try {
  await main();
} catch (error) {
  console.error(`\nbench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await stopAllChildren();
}
