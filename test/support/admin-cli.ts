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

/** The command with --json on `dataDir`: its exit code, its one JSON document (or a failure naming what came instead) and stderr. */
export async function runAdminJson(args: readonly string[], dataDir: string): Promise<{ code: number; document: any; stderr: string }> {
  const out = await runAdmin([...args, '--json', '--data-dir', dataDir]);
  try {
    return { code: out.code, document: JSON.parse(out.stdout), stderr: out.stderr };
  } catch {
    throw new Error(`stdout of ${args.join(' ')} is not one JSON document (exit ${out.code}):\n${out.stdout}\n${out.stderr}`);
  }
}
