import { createReadStream } from 'node:fs';
import { type CsvError, parse } from 'csv-parse';
import type { SourceItem } from '../../core/use-cases/ingest-records';

/**
 * CSV exports (SAM.gov, NSF Award Search, simpler.grants.gov): the header row names the fields.
 * A malformed row is rejected on its own and the file reads on; a fault that ends the file (an
 * unclosed quote) rejects the rest with the line it starts on.
 */
export async function* csvRecords(path: string, label: string, onBytes: (bytes: number) => void): AsyncIterable<SourceItem> {
  const skipped: SourceItem[] = [];
  const parser = parse({
    columns: (header: string[]) => header.map((name) => name.trim()),
    bom: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    info: true,
    on_skip: (error: CsvError | undefined) => {
      const line = typeof error?.lines === 'number' ? error.lines : parser.info.lines;
      skipped.push({ location: `${label}:${line}`, error: `malformed CSV row: ${error?.message ?? 'unreadable'}` });
      return undefined;
    },
  });
  const input = createReadStream(path);
  input.on('data', (chunk) => onBytes(chunk.length));
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      yield* skipped.splice(0);
      yield { location: `${label}:${info.lines}`, record };
    }
    yield* skipped.splice(0);
  } catch (error) {
    yield* skipped.splice(0);
    yield { location: `${label}:${parser.info.lines}`, error: `malformed CSV: ${(error as Error).message}; the rest of the file was not read` };
  }
}
