// `npm run engines -- start|stop|status [engine…]`: the real engines the AWS adapters are tested
// against on this machine (OpenSearch 2.19 with k-NN, ElasticMQ for SQS), fetched from Maven
// Central through mvn into .cache/engines/ and run in the background on free loopback ports.
// `npm run test:engines` starts them, runs the suites against them and stops them.
import { Command } from 'commander';
import type { EngineName } from '../local/engines/engine-artifacts';
import { ENGINE_ENV, ENGINE_NAMES, healthy, readState, startEngine, stopEngine } from '../local/engines/engine-processes';

function enginesOf(names: string[]): EngineName[] {
  if (names.length === 0) return [...ENGINE_NAMES];
  const unknown = names.filter((name) => !(ENGINE_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    console.error(`engines: unknown engine ${unknown.join(', ')}; known: ${ENGINE_NAMES.join(', ')}`);
    process.exit(2);
  }
  return names as EngineName[];
}

const program = new Command('engines').description("start, stop or check the real engines of the AWS adapters' tests");

program
  .command('start')
  .argument('[engines...]', ENGINE_NAMES.join(', '))
  .description('start (fetching them first if needed) and wait until healthy')
  .action(async (names: string[]) => {
    for (const name of enginesOf(names)) {
      const started = Date.now();
      const state = await startEngine(name);
      console.log(`${name}: ${state.url} (pid ${state.pid}, ready in ${((Date.now() - started) / 1000).toFixed(1)} s; ${ENGINE_ENV[name]}=${state.url})`);
    }
  });

program
  .command('stop')
  .argument('[engines...]', ENGINE_NAMES.join(', '))
  .description('stop them')
  .action(async (names: string[]) => {
    for (const name of enginesOf(names)) console.log(`${name}: ${(await stopEngine(name)) ? 'stopped' : 'was not running'}`);
  });

program
  .command('status')
  .argument('[engines...]', ENGINE_NAMES.join(', '))
  .description('whether each runs and answers; exit 1 if one does not')
  .action(async (names: string[]) => {
    let down = false;
    for (const name of enginesOf(names)) {
      const state = readState(name);
      const up = state !== null && (await healthy(state));
      down ||= !up;
      console.log(
        `${name}: ${up ? `up at ${state!.url} (pid ${state!.pid}, since ${state!.startedAt})` : state ? `not answering (pid ${state.pid}; log ${state.log})` : 'not running'}`,
      );
    }
    if (down) process.exitCode = 1;
  });

program.parseAsync().catch((error: unknown) => {
  console.error(`engines: ${(error as Error).message}`);
  process.exit(1);
});
