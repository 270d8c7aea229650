// What every admin command shares: the local state or a deployed stage as its target (--target, --data-dir, --stage).
import { Command, Option } from 'commander';
import { withJsonOption } from './admin-output';
import { DEFAULT_DATA_DIR, startEmbeddedStack, type EmbeddedStack } from '../local/embedded-stack';

export async function withLocalStack<T>(dataDir: string, run: (stack: EmbeddedStack) => Promise<T>): Promise<T> {
  const stack = await startEmbeddedStack({ dataDir, seed: false, onProgress: (m) => console.error(m) });
  try {
    return await run(stack);
  } finally {
    await stack.close();
  }
}

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
  return withJsonOption(command)
    .addOption(new Option('--target <target>', 'the embedded stack (local) or a deployed stage (aws)').choices(['local', 'aws']).default('local'))
    .option('--data-dir <dir>', 'local: state folder', DEFAULT_DATA_DIR)
    .option('--stage <stage>', 'aws: the deployed stage', 'dev')
    .option('--region <region>', 'aws: region (default: the AWS SDK\'s)')
    .option('--table-name <name>', 'aws: the records table, skipping the stack lookup');
}
