import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { SourceItem } from '../../core/use-cases/ingest-records';

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** JSON lines (`../shared/data`, exports): one record per line; a bad line is rejected on its own. */
export async function* jsonLinesRecords(path: string, label: string, onBytes: (bytes: number) => void): AsyncIterable<SourceItem> {
  const input = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    onBytes(Buffer.byteLength(line) + 1);
    if (line.trim() === '') continue;
    const location = `${label}:${lineNumber}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      yield { location, error: `malformed JSON line: ${(error as Error).message}` };
      continue;
    }
    yield isObject(value) ? { location, record: value } : { location, error: `not a JSON object (found ${Array.isArray(value) ? 'an array' : typeof value})` };
  }
}

/**
 * The records inside an API response or an export: search2 `data.oppHits`, SAM.gov v2
 * `opportunitiesData`, USAspending and simpler.grants.gov `results` / `data`, Elasticsearch
 * `hits.hits[]._source`, a plain array, or one record (fetchOpportunity's `data`).
 */
function recordsIn(document: unknown): unknown[] {
  if (Array.isArray(document)) return document;
  if (!isObject(document)) return [document];
  const data = document.data;
  for (const list of [document.opportunitiesData, document.oppHits, document.results, document.items, isObject(data) ? data.oppHits : undefined, data]) {
    if (Array.isArray(list)) return list;
  }
  const hits = isObject(document.hits) ? document.hits.hits : undefined;
  if (Array.isArray(hits)) return hits.map((hit) => (isObject(hit) && isObject(hit._source) ? { _id: hit._id, ...hit._source } : hit));
  if (isObject(data)) return [data];
  return [document];
}

/** A JSON document: read whole (API responses and exports are small next to memory), then unwrapped. */
export async function* jsonDocumentRecords(path: string, label: string, onBytes: (bytes: number) => void): AsyncIterable<SourceItem> {
  const text = await readFile(path, 'utf8');
  onBytes(Buffer.byteLength(text));
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    yield { location: label, error: `malformed JSON: ${(error as Error).message}; no record of the file was read` };
    return;
  }
  let index = 0;
  for (const value of recordsIn(document)) {
    const location = `${label}#${index++}`;
    yield isObject(value) ? { location, record: value } : { location, error: 'not a JSON object' };
  }
}
