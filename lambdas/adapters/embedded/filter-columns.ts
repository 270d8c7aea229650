import type { OpportunityFilters } from '../../core/query/list-query';
import { DECLARED_COLUMNS } from './declared-columns';
import { DeclaredFilterColumns, dayNumber, type RowTest } from './declared-filter-columns';
import { andInto, bytesOf, clearBit, forEachSet, grownBitmap, keepWhere, orInto, type RowBitmap, setBit, wordsFor } from './row-bitmap';
import { applicantMask, stateMasks } from './sqlite-index-schema';

export { dayNumber } from './declared-filter-columns';

/**
 * The filter columns of one kind's index rows, held in memory by rowid, so the filters of a search
 * become a mask from bitmaps: kept as rows are written for the values with few choices, from range
 * indexes for the declared ranges over numbers and dates (declared-filter-columns.ts), and per-row
 * tests for the rest. SQLite scanned its row table row by row for any filter.
 *
 * The conditions are those of filterSql (sqlite-index-filters.ts), evaluated with SQL's meaning:
 * a comparison with a missing value is false, text compares by code unit (every compared value is
 * ASCII: dates, codes, statuses) and lower() folds ASCII letters only. A property test runs both
 * on the same rows and filters (test/unit/filter-columns.test.ts).
 */

/** The columns a row contributes, as opportunityRow() writes them: the explicit filters' below, the declared filters' (declared-columns.ts) by name. */
export interface FilterRow {
  live_until: string;
  status: string;
  awarded: number;
  states_lo: number;
  states_hi: number;
  national: number;
  geo_level: string;
  geography: string | null;
  applicants: number;
  requires_501c3: number | null;
  [declared: string]: string | number | null;
}

const EXPLICIT_COLUMNS = [
  'live_until',
  'status',
  'awarded',
  'states_lo',
  'states_hi',
  'national',
  'geo_level',
  'geography',
  'applicants',
  'requires_501c3',
] as const;

/** The row columns FilterRow reads, for a SELECT. */
export const FILTER_COLUMNS: readonly string[] = [...EXPLICIT_COLUMNS, ...DECLARED_COLUMNS.map((column) => column.name)];

const asciiLower = (text: string) => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/** The explicit columns only the per-row tests read (testsOf); the others are typed arrays and bitmaps. */
const TESTED_COLUMNS = ['geo_level', 'geography', 'applicants', 'requires_501c3'] as const;
type TestedColumn = (typeof TESTED_COLUMNS)[number];
type Columns = { [C in TestedColumn]: FilterRow[C][] };

/** A status's rule in a filter: which rows of it pass (ANY = live or not). */
const LIVE = 1;
const NOT_LIVE = 2;
const ANY = LIVE | NOT_LIVE;
/** The state mask's bits: 32 in states_lo, 32 in states_hi. */
const STATE_BITS = 64;

export class FilterColumns {
  /** One array per column, indexed by rowid, for the explicit filters a bitmap does not cover (geography, applicants). */
  private readonly columns = Object.fromEntries(TESTED_COLUMNS.map((column) => [column, []])) as unknown as Columns;
  /** The declared filters' columns (declared-columns.ts). */
  private readonly declared = new DeclaredFilterColumns();
  /** Liveness, status and states as typed arrays, for the bitmaps and the day's live rows. */
  private typed = {
    liveUntil: new Int32Array(0),
    status: new Uint8Array(0),
    statesLo: new Int32Array(0),
    statesHi: new Int32Array(0),
  };
  /** The values with few choices as bitmaps, kept as rows are written: a filter on them is word operations. */
  private bits = {
    present: new Uint32Array(0),
    awarded: new Uint32Array(0),
    national: new Uint32Array(0),
    /** By status code. */
    status: [] as RowBitmap[],
    /** By state bit (stateMasks). */
    states: Array.from({ length: STATE_BITS }, () => new Uint32Array(0)),
  };
  private rows = 0;
  /** A small code for each stored status (a handful of words), 1-based. */
  private readonly statusCodes = new Map<string, number>();
  /**
   * One copy of each text value of the columns with few distinct values (a place, a level): each
   * row's read from SQLite is a new string.
   */
  private readonly texts = new Map<string, string>();
  /** Which rows are live on a day: computed once a day (and after a write), as every default search asks. */
  private live: { day: number; bits: RowBitmap } | null = null;

