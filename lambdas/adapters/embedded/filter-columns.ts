import type { OpportunityFilters } from '../../core/query/list-query';
import { type RangeBound, RangeIndex } from './range-index';
import { andInto, bytesOf, clearBit, forEachSet, grownBitmap, keepWhere, orInto, type RowBitmap, setBit, wordsFor } from './row-bitmap';
import { applicantMask, stateMasks } from './sqlite-index-schema';

/**
 * The filter columns of one kind's index rows, held in memory by rowid, so the filters of a search
 * become a mask from bitmaps: kept as rows are written for the values with few choices, and from
 * a range index (range-index.ts) for the amounts and deadlines; a listing by states and deadline
 * takes about 0.1 ms at 100,000 rows. SQLite scanned its row table at about 0.6 µs a row (60-80
 * ms at 100,000 grants, for any filter).
 *
 * The conditions are those of filterSql (sqlite-index-filters.ts), evaluated with SQL's meaning:
 * a comparison with a missing value is false, text compares by code unit (every compared value is
 * ASCII: dates, codes, statuses) and lower() folds ASCII letters only. A property test runs both
 * on the same rows and filters (test/unit/filter-columns.test.ts).
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
  'created_at',
  'deadline_date',
  'live_until',
  'amount_min',
  'amount_max',
  'status',
  'awarded',
  'categories',
  'states_lo',
  'states_hi',
  'national',
  'geo_level',
  'geography',
  'naics',
  'set_aside',
  'applicants',
  'requires_501c3',
];

const asciiLower = (text: string) => text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/** An ISO day (YYYY-MM-DD) as the number YYYYMMDD, which orders as the text does. */
export const dayNumber = (day: string) => Number(day.slice(0, 4)) * 10_000 + Number(day.slice(5, 7)) * 100 + Number(day.slice(8, 10));

/** One test of a row by rowid; the mask keeps rows that pass them all. */
type RowTest = (rowid: number) => boolean;

/** The columns only the per-row tests read (testsOf); the others are typed arrays and bitmaps. */
const TESTED_COLUMNS = ['categories', 'geo_level', 'geography', 'created_at', 'naics', 'set_aside', 'applicants', 'requires_501c3'] as const;
type TestedColumn = (typeof TESTED_COLUMNS)[number];
type Columns = { [C in TestedColumn]: FilterRow[C][] };

/** A status's rule in a filter: which rows of it pass (ANY = live or not). */
const LIVE = 1;
const NOT_LIVE = 2;
const ANY = LIVE | NOT_LIVE;
/** The state mask's bits: 32 in states_lo, 32 in states_hi. */
const STATE_BITS = 64;

