// What every admin command shares: the local state or a deployed stage as its target (--target, --data-dir, --stage).
import { type Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_DATA_DIR } from '../local/embedded-stack';
import { withJsonOption } from './admin-output';

/** The options every command that works on local state or a deployed stage shares. */
export interface TargetOptions {
  target: 'local' | 'aws';
  json?: boolean;
  dataDir: string;
  stage: string;
  region?: string;
  tableName?: string;
}

/** The target options, and --json: every command that has a target prints a result scripts may parse. */
export function withTargetOptions(command: Command): Command {
  return withStageOptions(
    withJsonOption(command)
      .addOption(new Option('--target <target>', 'the embedded stack (local) or a deployed stage (aws)').choices(['local', 'aws']).default('local'))
      .option('--data-dir <dir>', 'local: state folder', DEFAULT_DATA_DIR),
  ).option('--table-name <name>', 'aws: the records table, skipping the stack lookup');
}

/** Which deployed stage (--stage, --region): every command that can work on AWS has these. */
export function withStageOptions(command: Command): Command {
  return command.option('--stage <stage>', 'aws: the deployed stage', 'dev').option('--region <region>', "aws: region (default: the AWS SDK's)");
}

/** An option value that must be a whole number from `min` to `max`: anything else is a usage error naming the range. */
export function wholeNumber(min: number, max: number, unit = ''): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`must be a whole number${unit ? ` of ${unit}` : ''} from ${min} to ${max}`);
    return n;
  };
}

/** The options of a command that reads the stage's search domain in AWS (saved searches, the deadline scan). */
export function withSearchDomainOptions(command: Command, purpose: string): Command {
  return command
    .option('--search-endpoint <host>', `aws: the search domain${purpose}, skipping the stack lookup`)
    .option('--embedding-dimensions <n>', "aws: the index's vector length, skipping the stack lookup");
}

/** Runs `run` with ports opened for one command, and closes them whatever happens. */
export async function withOpenedPorts<P extends { close(): void }, T>(opening: Promise<P>, run: (ports: P) => Promise<T>): Promise<T> {
  const ports = await opening;
  try {
    return await run(ports);
  } finally {
    ports.close();
  }
}
