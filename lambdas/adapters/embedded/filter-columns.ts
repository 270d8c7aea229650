import type { OpportunityFilters } from '../../core/query/list-query';
import { applicantMask, stateMasks } from './sqlite-index-schema';

/**
 * The filter columns of one kind's index rows, held in memory by rowid, so the filters of a search
 * become a mask in one pass over arrays. SQLite scans its row table at about 0.6 µs a row (60-80
 * ms at 100,000 grants, for any filter), which dominated every distinct semantic, keyword and
 * hybrid search; the pass here takes about a millisecond.
 *
 * The conditions are those of filterSql (sqlite-index-filters.ts), evaluated with SQL's meaning:
 * a comparison with a missing value is false, text compares by code unit (every compared value is
 * ASCII: dates, codes, statuses) and lower() folds ASCII letters only. A property test runs both
 * on the same rows and filters (test/integration/filter-columns.test.ts).
 */

/** The columns a row contributes, as opportunityRow() writes them. */
export interface FilterRow {
  created_at: string;
  deadline_date: string | null;
  live_until: string;
  amount_min: number | null;
  amount_max: number | null;
  status: string;
  awarded: number;
  categories: string;
  states_lo: number;
  states_hi: number;
  national: number;
  geo_level: string;
  geography: string | null;
  naics: string | null;
  set_aside: string | null;
  applicants: number;
  requires_501c3: number | null;
}

/** The row columns FilterRow reads, for a SELECT. */
export const FILTER_COLUMNS: readonly (keyof FilterRow)[] = [
  'created_at', 'deadline_date', 'live_until', 'amount_min', 'amount_max', 'status', 'awarded', 'categories',
  'states_lo', 'states_hi', 'national', 'geo_level', 'geography', 'naics', 'set_aside', 'applicants', 'requires_501c3',
];

const asciiLower = (text: string) => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/** An ISO day (YYYY-MM-DD) as the number YYYYMMDD, which orders as the text does. */
const dayNumber = (day: string) => Number(day.slice(0, 4)) * 10_000 + Number(day.slice(5, 7)) * 100 + Number(day.slice(8, 10));

/** One test of a row by rowid; the mask keeps rows that pass them all. */
type RowTest = (rowid: number) => boolean;

type Columns = { [C in keyof FilterRow]: FilterRow[C][] };

/** A status's rule in a filter: which rows of it pass, as bits (ANY = live or not). */
const LIVE = 1;
const NOT_LIVE = 2;
const ANY = LIVE | NOT_LIVE;

export class FilterColumns {
  /** One array per column, indexed by rowid: a pass reads one column, not every row's object. */
  private readonly columns = Object.fromEntries(FILTER_COLUMNS.map((column) => [column, []])) as unknown as Columns;
  /**
   * The columns every search filters on (type, status, liveness, amounts), also as typed arrays,
   * so their passes are tight loops: each search's default filter (open and live) reads them for
   * every row. A missing amount is NaN, which fails every comparison as NULL does in SQL.
   */
  private typed = {
    present: new Uint8Array(0), awarded: new Uint8Array(0), status: new Uint8Array(0), liveUntil: new Int32Array(0),
    amountMin: new Float64Array(0), amountMax: new Float64Array(0),
  };
  /** A small code for each stored status (a handful of words), 1-based. */
  private readonly statusCodes = new Map<string, number>();

  set(rowid: number, row: FilterRow): void {
    if (rowid >= this.typed.present.length) this.grow(Math.max(rowid + 1, this.typed.present.length * 2, 1024));
    for (const column of FILTER_COLUMNS) (this.columns[column] as unknown[])[rowid] = row[column];
    this.columns.geography[rowid] = row.geography === null ? null : asciiLower(row.geography);
    let code = this.statusCodes.get(row.status);
    if (code === undefined) this.statusCodes.set(row.status, (code = this.statusCodes.size + 1));
    const { typed } = this;
    typed.present[rowid] = 1;
    typed.awarded[rowid] = row.awarded;
    typed.status[rowid] = code;
    typed.liveUntil[rowid] = dayNumber(row.live_until);
    typed.amountMin[rowid] = row.amount_min ?? Number.NaN;
    typed.amountMax[rowid] = row.amount_max ?? Number.NaN;
  }

  delete(rowid: number): void {
    if (rowid < this.typed.present.length) this.typed.present[rowid] = 0;
  }

