import { CSV_EXPORT_LIMITS, csvColumns, csvHeader, csvRow } from '../core/export/csv-export';
import type { ResourceKind } from '../core/records';
import { RECORD_EXAMPLES } from './openapi-examples';

/** The CSV export of the list operations (format=csv), in the OpenAPI document. */

export const CSV_EXPORT_HEADERS = {
  'Content-Disposition': { description: 'CSV only: attachment; filename="<kind>-<date>.csv"', schema: { type: 'string' } },
  'X-Total-Count': { description: 'CSV only: the records the query matches', schema: { type: 'integer' } },
  'X-Export-Rows': {
    description: `CSV only: the records in this file (at most ${CSV_EXPORT_LIMITS.maxRows.toLocaleString('en-US')}, and at most ${CSV_EXPORT_LIMITS.maxBytes / 1_000_000} MB of CSV)`,
    schema: { type: 'integer' },
  },
  'X-Export-Complete': { description: 'CSV only: true when the file holds every record from offset to the end of the result', schema: { type: 'boolean' } },
  'X-Export-Next-Offset': {
    description: 'CSV only, when the file is incomplete and offset paging reaches its end: the offset the next file starts at',
    schema: { type: 'integer' },
  },
  'X-Export-Degraded': {
    description: 'CSV only, when a hybrid search lost its semantic half: why (as meta.degraded_reason in JSON)',
    schema: { type: 'string' },
  },
  'X-Export-Next-Cursor': {
    description:
      'CSV only, when the file is incomplete and ends on a whole page of the index: the cursor the next file starts at (format=csv&cursor=...), at any depth',
    schema: { type: 'string' },
  },
} as const;

export function csvDescription(kind: ResourceKind): string {
  return `RFC 4180 CSV (CRLF line ends), a header row, then one row per record in the list's order. Columns: ${csvColumns(kind, false).join(', ')}, and relevance in semantic and hybrid modes. Arrays are joined with "; "; text starting with =, +, -, @ or a tab is prefixed with an apostrophe so that spreadsheets do not run it.`;
}

export function csvExample(kind: ResourceKind): string {
  const columns = csvColumns(kind, false);
  return csvHeader(columns) + csvRow(columns, RECORD_EXAMPLES[kind] as never);
}
