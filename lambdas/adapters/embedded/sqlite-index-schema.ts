import type Database from 'better-sqlite3';
import { geographyLevelOf, US_STATE_CODES } from '../../core/geo';
import { liveUntil } from '../../core/query/applyable';
import type { SortField } from '../../core/query/list-query';
import { APPLICANT_TYPES, type ApplicantType, type Contract, type Funder, type Grant, type RecordByKind, type ResourceKind } from '../../core/records';
import { KEYWORD_FIELDS, keywordFieldsOf } from '../../core/search/keyword-fields';
import { sameSpace, VectorSpaceMismatch } from '../../core/search/vector-space';
import type { VectorSpace } from '../../ports/embedder';
import { DECLARED_COLUMNS, declaredColumnValues } from './declared-columns';

/**
 * The embedded index's tables. Each kind has a narrow row table for filters and sorts, a doc
 * table holding the public JSON, a contentless FTS5 table and a vector table, all sharing the
 * rowid. A new SCHEMA_VERSION, or a change in the declared filters' columns (a filter added to
 * filter-registry.ts), drops and rebuilds the index from the record store.
 */
export const SCHEMA_VERSION = 11;

/** The row columns of the opportunity kinds before the declared filters' (declared-columns.ts), which add those these lack. */
const OPPORTUNITY_COLUMNS = [
  'rowid INTEGER PRIMARY KEY',
  'id TEXT NOT NULL UNIQUE',
  'title TEXT NOT NULL',
  'created_at TEXT NOT NULL',
  'deadline_date TEXT',
  'live_until TEXT NOT NULL',
  'amount_min REAL',
  'amount_max REAL',
  'status TEXT NOT NULL',
  'awarded INTEGER NOT NULL',
  'states_lo INTEGER NOT NULL',
  'states_hi INTEGER NOT NULL',
  'national INTEGER NOT NULL',
  'geo_level TEXT NOT NULL',
  'geography TEXT',
  'applicants INTEGER NOT NULL',
  'requires_501c3 INTEGER',
  'funder_name TEXT NOT NULL',
  'funder_id TEXT NOT NULL',
  'category_names TEXT NOT NULL',
];
const OPPORTUNITY_COLUMN_NAMES = new Set(OPPORTUNITY_COLUMNS.map((definition) => definition.split(' ')[0]!));
const ROW_COLUMNS = [
  ...OPPORTUNITY_COLUMNS,
  ...DECLARED_COLUMNS.filter((column) => !OPPORTUNITY_COLUMN_NAMES.has(column.name)).map((column) => `${column.name} ${column.sqlType}`),
];

/**
 * live_until of a record nothing ends: a day after any `today`, so liveness is one range test
 * (`live_until >= today`) that an index can answer, with no IS NULL branch.
 */
export const LIVE_FOREVER = '9999-12-31';

/** The FTS5 columns, in order (keyword-fields.ts KEYWORD_FIELDS): bm25() takes one weight per column in this order. */
export const TEXT_COLUMNS = KEYWORD_FIELDS;

const STATE_BIT: ReadonlyMap<string, number> = new Map(US_STATE_CODES.map((code, i) => [code, i]));

/** 56 codes do not fit one 53-bit JS integer, so the set is split into two 32-bit masks. */
export function stateMasks(states: readonly string[]): [number, number] {
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
  created_at: 'created_at',
  deadline_date: 'deadline_date',
  amount_min: 'amount_min',
  amount_max: 'amount_max',
  title: 'title COLLATE NOCASE',
};
export const SORT_COLUMNS: Record<ResourceKind, Partial<Record<SortField, string>>> = {
  grant: OPPORTUNITY_SORT_COLUMNS,
  contract: OPPORTUNITY_SORT_COLUMNS,
  funder: { name: 'name COLLATE NOCASE', created_at: 'created_at' },
};
// Columns that can be null get a (col IS NULL, col, id) index so "nulls last" in ascending order is an index walk.
export const NULLABLE_SORT_COLUMNS = new Set(['deadline_date', 'amount_min', 'amount_max']);

