import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The real public data beside the checkout (`../shared/data`). It is never copied into the
 * project: tests that need it read it from there and are skipped, with this message, when it is
 * absent (a fresh clone). CI has it.
 */
export const SHARED_DATA_DIR = fileURLToPath(new URL('../../../shared/data', import.meta.url));
export const SHARED_DATA_FILES = ['funders.jsonl', 'grants.jsonl', 'contracts.jsonl', 'awards.jsonl'] as const;
export const sharedDataPath = (file: string) => `${SHARED_DATA_DIR}/${file}`;
export const hasSharedData = SHARED_DATA_FILES.every((file) => existsSync(sharedDataPath(file)));
export const SHARED_DATA_SKIP_MESSAGE = `../shared/data is absent (${SHARED_DATA_DIR}): the tests over the real public data are skipped`;

/** The first line of a shared-data file that satisfies a predicate, parsed. */
export function sharedDataLine(file: string, predicate: (line: Record<string, unknown>) => boolean): Record<string, any> {
  for (const text of readFileSync(sharedDataPath(file), 'utf8').split('\n')) {
    if (text.trim() === '') continue;
    const line = JSON.parse(text) as Record<string, unknown>;
    if (predicate(line)) return line;
  }
  throw new Error(`no line in ${file} matches`);
}

export function sharedDataLineCount(file: string): number {
  return readFileSync(sharedDataPath(file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '').length;
}
