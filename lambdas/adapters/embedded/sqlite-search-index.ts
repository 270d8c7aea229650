import Database from 'better-sqlite3';
import { US_STATE_CODES, geographyLevelOf, type StateCode } from '../../core/geo';
import type { ListQuery, OpportunityFilters, SortField } from '../../core/query/list-query';
import type { AnyRecord, Contract, Funder, Grant, RecordByKind, ResourceKind } from '../../core/records';
import { keywordTerms } from '../../core/text';
import type { IndexPage, SearchIndex } from '../../ports/search-index';
import { QueryCache } from './query-cache';

/**
 * The embedded search index: SQLite with FTS5 (BM25, title weighted above description) for local
 * mode and tests. Each kind has a narrow row table for filters and sorts, a doc table holding the
 * public JSON, and a contentless FTS table sharing their rowid.
 */

const SCHEMA_VERSION = 3;
const TEXT_WEIGHTS = { title: 3.0, body: 1.0 } as const;

type Sql = { where: string[]; params: unknown[] };
/** A query's parts: the FTS5 expression (searches only) and the filter conditions on the row table `r`. */
type QueryPlan = { kind: ResourceKind; match: string | null; filters: Sql; key: string };

const STATE_BIT: ReadonlyMap<string, number> = new Map(US_STATE_CODES.map((code, i) => [code, i]));

/** 56 codes do not fit one 53-bit JS integer, so the set is split into two 32-bit masks. */
function stateMasks(states: readonly string[]): [number, number] {
  let lo = 0;
  let hi = 0;
  for (const code of states) {
    const bit = STATE_BIT.get(code);
    if (bit === undefined) continue;
    if (bit < 32) lo |= 1 << bit;
    else hi |= 1 << (bit - 32);
  }
  return [lo >>> 0, hi >>> 0];
}

const OPPORTUNITY_SORT_COLUMNS: Partial<Record<SortField, string>> = {
  created_at: 'created_at', deadline_date: 'deadline_date', amount_min: 'amount_min', amount_max: 'amount_max', title: 'title COLLATE NOCASE',
};
const SORT_COLUMNS: Record<ResourceKind, Partial<Record<SortField, string>>> = {
  grant: OPPORTUNITY_SORT_COLUMNS,
  contract: OPPORTUNITY_SORT_COLUMNS,
  funder: { name: 'name COLLATE NOCASE', created_at: 'created_at' },
};
// Columns that can be null get a (col IS NULL, col, id) index so "nulls last" in ascending order is an index walk.
const NULLABLE_SORT_COLUMNS = new Set(['deadline_date', 'amount_min', 'amount_max']);

function opportunityDdl(kind: 'grant' | 'contract'): string[] {
  const t = `${kind}_rows`;
  const ddl = [
    `CREATE TABLE ${t} (
      rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, title TEXT NOT NULL, created_at TEXT NOT NULL,
      deadline_date TEXT, amount_min REAL, amount_max REAL, status TEXT NOT NULL, awarded INTEGER NOT NULL,
      categories TEXT NOT NULL, states_lo INTEGER NOT NULL, states_hi INTEGER NOT NULL, national INTEGER NOT NULL,
      geo_level TEXT NOT NULL, geography TEXT, naics TEXT, set_aside TEXT)`,
    `CREATE TABLE ${kind}_docs (rowid INTEGER PRIMARY KEY, doc TEXT NOT NULL)`,
    `CREATE VIRTUAL TABLE ${kind}_fts USING fts5(title, body, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')`,
    `CREATE INDEX ${t}_created ON ${t}(created_at, id)`,
    `CREATE INDEX ${t}_title ON ${t}(title COLLATE NOCASE, id)`,
    // The default listing (open, newest first) and the deadline-window listing walk these in order.
    `CREATE INDEX ${t}_open_created ON ${t}(awarded, created_at, id)`,
    `CREATE INDEX ${t}_open_deadline ON ${t}(awarded, deadline_date, id, national, states_lo, states_hi)`,
  ];
  for (const col of NULLABLE_SORT_COLUMNS) {
    ddl.push(`CREATE INDEX ${t}_${col} ON ${t}(${col}, id)`);
    ddl.push(`CREATE INDEX ${t}_${col}_nulls_last ON ${t}((${col} IS NULL), ${col}, id)`);
  }
  if (kind === 'contract') ddl.push(`CREATE INDEX ${t}_naics ON ${t}(naics)`);
  return ddl;
}

