import { statSync } from 'node:fs';
import { sourceFormatOf } from '../../core/ingest/formats';
import { FUNDER_FORMATS } from '../../core/ingest/funders/federal-hierarchy';
import type { SourceFormat } from '../../core/ingest/mapped-record';
import { type IngestOptions, type IngestPorts, type IngestSummary, ingestRecords, type SourceItem } from '../../core/use-cases/ingest-records';
import { expandSourcePaths, readSourceFile } from './read-source-files';

export interface IngestFilesOptions extends Pick<IngestOptions, 'onRejected' | 'batchSize'> {
  format?: SourceFormat;
  /** Called as files are read: bytes so far, of the total, and records so far. */
  onProgress?: (progress: { bytes: number; totalBytes: number; records: number }) => void;
}

export interface IngestFilesResult {
  files: string[];
  summary: IngestSummary;
  seconds: number;
}

async function firstRecordOf(path: string): Promise<SourceItem | undefined> {
  for await (const item of readSourceFile(path)) if (item.record) return item;
  return undefined;
}

/** Funder files go first, so the records in the other files link to the funders they describe. */
async function fundersFirst(files: string[], forced: SourceFormat | undefined): Promise<string[]> {
  const isFunderFile = new Map<string, boolean>();
  for (const file of files) {
    const first = await firstRecordOf(file);
    const format = forced ?? (first?.record ? sourceFormatOf(first.record) : null);
    isFunderFile.set(file, format !== null && FUNDER_FORMATS.includes(format));
  }
  return [...files.filter((f) => isFunderFile.get(f)), ...files.filter((f) => !isFunderFile.get(f))];
}

/**
 * Imports source files and folders into a store: the one path both `admin ingest` (local or AWS)
 * and `npm start -- --data` take. Throws SourceFileError for a missing or unreadable path before
 * anything is written.
 */
export async function ingestFiles(paths: readonly string[], ports: IngestPorts, options: IngestFilesOptions = {}): Promise<IngestFilesResult> {
  const started = performance.now();
  const files = await fundersFirst(expandSourcePaths(paths), options.format);
  const totalBytes = files.reduce((sum, file) => sum + statSync(file).size, 0);
  let bytes = 0;
  let records = 0;
  const report = () => options.onProgress?.({ bytes, totalBytes, records });
  async function* allItems(): AsyncIterable<SourceItem> {
    for (const file of files) {
      for await (const item of readSourceFile(file, (n) => {
        bytes += n;
      }))
        yield item;
    }
  }
  const summary = await ingestRecords(allItems(), ports, {
    format: options.format,
    batchSize: options.batchSize,
    onRejected: options.onRejected,
    onProgress: (processed) => {
      records = processed;
      report();
    },
  });
  bytes = totalBytes;
  report();
  return { files, summary, seconds: (performance.now() - started) / 1000 };
}
