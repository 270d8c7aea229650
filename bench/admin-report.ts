import { ADMIN_BENCH_COMMANDS, type AdminBenchResult } from './admin';
import { int, machineLines, table } from './format';
import { median } from './summary';

/** The "Admin commands: running server and stopped folder" section of docs/benchmarks.md (`npm run bench -- --parts admin`). */

export const ADMIN_MARKERS = { start: '<!-- admin section: npm run bench -- --parts admin -->', end: '<!-- end of admin section -->' } as const;

export function adminSection(result: AdminBenchResult | null): string {
  const heading = '## Admin commands: running server and stopped folder';
  if (!result) return `${ADMIN_MARKERS.start}\n${heading}\n\nNot measured in this run.\n${ADMIN_MARKERS.end}`;
  const floor = median(result.floorMs);
  const rows = ADMIN_BENCH_COMMANDS.map((words) => {
    const command = words.join(' ');
    const stopped = median(result.stoppedMs[command] ?? []);
    const running = median(result.runningMs[command] ?? []);
    return [`\`${command} --json\``, int(stopped), int(running), `${(stopped / running).toFixed(1)}x`, int(stopped - floor), int(running - floor)];
  });
  return [
    ADMIN_MARKERS.start,
    heading,
    '',
    `\`npm run admin -- <command> --json\` as a fresh process, wall time to exit, on the bench's state folder of ${int(result.grants)} grants:`,
    'with the server stopped (the CLI opens the folder: dynalite, the embedding model, the index) and with `npm start` running',
    `(the CLI sends the command over the admin channel). ${result.rounds} rounds, each ${result.samplesPerRound} samples of each way; medians.`,
    `The floor is \`admin --help\` in the same rounds (${int(floor)} ms): the CLI's own start, which both ways pay.`,
    '',
    table(['command', 'stopped ms', 'running ms', 'stopped / running', 'stopped above floor', 'running above floor'], rows),
    '',
    ...machineLines(result.machine, result.seconds),
    ADMIN_MARKERS.end,
  ].join('\n');
}