function funderDdl(): string[] {
  return [
    `CREATE TABLE funder_rows (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, created_at TEXT NOT NULL)`,
    `CREATE TABLE funder_docs (rowid INTEGER PRIMARY KEY, doc TEXT NOT NULL)`,
    `CREATE VIRTUAL TABLE funder_fts USING fts5(title, body, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')`,
    `CREATE INDEX funder_rows_name ON funder_rows(name COLLATE NOCASE, id)`,
    `CREATE INDEX funder_rows_created ON funder_rows(created_at, id)`,
  ];
}

function categoriesKey(categories: readonly string[]): string {
  return `|${categories.map((c) => c.toLowerCase()).join('|')}|`;
}

function opportunityRow(record: Grant | Contract): Record<string, unknown> {
  const [lo, hi] = stateMasks(record.states);
  return {
    id: record.id,
    title: record.title,
    created_at: record.created_at,
    deadline_date: record.deadline_date,
    amount_min: record.amount_min,
    amount_max: record.amount_max,
    status: record.status,
    awarded: record.opportunity_type === 'awarded' ? 1 : 0,
    categories: categoriesKey(record.categories),
    states_lo: lo,
    states_hi: hi,
    national: record.states.length === 0 ? 1 : 0,
    geo_level: geographyLevelOf(record.states, record.geography),
    geography: record.geography,
    naics: 'naics' in record ? record.naics : null,
    set_aside: 'set_aside_code' in record && record.set_aside_code ? record.set_aside_code.toUpperCase() : null,
  };
}

function stateCondition(states: readonly StateCode[], sql: Sql, alsoNational: boolean): string {
  const [lo, hi] = stateMasks(states);
  sql.params.push(lo, hi);
  const specific = '((r.states_lo & ?) != 0 OR (r.states_hi & ?) != 0)';
  return alsoNational ? `(r.national = 1 OR ${specific})` : specific;
}

function filterSql(f: OpportunityFilters, today: string, sql: Sql): void {
  const { where, params } = sql;
  if (f.opportunityType !== 'all') where.push(`r.awarded = ${f.opportunityType === 'awarded' ? 1 : 0}`);
  if (f.status) {
    const parts = f.status.map((clause) => {
      params.push(clause.stored);
      if (clause.deadline === 'not_past') {
        params.push(today);
        return '(r.status = ? AND (r.deadline_date IS NULL OR r.deadline_date >= ?))';
      }
      if (clause.deadline === 'past') {
        params.push(today);
        return '(r.status = ? AND r.deadline_date < ?)';
      }
      return '(r.status = ?)';
    });
    where.push(`(${parts.join(' OR ')})`);
  }
  if (f.category) {
    where.push('instr(r.categories, ?) > 0');
    params.push(`|${f.category.toLowerCase()}|`);
  }
  if (f.states) where.push(stateCondition(f.states, sql, f.includeNational));
  if (f.geography?.level) {
    where.push('r.geo_level = ?');
    params.push(f.geography.level);
  } else if (f.geography?.states) {
    where.push(stateCondition(f.geography.states, sql, false));
  } else if (f.geography?.text) {
    where.push('instr(lower(r.geography), ?) > 0');
    params.push(f.geography.text.toLowerCase());
  }
  if (f.deadlineAfter) {
    where.push('r.deadline_date > ?');
    params.push(f.deadlineAfter);
  }
  if (f.deadlineBefore) {
    where.push('r.deadline_date < ?');
    params.push(f.deadlineBefore);
  }
  if (f.createdFrom) {
    where.push('r.created_at >= ?');
    params.push(f.createdFrom);
  }
  if (f.minAmount !== undefined) {
    where.push('r.amount_max >= ?');
    params.push(f.minAmount);
  }
  if (f.maxAmount !== undefined) {
    where.push('r.amount_min <= ?');
    params.push(f.maxAmount);
  }
  if (f.naics) {
    where.push(`(${f.naics.map(() => 'substr(r.naics, 1, ?) = ?').join(' OR ')})`);
    for (const code of f.naics) params.push(code.length, code);
  }
  if (f.setAside) {
    where.push(`r.set_aside IN (${f.setAside.map(() => '?').join(', ')})`);
    params.push(...f.setAside);
  }
}

/** Whether the filters already drop records whose sort column is null (so no nulls-last key is needed). */
function excludesNulls(column: string, f: OpportunityFilters | null): boolean {
  if (!f) return false;
  if (column === 'deadline_date') return f.deadlineAfter !== undefined || f.deadlineBefore !== undefined;
  if (column === 'amount_max') return f.minAmount !== undefined;
  if (column === 'amount_min') return f.maxAmount !== undefined;
  return false;
}

