import { CSV_EXPORT_LIMITS, csvColumns, csvHeader, csvRow } from '../export/csv-export';
import { LIMITS, type ListQuery } from '../query/list-query';
import type { ResourceKind } from '../records';
import { type ListOutcome, listRecords, type SearchPorts } from './list-records';

export interface CsvExport<K extends ResourceKind = ResourceKind> {
  body: string;
  /** Records in the file (the header row aside). */
  rows: number;
  /** Records the query matches, from the first. */
  total: number;
  /** Whether the file holds every record from the query's offset to the end of the result. */
  complete: boolean;
  /** Where the next file starts (offset=), when it is incomplete and offset paging reaches there. */
  nextOffset?: number;
  /** Set when a hybrid search lost its semantic half, as in the JSON list. */
  degradedReason?: string;
  /** The index's answer for exactly the rows written, when more follow: a cursor to the next file continues from it. */
  resumable?: ListOutcome<K>;
}

/**
 * The bytes a text takes in the Lambda's response, where the body is a JSON string: quotes and
 * line ends escaped, so a quote-heavy export cannot grow past the limit once encoded.
 */
const encodedSize = (text: string) => Buffer.byteLength(JSON.stringify(text)) - 2;

const PLURAL: Record<ResourceKind, string> = { grant: 'grants', contract: 'contracts', funder: 'funders' };

/** The download's file name: what and when, e.g. grants-2026-11-26.csv. */
export const exportFileName = (kind: ResourceKind, today: string) => `${PLURAL[kind]}-${today}.csv`;

/**
 * The list's result as CSV, from query.offset (or a cursor's position) on, in the list's order: at
 * most `rows` records (CSV_EXPORT_LIMITS.maxRows), as many as fit in CSV_EXPORT_LIMITS.maxBytes,
 * and, paging by offset, none past the offset window (LIMITS.offsetMax + LIMITS.pageMax), which
 * is as deep as offsets reach. `seen` is how many results come before the file (the offset, or
 * what a cursor's walk has returned).
 */
export async function exportRecords<K extends ResourceKind>(
  ports: SearchPorts,
  query: ListQuery & { kind: K },
  rows: number,
  seen = query.offset,
): Promise<CsvExport<K>> {
  const window = query.after ? CSV_EXPORT_LIMITS.maxRows : LIMITS.offsetMax + LIMITS.pageMax - query.offset;
  const limit = Math.max(1, Math.min(rows, CSV_EXPORT_LIMITS.maxRows, window));
  const outcome = await listRecords(ports, { ...query, limit, countOnly: false, facets: undefined });
  const mode = query.search?.mode;
  const columns = csvColumns(query.kind, mode === 'semantic' || mode === 'hybrid');
  const parts = [csvHeader(columns)];
  let bytes = encodedSize(parts[0]!);
  for (const record of outcome.results) {
    const row = csvRow(columns, record);
    bytes += encodedSize(row);
    if (bytes > CSV_EXPORT_LIMITS.maxBytes) break;
    parts.push(row);
  }
  const written = parts.length - 1;
  const end = seen + written;
  const complete = end >= outcome.total;
  // Cut by the byte cap mid-page: the index's position after the last row written, for a cursor to the rest.
  const resumable = complete
    ? undefined
    : written === outcome.results.length
      ? outcome
      : written > 0
        ? await listRecords(ports, { ...query, limit: written, countOnly: false, facets: undefined })
        : undefined;
  return {
    body: parts.join(''),
    rows: written,
    total: outcome.total,
    complete,
    ...(!complete && end <= LIMITS.offsetMax ? { nextOffset: end } : {}),
    ...(outcome.degradedReason ? { degradedReason: outcome.degradedReason } : {}),
    ...(resumable ? { resumable } : {}),
  };
}