const FTS_TABLE = (kind: ResourceKind) =>
  `CREATE VIRTUAL TABLE ${kind}_fts USING fts5(${TEXT_COLUMNS.join(', ')}, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')`;

function opportunityDdl(kind: 'grant' | 'contract'): string[] {
  const t = `${kind}_rows`;
  const ddl = [
    `CREATE TABLE ${t} (${ROW_COLUMNS.join(', ')})`,
    `CREATE TABLE ${kind}_docs (rowid INTEGER PRIMARY KEY, doc TEXT NOT NULL)`,
    `CREATE TABLE ${kind}_vectors (rowid INTEGER PRIMARY KEY, vector BLOB NOT NULL)`,
    FTS_TABLE(kind),
    ...keywordDdl(kind),
    `CREATE INDEX ${t}_created ON ${t}(created_at, id)`,
    `CREATE INDEX ${t}_title ON ${t}(title COLLATE NOCASE, id)`,
    // The default listing (open, newest first) and the deadline-window listing walk these in order;
    // they also hold the columns of the liveness and state tests, so neither reads the table to count.
    `CREATE INDEX ${t}_open_created ON ${t}(awarded, created_at, id, status, live_until)`,
    `CREATE INDEX ${t}_open_deadline ON ${t}(awarded, deadline_date, id, national, states_lo, states_hi, status, live_until)`,
  ];
  for (const col of NULLABLE_SORT_COLUMNS) {
    ddl.push(`CREATE INDEX ${t}_${col} ON ${t}(${col}, id)`);
    ddl.push(`CREATE INDEX ${t}_${col}_nulls_last ON ${t}((${col} IS NULL), ${col}, id)`);
  }
  if (kind === 'contract') ddl.push(`CREATE INDEX ${t}_naics ON ${t}(naics)`);
  return ddl;
}

/**
 * Each record's identifier keys (identifiers.ts), by key, for exact lookups; its keyword fields'
 * lengths (field-lengths.ts); and FTS5's instance vocabulary, which reads each word's frequency
 * in each field of each record (sqlite-keyword-match.ts).
 */
function keywordDdl(kind: ResourceKind): string[] {
  return [
    `CREATE TABLE ${kind}_lengths (rowid INTEGER PRIMARY KEY, ${KEYWORD_FIELDS.map((field) => `${field} INTEGER NOT NULL`).join(', ')})`,
    `CREATE VIRTUAL TABLE ${kind}_vocab USING fts5vocab(${kind}_fts, instance)`,
    `CREATE TABLE ${kind}_identifiers (key TEXT NOT NULL, field TEXT NOT NULL, rowid INTEGER NOT NULL)`,
    `CREATE INDEX ${kind}_identifiers_key ON ${kind}_identifiers(key)`,
    `CREATE INDEX ${kind}_identifiers_rowid ON ${kind}_identifiers(rowid)`,
  ];
}

function funderDdl(): string[] {
  return [
    `CREATE TABLE funder_rows (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, created_at TEXT NOT NULL)`,
    `CREATE TABLE funder_docs (rowid INTEGER PRIMARY KEY, doc TEXT NOT NULL)`,
    `CREATE TABLE funder_vectors (rowid INTEGER PRIMARY KEY, vector BLOB NOT NULL)`,
    FTS_TABLE('funder'),
    ...keywordDdl('funder'),
    `CREATE INDEX funder_rows_name ON funder_rows(name COLLATE NOCASE, id)`,
    `CREATE INDEX funder_rows_created ON funder_rows(created_at, id)`,
  ];
}

export function schemaDdl(): string[] {
  return [...opportunityDdl('grant'), ...opportunityDdl('contract'), ...funderDdl()];
}

