import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../lambdas/adapters/embedded/sqlite-index-schema';
import { SqliteSearchIndex } from '../../lambdas/adapters/embedded/sqlite-search-index';
import { type ListQuery, parseListQuery } from '../../lambdas/core/query/list-query';
import type { Grant } from '../../lambdas/core/records';
import { fixtureGrant } from '../support/record-fixtures';

/**
 * An index file written before the row tables changed (an older SCHEMA_VERSION, or the declared
 * filters' columns of another registry) is rebuilt empty when opened, for the caller to fill from
 * the record store, rather than read with columns it lacks; a current one is kept.
 */

const SPACE = { embedder: 'schema-test', dimensions: 4 };
const TODAY = '2026-11-22';
const FUNDER = '00000000-0000-4000-b000-000000000001';

const grant: Grant = fixtureGrant(1, { title: 'Schema test grant', description: 'A listing.', funder_id: FUNDER, source: 'schema-test' });

const byFunder = (id: string) => parseListQuery('grant', { funder_id: [id], opportunity_type: ['all'] }, TODAY) as ListQuery & { kind: 'grant' };

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

async function indexFile(): Promise<string> {
  dir = mkdtempSync(join(tmpdir(), 'gcf-index-schema-'));
  const file = join(dir, 'index.sqlite');
  const index = new SqliteSearchIndex({ filename: file, space: SPACE });
  expect(index.wasCreated).toBe(true);
  await index.upsert('grant', [grant]);
  index.close();
  return file;
}

describe('the embedded index file schema', () => {
  it('keeps a file of the current schema and its rows', async () => {
    const file = await indexFile();
    const index = new SqliteSearchIndex({ filename: file, space: SPACE });
    expect(index.wasCreated).toBe(false);
    expect((await index.query('grant', byFunder(FUNDER))).total).toBe(1);
    index.close();
  });

  it.each([
    ['an older schema version', (db: Database.Database) => db.pragma(`user_version = ${SCHEMA_VERSION - 1}`)],
    [
      'other declared filter columns (a filter added or removed)',
      (db: Database.Database) => db.prepare(`UPDATE index_meta SET value = '[]' WHERE key = 'row_columns'`).run(),
    ],
    [
      'no record of its columns (written before they were recorded)',
      (db: Database.Database) => db.prepare(`DELETE FROM index_meta WHERE key = 'row_columns'`).run(),
    ],
  ])('rebuilds a file of %s empty, to be filled again, and then filters by the new columns', async (_label, age) => {
    const file = await indexFile();
    const db = new Database(file);
    age(db);
    db.close();
    const index = new SqliteSearchIndex({ filename: file, space: SPACE });
    expect(index.wasCreated).toBe(true);
    expect((await index.query('grant', byFunder(FUNDER))).total).toBe(0);
    await index.upsert('grant', [grant]);
    expect((await index.query('grant', byFunder(FUNDER))).results.map((r) => r.id)).toEqual([grant.id]);
    expect((await index.query('grant', byFunder('00000000-0000-4000-b000-000000000002'))).total).toBe(0);
    index.close();
  });
});