function orderSql(kind: ResourceKind, query: ListQuery): string {
  const { field, order } = query.sort;
  // The score comes from rankedMatches' subquery; BM25 is lower for better matches.
  if (field === 'relevance') return order === 'desc' ? 'f.score ASC, r.id ASC' : 'f.score DESC, r.id DESC';
  const column = SORT_COLUMNS[kind][field];
  if (!column) throw new Error(`no sort column for ${kind}.${field}`);
  // SQLite sorts nulls first ascending and last descending; ascending needs them moved last.
  if (order === 'desc') return `r.${column} DESC, r.id DESC`;
  const bare = column.split(' ')[0];
  // Without the extra key the planner can walk an index in order and stop after one page.
  const nullsPossible = NULLABLE_SORT_COLUMNS.has(bare!) && !excludesNulls(bare!, query.filters);
  return nullsPossible ? `(r.${bare} IS NULL), r.${column} ASC, r.id ASC` : `r.${column} ASC, r.id ASC`;
}

export interface SqliteSearchIndexOptions {
  /** A file path, or ':memory:'. */
  filename: string;
}

export class SqliteSearchIndex implements SearchIndex {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly counts = new QueryCache<number>(1000);
  private readonly pages = new QueryCache<number[]>(1000);
  // Ranked lists hold every match (up to 4 bytes a record), so far fewer of them are kept.
  private readonly rankings = new QueryCache<Int32Array>(64);
  /** True when the index was just (re)created empty and must be filled from the record store. */
  wasCreated = false;

  constructor(options: SqliteSearchIndexOptions) {
    this.db = new Database(options.filename);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('temp_store = MEMORY');
    this.db.pragma('cache_size = -131072');
    this.db.pragma('mmap_size = 536870912');
    this.ensureSchema();
  }

