import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface AdminOutcome {
  /** The exit code: 0, or what the failed process exited with. */
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run admin -- <args>` in a child process, as a platform engineer runs it; never throws on a failed command. */
export async function runAdmin(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<AdminOutcome> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], { timeout: 60_000, env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
