// `npm run admin -- status --target aws [--stage S] [--region R] [--json]`: a deployed stage's health
// for the on-call engineer (docs/admin.md, docs/runbook.md): alarms in ALARM, dead-letter queue
// depths, indexer lag and the newest deploy, with a verdict first and an exit code scripts can use.
import { type Command, Option } from 'commander';
import { assessStageHealth } from '../lambdas/core/ops/stage-health';
import { stageHealthLines } from '../lambdas/core/ops/stage-health-lines';
import { awsStageHealthClients, readStageHealth } from '../local/aws-stage-health';
import type { AdminContext } from './admin-context';
import { emit, type OutputOptions, withJsonOption } from './admin-output';
import { withStageOptions } from './admin-targets';

interface StatusOptions extends OutputOptions {
  target: 'local' | 'aws';
  stage: string;
  region?: string;
}

/** The exit codes of status (docs/admin.md): the admin CLI's, with 1 also meaning "not healthy". */
const STATUS_EXIT = { healthy: 0, problems: 1, usage: 2 } as const;

export function addStatusCommand(program: Command, context: AdminContext): void {
  withStageOptions(
    withJsonOption(program.command('status'))
      .description("a deployed stage's health: alarms in ALARM, dead-letter queue depths, indexer lag, the newest deploy of each stack")
      // aws is the default: there is nothing else status can read (the local state has `local stats`).
      .addOption(new Option('--target <target>', 'aws: a deployed stage (the only target status reads)').choices(['local', 'aws']).default('aws')),
  )
    .addHelpText(
      'after',
      `\nExit codes: ${STATUS_EXIT.healthy} healthy; ${STATUS_EXIT.problems} when an alarm is in ALARM, a dead-letter queue holds a message, a stack is not settled (a deploy under way or failed, a failed create), one of these could not be read, or the stage's stacks cannot be found; ${STATUS_EXIT.usage} usage error.`,
    )
    .action(async (opts: StatusOptions, command: Command) => {
      if (opts.target === 'local') {
        // Commander prints it and, through the program's exitOverride, admin exits 2.
        command.error('error: status reads a deployed stage (--target aws); for the local state use `npm run admin -- local stats`', {
          exitCode: STATUS_EXIT.usage,
          code: 'admin.status.local',
        });
      }
      const clients = awsStageHealthClients(opts.region);
      try {
        const health = assessStageHealth(await readStageHealth(opts.stage, clients));
        emit(context, opts, health, () => stageHealthLines(health));
        if (!health.healthy) context.exitCode = STATUS_EXIT.problems;
      } finally {
        clients.close();
      }
    });
}