  private grow(capacity: number): void {
    const grown = <T extends Uint8Array | Int32Array | Float64Array>(old: T, make: (n: number) => T): T => {
      const array = make(capacity);
      array.set(old);
      return array;
    };
    const bytes = (n: number) => new Uint8Array(n);
    const numbers = (n: number) => new Float64Array(n);
    const { typed } = this;
    this.typed = {
      present: grown(typed.present, bytes), awarded: grown(typed.awarded, bytes), status: grown(typed.status, bytes),
      liveUntil: grown(typed.liveUntil, (n) => new Int32Array(n)), amountMin: grown(typed.amountMin, numbers), amountMax: grown(typed.amountMax, numbers),
    };
  }

  /** 1 for each rowid whose row passes the filters (every row when there are none). */
  mask(filters: OpportunityFilters | null, today: string): Uint8Array {
    const { present, awarded, status, liveUntil, amountMin, amountMax } = this.typed;
    const mask = present.slice();
    if (!filters) return mask;
    const rows = mask.length;
    if (filters.opportunityType !== 'all') {
      const wanted = filters.opportunityType === 'awarded' ? 1 : 0;
      for (let i = 0; i < rows; i++) if (awarded[i] !== wanted) mask[i] = 0;
    }
    if (filters.status) {
      const rule = new Uint8Array(this.statusCodes.size + 1);
      for (const clause of filters.status) {
        const code = this.statusCodes.get(clause.stored);
        if (code !== undefined) rule[code]! |= clause.live === undefined ? ANY : clause.live ? LIVE : NOT_LIVE;
      }
      const day = dayNumber(today);
      for (let i = 0; i < rows; i++) {
        if (mask[i] === 0) continue;
        const allowed = rule[status[i]!]!;
        if (allowed !== ANY && (allowed & (liveUntil[i]! >= day ? LIVE : NOT_LIVE)) === 0) mask[i] = 0;
      }
    }
    const { minAmount, maxAmount } = filters;
    if (minAmount !== undefined) for (let i = 0; i < rows; i++) if (!(amountMax[i]! >= minAmount)) mask[i] = 0;
    if (maxAmount !== undefined) for (let i = 0; i < rows; i++) if (!(amountMin[i]! <= maxAmount)) mask[i] = 0;
    for (const test of testsOf(filters, this.columns)) {
      for (let i = 0; i < rows; i++) if (mask[i] === 1 && !test(i)) mask[i] = 0;
    }
    return mask;
  }
}

function stateTest(c: Columns, states: readonly string[], alsoNational: boolean): RowTest {
  const [lo, hi] = stateMasks(states);
  return (i) => (alsoNational && c.national[i] === 1) || (c.states_lo[i]! & lo) !== 0 || (c.states_hi[i]! & hi) !== 0;
}

/** The tests of the filters the typed passes do not cover. */
function testsOf(f: OpportunityFilters, c: Columns): RowTest[] {
  const tests: RowTest[] = [];
  if (f.category) {
    const key = `|${f.category.toLowerCase()}|`;
    tests.push((i) => c.categories[i]!.includes(key));
  }
  if (f.states) tests.push(stateTest(c, f.states, f.includeNational));
  if (f.geography?.level) {
    const level = f.geography.level;
    tests.push((i) => c.geo_level[i] === level);
  } else if (f.geography?.states) {
    tests.push(stateTest(c, f.geography.states, false));
  } else if (f.geography?.text) {
    const text = f.geography.text.toLowerCase();
    tests.push((i) => c.geography[i]?.includes(text) ?? false);
  }
  const { deadlineAfter, deadlineBefore, createdFrom } = f;
  // A null compares as false, as in SQL.
  if (deadlineAfter) tests.push((i) => c.deadline_date[i] != null && c.deadline_date[i]! > deadlineAfter);
  if (deadlineBefore) tests.push((i) => c.deadline_date[i] != null && c.deadline_date[i]! < deadlineBefore);
  if (createdFrom) tests.push((i) => c.created_at[i]! >= createdFrom);
  if (f.naics) {
    const prefixes = f.naics;
    tests.push((i) => {
      const naics = c.naics[i];
      return naics != null && prefixes.some((code) => naics.slice(0, code.length) === code);
    });
  }
  if (f.setAside) {
    const codes = new Set(f.setAside);
    tests.push((i) => c.set_aside[i] != null && codes.has(c.set_aside[i]!));
  }
  if (f.applicant) {
    const bit = applicantMask([f.applicant.type]);
    tests.push((i) => c.applicants[i] === 0 || (c.applicants[i]! & bit) !== 0);
    if (f.applicant.lacks501c3) tests.push((i) => c.requires_501c3[i] == null || c.requires_501c3[i] === 0);
  }
  return tests;
}
