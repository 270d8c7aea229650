import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';

export interface MachineInfo {
  /** What `nproc` prints: the CPUs this process may use. */
  cpus: number;
  cpuModel: string;
  memoryBytes: number;
  node: string;
  /** 1, 5 and 15 minute load averages when the bench started: how busy the shared machine was. */
  loadAverage: number[];
  startedAt: Date;
  /** The commit measured, and any uncommitted server-side changes on top of it. */
  code: string;
}

export function describeMachine(): MachineInfo {
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryBytes: totalmem(),
    node: process.version,
    loadAverage: loadavg(),
    startedAt: new Date(),
    code: describeCode(),
  };
}

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: new URL('..', import.meta.url), encoding: 'utf8', timeout: 10_000 });
}

/** Other files change while the bench is developed, so the report says which code it measured. */
function describeCode(): string {
  try {
    const commit = git(['rev-parse', '--short', 'HEAD']).trim();
    const changed = git(['status', '--porcelain', '--untracked-files=all'])
      .split('\n')
      // Porcelain lines are "XY path": two status columns and a space.
      .map((line) => line.slice(3))
      .filter((path) => path && !path.startsWith('bench/') && !path.startsWith('docs/') && !path.startsWith('test/') && !path.endsWith('.md'));
    if (changed.length === 0) return `commit ${commit}`;
    const shown = changed
      .slice(0, 6)
      .map((path) => `\`${path}\``)
      .join(', ');
    return `commit ${commit} plus uncommitted changes to ${shown}${changed.length > 6 ? ` and ${changed.length - 6} more` : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}
