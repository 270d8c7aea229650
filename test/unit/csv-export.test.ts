import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { CSV_EXPORT_LIMITS, csvColumns, csvHeader, csvRow } from '../../lambdas/core/export/csv-export';
import type { ListQuery } from '../../lambdas/core/query/list-query';
import { exportRecords } from '../../lambdas/core/use-cases/export-records';
import type { SearchPorts } from '../../lambdas/core/use-cases/list-records';
import { FUNDER_EXAMPLE, GRANT_EXAMPLE } from '../../lambdas/http/openapi-examples';
import type { IndexPage, SearchIndex } from '../../lambdas/ports/search-index';
import { parseQueryString } from '../support/list-query-strings';

describe('CSV rows', () => {
  it('quote what RFC 4180 needs quoted, double quotes, and end lines with CRLF', () => {
    const columns = csvColumns('funder', false);
    const record = { ...FUNDER_EXAMPLE, name: 'Office of "Rural", Health', summary: 'line one\nline two' };
    const text = csvHeader(columns) + csvRow(columns, record);
    expect(text).toContain('"Office of ""Rural"", Health"');
    expect(text.endsWith('\r\n')).toBe(true);
    const [row] = parse(text, { columns: true }) as Record<string, string>[];
    expect(row).toMatchObject({ name: record.name, summary: record.summary, website: '', source_id: '100151964' });
  });

  it('keep spreadsheets from running text as a formula, and leave numbers alone', () => {
    const columns = csvColumns('grant', true);
    const record = { ...GRANT_EXAMPLE, title: '=HYPERLINK("http://x")', funder_name: '@SUM(1)', geography: '-2+3', amount_min: -5, relevance: 0.75 };
    const [row] = parse(csvHeader(columns) + csvRow(columns, record as never), { columns: true }) as Record<string, string>[];
    expect(row).toMatchObject({
      title: '\'=HYPERLINK("http://x")',
      funder_name: "'@SUM(1)",
      geography: "'-2+3",
      amount_min: '-5',
      relevance: '0.75',
      categories: 'Education; Food and Nutrition; Health',
    });
  });
});

describe('exportRecords', () => {
  /** An index that matches `total` records, each with a title of `titleLength` characters. */
  function portsOver(total: number, titleLength: number, asked: ListQuery[]): SearchPorts {
    const index: SearchIndex = {
      async query(_kind, query) {
        asked.push(query);
        const results = Array.from({ length: Math.max(0, Math.min(query.limit, total - query.offset)) }, (_, i) => ({
          ...GRANT_EXAMPLE,
          id: `id-${query.offset + i}`,
          title: 'x'.repeat(titleLength),
        }));
        return { total, results } as IndexPage<never>;
      },
      upsert: async () => {},
      remove: async () => {},
    };
    return { index, embedder: { space: { embedder: 'none', dimensions: 1 }, embed: async () => [] }, semanticFloor: 0.5 } as unknown as SearchPorts;
  }
  const query = (params: string) => parseQueryString('grant', params, '2026-11-26');

  it('stops at the row cap and says where the next file starts', async () => {
    const asked: ListQuery[] = [];
    const file = await exportRecords(portsOver(25_000, 10, asked), query('format=csv'), CSV_EXPORT_LIMITS.maxRows);
    expect(asked).toHaveLength(1);
    expect(file.resumable?.results).toHaveLength(CSV_EXPORT_LIMITS.maxRows);
    expect(asked[0]).toMatchObject({ limit: CSV_EXPORT_LIMITS.maxRows, offset: 0, countOnly: false });
    expect(file).toMatchObject({ rows: CSV_EXPORT_LIMITS.maxRows, total: 25_000, complete: false, nextOffset: CSV_EXPORT_LIMITS.maxRows });
  });

  it('stops before the byte cap, whole rows only, and asks the index where the rows written end', async () => {
    const asked: ListQuery[] = [];
    const file = await exportRecords(portsOver(9_000, 2_000, asked), query('format=csv'), CSV_EXPORT_LIMITS.maxRows);
    expect(asked.map((q) => q.limit)).toEqual([CSV_EXPORT_LIMITS.maxRows, file.rows]);
    expect(file.resumable?.results).toHaveLength(file.rows);
    expect(Buffer.byteLength(file.body)).toBeLessThanOrEqual(CSV_EXPORT_LIMITS.maxBytes);
    expect(file.rows).toBeGreaterThan(2_000);
    expect(file.rows).toBeLessThan(9_000);
    expect(file.complete).toBe(false);
    expect(file.nextOffset).toBe(file.rows);
    expect((parse(file.body, { columns: true }) as unknown[]).length).toBe(file.rows);
  });

  it('never asks the index past the offset window, and offers no next offset beyond it', async () => {
    const asked: ListQuery[] = [];
    const file = await exportRecords(portsOver(50_000, 10, asked), query('format=csv&offset=9000'), CSV_EXPORT_LIMITS.maxRows);
    expect(asked[0]).toMatchObject({ offset: 9_000, limit: 1_100 });
    expect(file).toMatchObject({ rows: 1_100, complete: false });
    expect(file.nextOffset).toBeUndefined();
  });

  it('is complete when the result ends in it', async () => {
    const file = await exportRecords(portsOver(42, 10, []), query('format=csv&offset=2'), 100);
    expect(file).toMatchObject({ rows: 40, total: 42, complete: true });
    expect(file.nextOffset).toBeUndefined();
  });
});