  set(rowid: number, row: FilterRow): void {
    if (rowid >= this.rows) this.grow(Math.max(rowid + 1, this.rows * 2, 1024));
    this.clearBitsOf(rowid);
    this.declared.set(rowid, row);
    for (const column of TESTED_COLUMNS) (this.columns[column] as unknown[])[rowid] = this.shared(row[column]);
    this.columns.geography[rowid] = row.geography === null ? null : this.shared(asciiLower(row.geography));
    let code = this.statusCodes.get(row.status);
    if (code === undefined) this.statusCodes.set(row.status, (code = this.statusCodes.size + 1));
    const { typed, bits } = this;
    typed.status[rowid] = code;
    typed.liveUntil[rowid] = dayNumber(row.live_until);
    typed.statesLo[rowid] = row.states_lo;
    typed.statesHi[rowid] = row.states_hi;
    setBit(bits.present, rowid);
    if (row.awarded === 1) setBit(bits.awarded, rowid);
    if (row.national === 1) setBit(bits.national, rowid);
    setBit((bits.status[code] ??= new Uint32Array(wordsFor(this.rows))), rowid);
    for (let bit = 0; bit < STATE_BITS; bit++) if (hasStateBit(row.states_lo, row.states_hi, bit)) setBit(bits.states[bit]!, rowid);
    // The day's live rows follow the write, rather than a pass over every row at the next search.
    if (this.live) (typed.liveUntil[rowid]! >= this.live.day ? setBit : clearBit)(this.live.bits, rowid);
  }

  private shared<T>(value: T): T {
    if (typeof value !== 'string') return value;
    const known = this.texts.get(value);
    if (known !== undefined) return known as T;
    this.texts.set(value, value);
    return value;
  }

  delete(rowid: number): void {
    if (rowid >= this.rows) return;
    this.clearBitsOf(rowid);
    this.declared.delete();
    if (this.live) clearBit(this.live.bits, rowid);
  }

  /** Takes a row out of every bitmap, by the values it was last set with. */
  private clearBitsOf(rowid: number): void {
    const { bits, typed } = this;
    const word = rowid >>> 5;
    if (((bits.present[word]! >>> (rowid & 31)) & 1) === 0) return;
    clearBit(bits.present, rowid);
    clearBit(bits.awarded, rowid);
    clearBit(bits.national, rowid);
    const code = typed.status[rowid]!;
    if (bits.status[code]) clearBit(bits.status[code], rowid);
    for (let bit = 0; bit < STATE_BITS; bit++) if (hasStateBit(typed.statesLo[rowid]!, typed.statesHi[rowid]!, bit)) clearBit(bits.states[bit]!, rowid);
  }

  private grow(capacity: number): void {
    const grown = <T extends Uint8Array | Int32Array | Float64Array>(old: T, make: (n: number) => T): T => {
      const array = make(capacity);
      array.set(old);
      return array;
    };
    const ints = (n: number) => new Int32Array(n);
    const { typed, bits } = this;
    this.typed = {
      liveUntil: grown(typed.liveUntil, ints),
      status: grown(typed.status, (n) => new Uint8Array(n)),
      statesLo: grown(typed.statesLo, ints),
      statesHi: grown(typed.statesHi, ints),
    };
    this.declared.grow(capacity);
    const words = wordsFor(capacity);
    this.bits = {
      present: grownBitmap(bits.present, words),
      awarded: grownBitmap(bits.awarded, words),
      national: grownBitmap(bits.national, words),
      status: bits.status.map((b) => grownBitmap(b, words)),
      states: bits.states.map((b) => grownBitmap(b, words)),
    };
    this.rows = capacity;
    this.live = null;
  }