export class FilterColumns {
  /** One array per column, indexed by rowid, for the filters a bitmap does not cover (category, NAICS, ...). */
  private readonly columns = Object.fromEntries(TESTED_COLUMNS.map((column) => [column, []])) as unknown as Columns;
  /**
   * The ordered columns every search bounds (liveness, amounts, deadline) as typed arrays, for
   * the range indexes and their fallback pass. A missing amount is NaN, which fails every
   * comparison as NULL does in SQL; a missing deadline is 0, which fails both of its bounds.
   */
  private typed = {
    liveUntil: new Int32Array(0),
    amountMin: new Float64Array(0),
    amountMax: new Float64Array(0),
    deadline: new Int32Array(0),
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
  /** Range indexes over the bounded columns (range-index.ts); a write makes them stale. */
  private readonly ranges = {
    deadline: new RangeIndex((day) => day !== 0),
    amountMin: new RangeIndex((amount) => !Number.isNaN(amount)),
    amountMax: new RangeIndex((amount) => !Number.isNaN(amount)),
  };
  /**
   * One copy of each text value of the columns with few distinct values (a category list, a place,
   * a NAICS code): each row's read from SQLite is a new string, 15 MB of copies at 100,000 grants.
   */
  private readonly texts = new Map<string, string>();
  /** Which rows are live on a day: computed once a day (and after a write), as every default search asks. */
  private live: { day: number; bits: RowBitmap } | null = null;

  set(rowid: number, row: FilterRow): void {
    if (rowid >= this.rows) this.grow(Math.max(rowid + 1, this.rows * 2, 1024));
    this.clearBitsOf(rowid);
    this.staleRanges();
    for (const column of TESTED_COLUMNS) (this.columns[column] as unknown[])[rowid] = column === 'created_at' ? row[column] : this.shared(row[column]);
    this.columns.geography[rowid] = row.geography === null ? null : this.shared(asciiLower(row.geography));
    let code = this.statusCodes.get(row.status);
    if (code === undefined) this.statusCodes.set(row.status, (code = this.statusCodes.size + 1));
    const { typed, bits } = this;
    typed.status[rowid] = code;
    typed.liveUntil[rowid] = dayNumber(row.live_until);
    typed.amountMin[rowid] = row.amount_min ?? Number.NaN;
    typed.amountMax[rowid] = row.amount_max ?? Number.NaN;
    typed.deadline[rowid] = row.deadline_date === null ? 0 : dayNumber(row.deadline_date);
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
    this.staleRanges();
    if (this.live) clearBit(this.live.bits, rowid);
  }

  private staleRanges(): void {
    for (const range of Object.values(this.ranges)) range.stale();
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
    const numbers = (n: number) => new Float64Array(n);
    const { typed, bits } = this;
    this.typed = {
      liveUntil: grown(typed.liveUntil, ints),
      amountMin: grown(typed.amountMin, numbers),
      amountMax: grown(typed.amountMax, numbers),
      deadline: grown(typed.deadline, ints),
      status: grown(typed.status, (n) => new Uint8Array(n)),
      statesLo: grown(typed.statesLo, ints),
      statesHi: grown(typed.statesHi, ints),
    };
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
    const { bits, typed } = this;
    const mask = bits.present.slice();
    if (!filters) return mask;
    if (filters.opportunityType !== 'all') andInto(mask, bits.awarded, filters.opportunityType !== 'awarded');
    if (filters.status) andInto(mask, this.statusBits(filters.status, today));
    const { minAmount, maxAmount, deadlineAfter, deadlineBefore } = filters;
    const { amountMin, amountMax, deadline } = typed;
    if (minAmount !== undefined) {
      this.keepWithin(mask, 'amountMax', { min: { value: minAmount, inclusive: true } }, () => keepWhere(mask, amountMax, (amount) => amount >= minAmount));
    }
    if (maxAmount !== undefined) {
      this.keepWithin(mask, 'amountMin', { max: { value: maxAmount, inclusive: true } }, () => keepWhere(mask, amountMin, (amount) => amount <= maxAmount));
    }
    if (deadlineAfter || deadlineBefore) {
      const after = deadlineAfter ? { value: dayNumber(deadlineAfter), inclusive: false } : undefined;
      const before = deadlineBefore ? { value: dayNumber(deadlineBefore), inclusive: false } : undefined;
      this.keepWithin(mask, 'deadline', { ...(after ? { min: after } : {}), ...(before ? { max: before } : {}) }, () => {
        // A missing deadline is 0, and passes neither bound.
        if (after) keepWhere(mask, deadline, (day) => day > after.value);
        if (before) keepWhere(mask, deadline, (day) => day !== 0 && day < before.value);
      });
    }
    if (filters.states) andInto(mask, this.stateBits(filters.states, filters.includeNational));
    if (!filters.geography?.level && filters.geography?.states) andInto(mask, this.stateBits(filters.geography.states, false));
    for (const test of testsOf(filters, this.columns)) {
      forEachSet(mask, (rowid) => {
        if (!test(rowid)) clearBit(mask, rowid);
      });
    }
    return mask;
  }

  /** Keeps the rows whose `column` lies within the bounds: by its range index, or by `pass` while the index waits to be rebuilt. */
  private keepWithin(mask: RowBitmap, column: keyof FilterColumns['ranges'], bounds: { min?: RangeBound; max?: RangeBound }, pass: () => void): void {
    const rows = this.ranges[column].rowsWithin(this.typed[column], this.bits.present, bounds);
    if (rows) andInto(mask, rows);
    else pass();
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

/** The tests of the filters the typed passes do not cover. */
function testsOf(f: OpportunityFilters, c: Columns): RowTest[] {
  const tests: RowTest[] = [];
  if (f.category) {
    const key = `|${f.category.toLowerCase()}|`;
    tests.push((i) => c.categories[i]!.includes(key));
  }
  // States, amounts and the deadline bounds come from bitmaps and range indexes in maskBits().
  if (f.geography?.level) {
    const level = f.geography.level;
    tests.push((i) => c.geo_level[i] === level);
  } else if (f.geography?.text) {
    const text = f.geography.text.toLowerCase();
    tests.push((i) => c.geography[i]?.includes(text) ?? false);
  }
  const { createdFrom } = f;
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