  private ensureSchema(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version === SCHEMA_VERSION) return;
    const drop = this.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%_fts_%'`).all() as { name: string }[];
    this.db.transaction(() => {
      for (const { name } of drop) this.db.exec(`DROP TABLE IF EXISTS "${name}"`);
      for (const stmt of [...opportunityDdl('grant'), ...opportunityDdl('contract'), ...funderDdl()]) this.db.exec(stmt);
      this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
    })();
    this.wasCreated = true;
  }

  private statement(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  async query<K extends ResourceKind>(kind: K, query: ListQuery & { kind: K }): Promise<IndexPage<K>> {
    const plan = this.plan(kind, query);
    if (!plan) return { total: 0, results: [] };
    const order = orderSql(kind, query);
    if (query.sort.field === 'relevance' && !query.countOnly) {
      const ranked = this.rankedMatches(plan, order);
      return { total: ranked.length, results: this.readDocs(kind, ranked.subarray(query.offset, query.offset + query.limit)) };
    }
    const total = this.countMatches(plan);
    if (query.countOnly || total <= query.offset) return { total, results: [] };
    return { total, results: this.readDocs(kind, this.pageOfMatches(plan, order, query.limit, query.offset)) };
  }

  /** The parts of a query, or null when its search text has no word to match. */
  private plan(kind: ResourceKind, query: ListQuery): QueryPlan | null {
    let match: string | null = null;
    if (query.search) {
      if (query.search.mode !== 'keyword') throw new Error(`search mode ${query.search.mode} is not supported by this index`);
      const terms = keywordTerms(query.search.text);
      if (terms.length === 0) return null;
      match = terms.map((t) => `"${t}"`).join(' ');
    }
    const filters: Sql = { where: [], params: [] };
    if (query.filters) filterSql(query.filters, query.today, filters);
    return { kind, match, filters, key: JSON.stringify([kind, match, filters]) };
  }

  /** FROM ... WHERE ... over the row table, joined to the text match when there is one. */
  private matching(plan: QueryPlan): { sql: string; params: unknown[] } {
    const where = [...plan.filters.where];
    const params = [...plan.filters.params];
    let from = `${plan.kind}_rows r`;
    if (plan.match !== null) {
      // CROSS JOIN keeps the text match as the outer loop; otherwise SQLite may walk a sort or
      // date index and run the match row by row.
      from = `${plan.kind}_fts CROSS JOIN ${plan.kind}_rows r ON r.rowid = ${plan.kind}_fts.rowid`;
      where.unshift(`${plan.kind}_fts MATCH ?`);
      params.unshift(plan.match);
    }
    return { sql: `FROM ${from}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`, params };
  }

  private countMatches(plan: QueryPlan): number {
    let total = this.counts.get(plan.key);
    if (total === undefined) {
      const { sql, params } = this.matching(plan);
      total = this.statement(`SELECT count(*) ${sql}`).pluck().get(...params) as number;
      this.counts.set(plan.key, total);
    }
    return total;
  }

  /**
   * Rowids of one page. Rows are ordered and cut before any document is read: sorting rows that
   * carry their JSON would drag every match's document through the sorter.
   */
  private pageOfMatches(plan: QueryPlan, order: string, limit: number, offset: number): number[] {
    const key = JSON.stringify([plan.key, order, limit, offset]);
    let rowids = this.pages.get(key);
    if (rowids === undefined) {
      const { sql, params } = this.matching(plan);
      rowids = this.statement(`SELECT r.rowid ${sql} ORDER BY ${order} LIMIT ? OFFSET ?`).pluck().all(...params, limit, offset) as number[];
      this.pages.set(key, rowids);
    }
    return rowids;
  }

  /**
   * Every match of a search in relevance order. BM25 must score every match anyway to find the
   * best 20, so one pass yields the total too, and later pages of the same search are slices.
   * Scoring inside a subquery over the FTS table alone is about a third faster than scoring
   * rows of the join.
   */
  private rankedMatches(plan: QueryPlan, order: string): Int32Array {
    const key = JSON.stringify([plan.key, order]);
    let ranked = this.rankings.get(key);
    if (ranked === undefined) {
      const { kind, filters } = plan;
      const scored = `(SELECT rowid, bm25(${kind}_fts, ${TEXT_WEIGHTS.title}, ${TEXT_WEIGHTS.body}) AS score FROM ${kind}_fts WHERE ${kind}_fts MATCH ?) f`;
      const where = filters.where.length > 0 ? `WHERE ${filters.where.join(' AND ')}` : '';
      const rowids = this.statement(`SELECT r.rowid FROM ${scored} CROSS JOIN ${kind}_rows r ON r.rowid = f.rowid ${where} ORDER BY ${order}`)
        .pluck()
        .all(plan.match, ...filters.params) as number[];
      ranked = Int32Array.from(rowids);
      this.rankings.set(key, ranked);
      this.counts.set(plan.key, ranked.length);
    }
    return ranked;
  }

  private readDocs<K extends ResourceKind>(kind: K, rowids: ArrayLike<number>): RecordByKind[K][] {
    const readDoc = this.statement(`SELECT doc FROM ${kind}_docs WHERE rowid = ?`).pluck();
    return Array.from(rowids, (rowid) => JSON.parse(readDoc.get(rowid) as string) as RecordByKind[K]);
  }

  async upsert<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][]): Promise<void> {
    const first = records[0];
    if (!first) return;
    const columns = kind === 'funder' ? ['id', 'name', 'created_at'] : Object.keys(opportunityRow(first as Grant));
    const upsertRow = this.statement(
      `INSERT INTO ${kind}_rows (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})
       ON CONFLICT(id) DO UPDATE SET ${columns.filter((c) => c !== 'id').map((c) => `${c} = excluded.${c}`).join(', ')}
       RETURNING rowid`,
    );
    const putDoc = this.statement(`INSERT OR REPLACE INTO ${kind}_docs (rowid, doc) VALUES (?, ?)`);
    const dropText = this.statement(`DELETE FROM ${kind}_fts WHERE rowid = ?`);
    const putText = this.statement(`INSERT INTO ${kind}_fts (rowid, title, body) VALUES (?, ?, ?)`);
    this.invalidateCaches();
    this.db.transaction(() => {
      for (const record of records as readonly AnyRecord[]) {
        const row = kind === 'funder'
          ? { id: record.id, name: (record as Funder).name, created_at: record.created_at }
          : opportunityRow(record as Grant | Contract);
        const { rowid } = upsertRow.get(row) as { rowid: number };
        putDoc.run(rowid, JSON.stringify(record));
        dropText.run(rowid);
        if (kind === 'funder') putText.run(rowid, (record as Funder).name, (record as Funder).summary ?? '');
        else putText.run(rowid, (record as Grant).title, (record as Grant).description);
      }
    })();
  }

  async remove(kind: ResourceKind, ids: readonly string[]): Promise<void> {
    const find = this.statement(`SELECT rowid FROM ${kind}_rows WHERE id = ?`);
    this.invalidateCaches();
    this.db.transaction(() => {
      for (const id of ids) {
        const row = find.get(id) as { rowid: number } | undefined;
        if (!row) continue;
        for (const table of ['rows', 'docs', 'fts']) this.statement(`DELETE FROM ${kind}_${table} WHERE rowid = ?`).run(row.rowid);
      }
    })();
  }

  private invalidateCaches(): void {
    this.counts.clear();
    this.pages.clear();
    this.rankings.clear();
  }

  close(): void {
    this.db.close();
  }
}