  /** 1 for each rowid whose row passes the filters (every row when there are none). */
  mask(filters: OpportunityFilters | null, today: string): Uint8Array {
    return bytesOf(this.maskBits(filters, today), this.rows);
  }

  /** The rows passing the filters, as a bitmap (count it with countBits). */
  maskBits(filters: OpportunityFilters | null, today: string): RowBitmap {
    const { bits } = this;
    const mask = bits.present.slice();
    if (!filters) return mask;
    if (filters.opportunityType !== 'all') andInto(mask, bits.awarded, filters.opportunityType !== 'awarded');
    if (filters.status) andInto(mask, this.statusBits(filters.status, today));
    const declaredTests = this.declared.narrow(mask, bits.present, filters);
    if (filters.states) andInto(mask, this.stateBits(filters.states, filters.includeNational));
    if (!filters.geography?.level && filters.geography?.states) andInto(mask, this.stateBits(filters.geography.states, false));
    for (const test of [...testsOf(filters, this.columns), ...declaredTests]) {
      forEachSet(mask, (rowid) => {
        if (!test(rowid)) clearBit(mask, rowid);
      });
    }
    return mask;
  }

  /** The rows whose status (and liveness) a status filter admits. */
  private statusBits(clauses: NonNullable<OpportunityFilters['status']>, today: string): RowBitmap {
    const rule = new Uint8Array(this.statusCodes.size + 1);
    for (const clause of clauses) {
      const code = this.statusCodes.get(clause.stored);
      if (code !== undefined) rule[code]! |= clause.live === undefined ? ANY : clause.live ? LIVE : NOT_LIVE;
    }
    const allowed = new Uint32Array(wordsFor(this.rows));
    rule.forEach((wanted, code) => {
      const ofStatus = this.bits.status[code];
      if (wanted === 0 || !ofStatus) return;
      const rows = ofStatus.slice();
      if (wanted !== ANY) andInto(rows, this.liveBits(today), wanted === NOT_LIVE);
      orInto(allowed, rows);
    });
    return allowed;
  }

  private liveBits(today: string): RowBitmap {
    const day = dayNumber(today);
    if (this.live?.day !== day) {
      const bits = this.bits.present.slice();
      keepWhere(bits, this.typed.liveUntil, (until) => until >= day);
      this.live = { day, bits };
    }
    return this.live.bits;
  }

  /** The rows naming any of `states`, and with `alsoNational` the national ones. */
  private stateBits(states: readonly string[], alsoNational: boolean): RowBitmap {
    const [lo, hi] = stateMasks(states);
    const rows = new Uint32Array(wordsFor(this.rows));
    for (let bit = 0; bit < STATE_BITS; bit++) if (hasStateBit(lo, hi, bit)) orInto(rows, this.bits.states[bit]);
    if (alsoNational) orInto(rows, this.bits.national);
    return rows;
  }
}

const hasStateBit = (lo: number, hi: number, bit: number) => (bit < 32 ? (lo >>> bit) & 1 : (hi >>> (bit - 32)) & 1) === 1;

/** The tests of the explicit filters the bitmaps do not cover. */
function testsOf(f: OpportunityFilters, c: Columns): RowTest[] {
  const tests: RowTest[] = [];
  // States come from bitmaps in maskBits(), the declared filters from their own columns.
  if (f.geography?.level) {
    const level = f.geography.level;
    tests.push((i) => c.geo_level[i] === level);
  } else if (f.geography?.text) {
    const text = f.geography.text.toLowerCase();
    tests.push((i) => c.geography[i]?.includes(text) ?? false);
  }
  if (f.applicant) {
    const bit = applicantMask([f.applicant.type]);
    tests.push((i) => c.applicants[i] === 0 || (c.applicants[i]! & bit) !== 0);
    if (f.applicant.lacks501c3) tests.push((i) => c.requires_501c3[i] == null || c.requires_501c3[i] === 0);
  }
  return tests;
}
