import { stringify } from 'csv-stringify/sync';
import type { IndexedResult } from '../../ports/search-index';
import { CSV_MAX_ROWS } from '../query/list-query';
import type { ResourceKind } from '../records';

/**
 * CSV export of a list (format=csv): RFC 4180 (comma-separated, CRLF line ends, fields with a
 * comma, quote or line break in double quotes, quotes doubled), one header row, one row per
 * record in the list's order. Every field of the record except the long texts (description,
 * eligibility_evidence), which would take an export of 10,000 grants past what one response may
 * carry; arrays are joined with "; ". Search modes that score add a relevance column.
 */

export const CSV_EXPORT_LIMITS = {
  /** Rows in one export; the rest of the result is reached with offset (or cursor), as the list pages. */
  maxRows: CSV_MAX_ROWS,
  /** Bytes in one export, as its body is sent in the Lambda's JSON response: under the 6 MB synchronous response limit, with room for headers. */
  maxBytes: 5_000_000,
} as const;

const OPPORTUNITY_COLUMNS = [
  'id',
  'title',
  'funder_name',
  'funder_id',
  'status',
  'opportunity_type',
  'deadline_date',
  'archive_date',
  'amount_min',
  'amount_max',
  'categories',
  'states',
  'geography',
  'project_end_date',
  'listing_url',
  'source',
  'source_id',
  'created_at',
] as const;

export const CSV_COLUMNS: Record<ResourceKind, readonly string[]> = {
  grant: [...OPPORTUNITY_COLUMNS, 'eligible_applicants', 'requires_501c3'],
  contract: [...OPPORTUNITY_COLUMNS, 'naics', 'set_aside_code', 'primary_contact_email', 'document_url'],
  funder: ['id', 'name', 'website', 'summary', 'source', 'source_id', 'created_at'],
};

/**
 * A text cell a spreadsheet would run as a formula (starting with =, +, -, @, tab or carriage
 * return) is prefixed with an apostrophe, as OWASP advises against CSV injection from the
 * sources' free text. Numbers and booleans are written as they are.
 */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return cell(value.join('; '));
  if (typeof value !== 'string') return String(value);
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export function csvColumns(kind: ResourceKind, withRelevance: boolean): string[] {
  return [...CSV_COLUMNS[kind], ...(withRelevance ? ['relevance'] : [])];
}

export const csvHeader = (columns: readonly string[]): string => stringify([columns], { record_delimiter: 'windows' });

export function csvRow(columns: readonly string[], record: IndexedResult<ResourceKind>): string {
  const fields = record as unknown as Record<string, unknown>;
  return stringify([columns.map((column) => cell(fields[column]))], { record_delimiter: 'windows' });
}
