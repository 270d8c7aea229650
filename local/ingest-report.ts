import { writeFileSync } from 'node:fs';
import cliProgress from 'cli-progress';
import type { IngestFilesResult } from '../lambdas/adapters/source-files/ingest-files';
import { RESOURCE_KINDS } from '../lambdas/core/records';
import type { IngestRejection } from '../lambdas/core/use-cases/ingest-records';

/** What `admin ingest` and `npm start -- --data` print: a progress bar, the summary, the rejections. */

/** Rejections beyond this many go to a file instead of the terminal. */
const REJECTIONS_ON_SCREEN = 20;

export interface IngestReporter {
  onProgress(progress: { bytes: number; totalBytes: number; records: number }): void;
  onRejected(rejection: IngestRejection): void;
  finish(result: IngestFilesResult): string[];
  /** Stops the progress bar (its timer, the hidden cursor) of a run that failed; finish does it for one that did not. */
  stopProgress(): void;
  /** Every rejection so far, in order. */
  rejections(): readonly IngestRejection[];
}

const megabytes = (bytes: number) => (bytes / 1e6).toFixed(1);

/** Rejections grouped by reason, values aside ("negative amount -5" and "-7" are one reason), most common first. */
function reasonGroups(rejections: readonly IngestRejection[]): { count: number; example: IngestRejection }[] {
  const groups = new Map<string, { count: number; example: IngestRejection }>();
  for (const rejection of rejections) {
    const key = `${rejection.format}\u0000${rejection.reason.replace(/"[^"]*"/g, '"…"').replace(/-?\d[\d.,]*/g, 'N')}`;
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { count: 1, example: rejection });
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

/** This process's stderr when it is a terminal (a progress bar is drawn there), else null. */
export const stderrTerminal = (): NodeJS.WritableStream | null => (process.stderr.isTTY ? process.stderr : null);

export interface IngestReporterOptions {
  /** Where rejections go when there are too many to print. */
  rejectionsFile: string;
  /** Write the file even for a few rejections. */
  alwaysWriteRejections?: boolean;
  /** The terminal the progress bar is drawn on; none when null (not a terminal, or --json). */
  progressStream: NodeJS.WritableStream | null;
}

export function ingestReporter(options: IngestReporterOptions): IngestReporter {
  const rejections: IngestRejection[] = [];
  const bar = options.progressStream
    ? new cliProgress.SingleBar(
        {
          format: 'ingest [{bar}] {percentage}% | {mb}/{totalMb} MB | {records} records | {eta_formatted} left',
          stream: options.progressStream,
          hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : null;
  let started = false;
  const stopProgress = () => {
    if (started) bar?.stop();
    started = false;
  };
  return {
    onProgress({ bytes, totalBytes, records }) {
      if (!bar) return;
      if (!started) {
        bar.start(Math.max(totalBytes, 1), 0, { mb: '0.0', totalMb: megabytes(totalBytes), records: 0 });
        started = true;
      }
      bar.update(Math.min(bytes, totalBytes), { mb: megabytes(bytes), records });
    },
    onRejected(rejection) {
      rejections.push(rejection);
    },
    rejections: () => rejections,
    stopProgress,
    finish({ files, summary, seconds }) {
      stopProgress();
      const lines = [
        `read ${summary.read} records from ${files.length} file(s) in ${seconds.toFixed(1)} s (${Math.round(summary.read / Math.max(seconds, 0.001))} records/s)`,
      ];
      lines.push(`${'kind'.padEnd(9)} ${'created'.padStart(8)} ${'updated'.padStart(8)} ${'unchanged'.padStart(10)}`);
      for (const kind of RESOURCE_KINDS) {
        const c = summary.byKind[kind];
        lines.push(`${kind.padEnd(9)} ${String(c.created).padStart(8)} ${String(c.updated).padStart(8)} ${String(c.unchanged).padStart(10)}`);
      }
      if (summary.fundersFromAgencyNames > 0) lines.push(`(${summary.fundersFromAgencyNames} funders created from agency names no funder file described)`);
      lines.push(`rejected  ${summary.rejected}`);
      for (const [format, counts] of Object.entries(summary.byFormat)) {
        lines.push(`  ${format.padEnd(32)} ${counts.imported} imported, ${counts.rejected} rejected`);
      }
      const many = rejections.length > REJECTIONS_ON_SCREEN;
      if (many || (options.alwaysWriteRejections && rejections.length > 0)) {
        writeFileSync(options.rejectionsFile, `${rejections.map((r) => `${r.location}\t${r.format ?? '-'}\t${r.reason}`).join('\n')}\n`);
        lines.push(`${rejections.length} rejections written to ${options.rejectionsFile} (location, importer, reason)${many ? '; by reason:' : ':'}`);
      }
      if (many) {
        for (const group of reasonGroups(rejections).slice(0, REJECTIONS_ON_SCREEN / 2)) {
          lines.push(`  ${String(group.count).padStart(6)} × ${group.example.reason}${group.count > 1 ? ' (and alike)' : ''}, e.g. ${group.example.location}`);
        }
      } else {
        for (const r of rejections) lines.push(`  rejected ${r.location}${r.format ? ` (${r.format})` : ''}: ${r.reason}`);
      }
      return lines;
    },
  };
}
