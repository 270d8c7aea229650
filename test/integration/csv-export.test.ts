import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../../lambdas/core/export/csv-export';
import { startTestApi, TEST_CATALOGUE, type TestApi } from '../support/api-server';

/**
 * CSV export over real HTTP on the embedded stack: the whole filtered result in the list's order,
 * RFC 4180 that a CSV parser reads back into the records' own values, the download headers, the
 * Accept header, paging a long export, and the 400s.
 */

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({ seed: TEST_CATALOGUE });
});
afterAll(async () => api?.close());

async function exportOf(path: string, headers: Record<string, string> = {}) {
  const res = await api.get(path, { headers });
  expect(res.status, String(res.body).slice(0, 300)).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  const text = res.body as string;
  const rows = parse(text, { columns: true, record_delimiter: '\r\n' }) as Record<string, string>[];
  return { res, text, rows, header: text.slice(0, text.indexOf('\r\n')).split(',') };
}

/** Every id of a JSON list, paged with offsets, in its order. */
async function idsOf(path: string): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await api.get(`${path}${path.includes('?') ? '&' : '?'}limit=100&offset=${offset}`);
    expect(page.status).toBe(200);
    ids.push(...page.body.results.map((r: { id: string }) => r.id));
    if (page.body.results.length < 100) return ids;
  }
}

const cellOf = (value: unknown) => (value === null ? '' : Array.isArray(value) ? value.join('; ') : String(value));

describe('format=csv', () => {
  it("exports the whole filtered result, in the list's order, with the records' own values", async () => {
    const filter = 'status=posted,closed&opportunity_type=all&sort_by=deadline_date&order=asc';
    const { res, rows, header } = await exportOf(`/grants-api?${filter}&format=csv`);
    expect(header).toEqual([...CSV_COLUMNS.grant]);
    const ids = await idsOf(`/grants-api?${filter}`);
    expect(ids.length).toBeGreaterThan(100);
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(res.headers.get('x-total-count')).toBe(String(ids.length));
    expect(res.headers.get('x-export-rows')).toBe(String(ids.length));
    expect(res.headers.get('x-export-complete')).toBe('true');
    expect(res.headers.get('x-export-next-offset')).toBeNull();
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="grants-\d{4}-\d{2}-\d{2}\.csv"$/);
    for (const row of rows.filter((_, i) => i % 97 === 0)) {
      const record = (await api.get(`/grants-api/${row.id}`)).body as Record<string, unknown>;
      for (const column of CSV_COLUMNS.grant) expect(row[column], `${row.id} ${column}`).toBe(cellOf(record[column]).replace(/^([=+\-@\t\r])/, "'$1"));
    }
  });

  it('contracts and funders have their own columns', async () => {
    const contracts = await exportOf('/contracts-api?format=csv');
    expect(contracts.header).toEqual([...CSV_COLUMNS.contract]);
    expect(contracts.rows.map((r) => r.id)).toEqual(await idsOf('/contracts-api'));
    const funders = await exportOf('/funders-api?format=csv&search=health');
    expect(funders.header).toEqual([...CSV_COLUMNS.funder]);
    expect(funders.rows.map((r) => r.id)).toEqual(await idsOf('/funders-api?search=health'));
  });

  it("adds relevance in semantic and hybrid modes, in the list's order", async () => {
    for (const mode of ['semantic', 'hybrid']) {
      const { rows, header } = await exportOf(`/grants-api?search=rural+health+clinics&search_mode=${mode}&format=csv`);
      expect(header.at(-1)).toBe('relevance');
      expect(rows.length).toBeGreaterThan(0);
      const page = await api.get(`/grants-api?search=rural+health+clinics&search_mode=${mode}&limit=100`);
      expect(rows.slice(0, 100).map((r) => [r.id, Number(r.relevance)])).toEqual(
        page.body.results.map((r: { id: string; relevance: number }) => [r.id, r.relevance]),
      );
    }
  });

  it('starts at offset, stops at limit, and says where the next file starts', async () => {
    const ids = await idsOf('/grants-api');
    const { res, rows } = await exportOf('/grants-api?format=csv&offset=10&limit=25');
    expect(rows.map((r) => r.id)).toEqual(ids.slice(10, 35));
    expect(res.headers.get('x-export-complete')).toBe('false');
    expect(res.headers.get('x-export-next-offset')).toBe('35');
    expect(res.headers.get('x-total-count')).toBe(String(ids.length));
  });

  it('is what an Accept header naming text/csv asks for, unless JSON is preferred or format says json', async () => {
    expect((await exportOf('/grants-api?limit=3', { Accept: 'text/csv' })).rows).toHaveLength(3);
    expect((await exportOf('/grants-api?limit=3', { Accept: 'application/json;q=0.5, text/csv' })).rows).toHaveLength(3);
    for (const [path, accept] of [
      ['/grants-api?limit=3', 'application/json, text/csv;q=0.9'],
      ['/grants-api?limit=3&format=json', 'text/csv'],
      ['/grants-api?limit=3', '*/*'],
    ]) {
      const res = await api.get(path!, { headers: { Accept: accept! } });
      expect(res.headers.get('content-type'), `${path} ${accept}`).toBe('application/json; charset=utf-8');
      expect(res.body.results).toHaveLength(3);
    }
  });
});

describe('format: bad input is a 400 naming the field', () => {
  it.each([
    ['/grants-api?format=xml', 'format'],
    ['/grants-api?format=csv&count_only=true', 'format'],
    ['/contracts-api?format=csv&facets=status', 'facets'],
    ['/funders-api?format=', 'format'],
  ])('%s', async (path, field) => {
    const res = await api.get(path);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.body.error.code).toBe('INVALID_PARAMETER');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('an Accept header naming text/csv with count_only or facets gets the JSON answer, as only JSON can give it', async () => {
    for (const path of ['/grants-api?count_only=true', '/grants-api?facets=status&limit=1']) {
      const res = await api.get(path, { headers: { Accept: 'text/csv' } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.body.pagination.total).toBeGreaterThan(0);
    }
  });

  it('list answers vary by Accept', async () => {
    expect((await api.get('/grants-api?limit=1')).headers.get('vary')).toMatch(/\bAccept\b/);
    expect((await api.get('/grants-api?limit=1&format=csv')).headers.get('vary')).toMatch(/\bAccept\b/);
  });
});
