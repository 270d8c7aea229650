import type { MachineInfo } from './machine';

/** Number formats shared by the console log and the markdown report. */

export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const ms = (n: number) => n.toFixed(2);
/** Decimal megabytes, as the 1 GB target is stated. */
export const megabytes = (bytes: number) => (bytes / 1e6).toFixed(0);
// Two decimals below 1%: the 100,000-grant ratios are that small, and 0.1% would hide a 2x difference.
export const percent = (ratio: number) => `${(ratio * 100).toFixed(ratio < 0.01 ? 2 : 1)}%`;
/** Scores (nDCG, cosines, relevance) to three decimals. */
export const f3 = (n: number) => n.toFixed(3);
export const duration = (seconds: number) => (seconds < 120 ? `${seconds.toFixed(0)} s` : `${(seconds / 60).toFixed(1)} min`);

/** Free text as one markdown table cell: pipes escaped, whitespace folded, cut to `maxChars`. */
export const cell = (text: string, maxChars = 110) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').slice(0, maxChars);

export function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/**
 * The machine facts and the part's duration every part's section ends with: a section may be
 * rewritten alone, so the report's header need not describe its run.
 */
export function machineLines(machine: MachineInfo, seconds: number): string[] {
  const load = machine.loadAverage.map((n) => n.toFixed(2)).join(' / ');
  return [
    `Machine: \`nproc\` ${machine.cpus} (${machine.cpuModel}), ${(machine.memoryBytes / 2 ** 30).toFixed(1)} GiB RAM, Node ${machine.node}, shared`,
    `(load average ${load} when the part started). Run ${machine.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
    `The part took ${duration(seconds)}. Code measured: ${machine.code}.`,
  ];
}
