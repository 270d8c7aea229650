import { closeSync, openSync, readdirSync, readSync, type Stats, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { SourceItem } from '../../core/use-cases/ingest-records';
import { csvRecords } from './csv-records';
import { jsonDocumentRecords, jsonLinesRecords } from './json-records';
import { xmlRecords } from './xml-records';

/**
 * Source files for ingest: the container (XML, CSV, JSON, JSON lines) comes from the extension,
 * or from the first bytes when the extension says nothing. Which importer maps each record is
 * decided per record, later.
 */

export type Container = 'xml' | 'csv' | 'json' | 'jsonl';
const BY_EXTENSION: Record<string, Container> = {
  '.xml': 'xml',
  '.csv': 'csv',
  '.json': 'json',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
};

export class SourceFileError extends Error {}

function sniff(path: string): Container {
  const fd = openSync(path, 'r');
  const head = Buffer.alloc(4096);
  const length = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  const text = head
    .subarray(0, length)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (text.startsWith('<')) return 'xml';
  if (text.startsWith('[')) return 'json';
  if (text.startsWith('{')) {
    // One object per line is JSON lines; an object spanning lines is one document.
    const firstLine = text.split('\n', 1)[0]!.trim();
    try {
      JSON.parse(firstLine);
      return 'jsonl';
    } catch {
      return 'json';
    }
  }
  return 'csv';
}

export function containerOf(path: string): Container {
  return BY_EXTENSION[extname(path).toLowerCase()] ?? sniff(path);
}

/** Files named on the command line, with folders expanded to the source files inside them (sorted). */
export function expandSourcePaths(paths: readonly string[]): string[] {
  const files: string[] = [];
  for (const path of paths) {
    let stats: Stats;
    try {
      stats = statSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new SourceFileError(code === 'ENOENT' ? `${path}: no such file or folder` : `${path}: cannot read (${code})`);
    }
    if (!stats.isDirectory()) {
      files.push(path);
      continue;
    }
    let entries: string[];
    try {
      entries = readdirSync(path).sort();
    } catch (error) {
      throw new SourceFileError(`${path}: cannot read the folder (${(error as NodeJS.ErrnoException).code})`);
    }
    const sources = entries.filter((name) => BY_EXTENSION[extname(name).toLowerCase()] !== undefined).map((name) => join(path, name));
    if (sources.length === 0) throw new SourceFileError(`${path}: no .xml, .csv, .json or .jsonl files in this folder`);
    files.push(...sources);
  }
  for (const file of files) {
    try {
      closeSync(openSync(file, 'r'));
    } catch (error) {
      throw new SourceFileError(`${file}: cannot read (${(error as NodeJS.ErrnoException).code})`);
    }
  }
  return files;
}

const READERS: Record<Container, (path: string, label: string, onBytes: (bytes: number) => void) => AsyncIterable<SourceItem>> = {
  xml: xmlRecords,
  csv: csvRecords,
  json: jsonDocumentRecords,
  jsonl: jsonLinesRecords,
};

/** Every record of one file, each with its location (`file:line` or `file#index`). */
export function readSourceFile(path: string, onBytes: (bytes: number) => void = () => {}): AsyncIterable<SourceItem> {
  return READERS[containerOf(path)](path, basename(path), onBytes);
}