/** Eligible applicant types as a bitmask by position in APPLICANT_TYPES; 0 when the source does not say. */
export function applicantMask(types: readonly ApplicantType[]): number {
  let mask = 0;
  for (const type of types) mask |= 1 << APPLICANT_TYPES.indexOf(type);
  return mask;
}

export function opportunityRow(record: Grant | Contract): Record<string, unknown> {
  const [lo, hi] = stateMasks(record.states);
  return {
    id: record.id,
    title: record.title,
    created_at: record.created_at,
    deadline_date: record.deadline_date,
    live_until: liveUntil(record) ?? LIVE_FOREVER,
    amount_min: record.amount_min,
    amount_max: record.amount_max,
    status: record.status,
    awarded: record.opportunity_type === 'awarded' ? 1 : 0,
    states_lo: lo,
    states_hi: hi,
    national: record.states.length === 0 ? 1 : 0,
    geo_level: geographyLevelOf(record.states, record.geography),
    geography: record.geography,
    applicants: 'eligible_applicants' in record ? applicantMask(record.eligible_applicants) : 0,
    requires_501c3: 'requires_501c3' in record && record.requires_501c3 !== null ? Number(record.requires_501c3) : null,
    // Read by the facets only (facet-columns.ts).
    funder_name: record.funder_name,
    funder_id: record.funder_id,
    category_names: JSON.stringify(record.categories),
    // The declared filters' columns: a field such as created_at that is a column above too holds the same value.
    ...declaredColumnValues(record),
  };
}

export function funderRow(record: Funder): Record<string, unknown> {
  return { id: record.id, name: record.name, created_at: record.created_at };
}

/** The searched text of a record, one value per TEXT_COLUMNS entry (keyword-fields.ts). */
export function textColumnsOf(kind: ResourceKind, record: Grant | Contract | Funder): string[] {
  const fields = keywordFieldsOf(kind, record as RecordByKind[typeof kind]);
  return TEXT_COLUMNS.map((column) => fields[column]);
}

/**
 * Makes the index file's tables those of SCHEMA_VERSION, for vectors of `space`: an older schema is
 * dropped and created empty (true: fill it from the record store); an index of another vector
 * space is refused (VectorSpaceMismatch), since its vectors cannot be compared with the queries'.
 */
export function ensureIndexSchema(db: Database.Database, space: VectorSpace, filename: string): boolean {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version === SCHEMA_VERSION && storedMeta(db, 'row_columns') === ROW_COLUMNS_META) {
    const stored = db.prepare(`SELECT value FROM index_meta WHERE key = 'vector_space'`).pluck().get() as string | undefined;
    const found = stored ? (JSON.parse(stored) as VectorSpace) : null;
    if (found && !sameSpace(found, space)) {
      throw new VectorSpaceMismatch(`The local search index (${filename})`, found, space, 'Rebuild it from the record store: npm run admin -- local reindex');
    }
    return false;
  }
  const drop = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%_fts_%'`).all() as {
    name: string;
  }[];
  db.transaction(() => {
    for (const { name } of drop) db.exec(`DROP TABLE IF EXISTS "${name}"`);
    for (const stmt of schemaDdl()) db.exec(stmt);
    db.exec('CREATE TABLE index_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    db.prepare(`INSERT INTO index_meta (key, value) VALUES ('vector_space', ?)`).run(JSON.stringify(space));
    db.prepare(`INSERT INTO index_meta (key, value) VALUES ('row_columns', ?)`).run(ROW_COLUMNS_META);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  })();
  return true;
}

/** The row table's columns as index_meta records them: an index whose columns differ is rebuilt. */
const ROW_COLUMNS_META = JSON.stringify(ROW_COLUMNS);

function storedMeta(db: Database.Database, key: string): string | undefined {
  const table = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'index_meta'`).pluck().get();
  return table ? (db.prepare('SELECT value FROM index_meta WHERE key = ?').pluck().get(key) as string | undefined) : undefined;
}
