import { US_STATE_CODES } from '../../core/geo';
import {
  DEADLINE_BUCKETS,
  deadlineBucketOf,
  deadlineWindows,
  type FacetName,
  type Facets,
  type FacetValue,
  fixedValues,
  NATIONAL_STATE_VALUE,
  type OpportunityKind,
  rankedTermValues,
  STATUS_FACET_VALUES,
  statusFacetValueOf,
  termKeyOf,
} from '../../core/query/facets';
import { dayNumber, type FilterRow } from './filter-columns';
import { forEachSet, type RowBitmap } from './row-bitmap';

/**
 * What the facets read of each row (lambdas/core/query/facets.ts), held in memory by rowid like
 * the filter columns, so counting a result set of any size is one pass over arrays with no
 * document read: the stored status and last live day (the status facet), the deadline, the
 * states, the funder name and the categories as the record spells them.
 */

/** The row columns a FacetRow reads beyond the filter columns, as opportunityRow() writes them. */
export const FACET_COLUMNS = ['deadline_date', 'funder_name', 'funder_id', 'category_names'] as const;

export type FacetRow = Pick<FilterRow, 'status' | 'live_until' | 'states_lo' | 'states_hi'> & {
  deadline_date: string | null;
  funder_name: string;
  funder_id: string;
  /** JSON array of the record's categories as stored. */
  category_names: string;
};

/** The postal codes of a row's two state masks (sqlite-index-schema.ts stateMasks), in US_STATE_CODES order. */
export function statesOfMasks(lo: number, hi: number): string[] {
  const states: string[] = [];
  US_STATE_CODES.forEach((code, bit) => {
    if (bit < 32 ? (lo & (1 << bit)) !== 0 : (hi & (1 << (bit - 32))) !== 0) states.push(code);
  });
  return states;
}

/** Distinct strings numbered in order of arrival, so rows hold numbers and counts are typed arrays. */
class Interned {
  readonly values: string[] = [];
  private readonly codes = new Map<string, number>();

  code(value: string): number {
    let code = this.codes.get(value);
    if (code === undefined) {
      code = this.values.length;
      this.codes.set(value, code);
      this.values.push(value);
    }
    return code;
  }
}

/**
 * A term facet's values (category, states, funder) as numbers: each spelling a code (with what it
 * refers to, the funder facet's id), and each group a code (spellings equal under termKeyOf, or
 * with the same reference), as FacetCounter groups them.
 */
class TermCodes {
  private readonly spellings = new Interned();
  private readonly groups = new Interned();
  /** The group, text and reference of each spelling. */
  private groupOfSpelling: number[] = [];
  private readonly texts: string[] = [];
  private readonly refs: (string | undefined)[] = [];

  /** A record's values as [group, spelling] pairs, each group once (the first spelling met, as TermTally keeps it). */
  pairsOf(values: readonly string[], ref?: string): number[] {
    const pairs: number[] = [];
    for (const value of values) {
      const spelling = this.spellings.code(ref === undefined ? value : `${value}\u0000${ref}`);
      if (this.groupOfSpelling[spelling] === undefined) {
        this.groupOfSpelling[spelling] = this.groups.code(ref ?? termKeyOf(value));
        this.texts[spelling] = value;
        this.refs[spelling] = ref;
      }
      const group = this.groupOfSpelling[spelling]!;
      let seen = false;
      for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === group) seen = true;
      if (!seen) pairs.push(group, spelling);
    }
    return pairs;
  }

  /** A group's entry, named by one of its spellings. */
  valueOf(spelling: number, count: number): FacetValue {
    const ref = this.refs[spelling];
    return ref === undefined ? { value: this.texts[spelling]!, count } : { value: this.texts[spelling]!, count, id: ref };
  }

  get groupCount(): number {
    return this.groups.values.length;
  }
}

/** One term facet being counted: per group, its records and the spelling of its record first in id order. */
class TermCount {
  readonly counts: Int32Array;
  readonly firstRank: Int32Array;
  readonly spelling: Int32Array;

  constructor(private readonly codes: TermCodes) {
    this.counts = new Int32Array(codes.groupCount);
    this.firstRank = new Int32Array(codes.groupCount).fill(0x7fffffff);
    this.spelling = new Int32Array(codes.groupCount);
  }

  add(pairs: readonly number[], rank: number): void {
    for (let i = 0; i < pairs.length; i += 2) {
      const group = pairs[i]!;
      this.counts[group]!++;
      if (rank < this.firstRank[group]!) {
        this.firstRank[group] = rank;
        this.spelling[group] = pairs[i + 1]!;
      }
    }
  }

  values(): FacetValue[] {
    const values: FacetValue[] = [];
    this.counts.forEach((count, group) => {
      if (count > 0) values.push(this.codes.valueOf(this.spelling[group]!, count));
    });
    return rankedTermValues(values);
  }
}

/** The rows a count covers: these rowids, those a filter mask keeps, or every row. */
export type FacetRows = { rowids: ArrayLike<number> } | { bits: RowBitmap } | { all: true };

/** A row with no facet values (never written, or removed). */
const ABSENT = -1;

/** A grown copy of a column, new slots set to `fill`. */
function grownColumn<T extends Int32Array | Uint8Array>(column: T, length: number, fill: number): T {
  const grown = new (column.constructor as new (length: number) => T)(length);
  grown.fill(fill);
  grown.set(column);
  return grown;
}

/**
 * Counts with FacetCounter's meaning (lambdas/core/query/facets.ts), over codes rather than
 * strings: a row's statuses, deadlines and term values are numbered as rows are written, and a
 * count is a pass of typed-array increments, the spelling of each group taken from its record
 * first in id order (`rankOf`, the record's place in id order, as FacetCounter compares ids).
 * Record by record through FacetCounter, the four facets of a search matching most of 100,000
 * grants took about 80 ms.
 *
 * Each row is a handful of numbers in typed columns by rowid: a term facet's values are a list of
 * [group, spelling] pairs, and rows share few distinct lists (a funder, a set of states), so a
 * row holds its list's number. An object and three arrays a row took 64 MB at 100,000 grants.
 */
export class FacetColumns {
  private status = new Int32Array(0).fill(ABSENT);
  private liveUntil = new Int32Array(0);
  private deadline = new Int32Array(0);
  private readonly termLists = { category: new Int32Array(0), states: new Int32Array(0), funder: new Int32Array(0) };
  private readonly statuses = new Interned();
  private readonly deadlines = new Interned();
  private readonly terms = { category: new TermCodes(), states: new TermCodes(), funder: new TermCodes() };
  /** Each distinct list of [group, spelling] pairs once, numbered (a row's term columns hold these numbers). */
  private readonly lists = new Interned();
  private readonly pairLists: number[][] = [];

  set(rowid: number, row: FacetRow): void {
    if (rowid >= this.status.length) this.grow(rowid + 1);
    const states = row.states_lo === 0 && row.states_hi === 0 ? [NATIONAL_STATE_VALUE] : statesOfMasks(row.states_lo, row.states_hi);
    this.status[rowid] = this.statuses.code(row.status);
    this.liveUntil[rowid] = dayNumber(row.live_until);
    this.deadline[rowid] = row.deadline_date === null ? ABSENT : this.deadlines.code(row.deadline_date);
    this.termLists.states[rowid] = this.listCode(this.terms.states.pairsOf(states));
    this.termLists.funder[rowid] = this.listCode(this.terms.funder.pairsOf([row.funder_name], row.funder_id));
    this.termLists.category[rowid] = this.listCode(this.terms.category.pairsOf(JSON.parse(row.category_names) as string[]));
  }

  delete(rowid: number): void {
    if (rowid < this.status.length) this.status[rowid] = ABSENT;
  }

  private listCode(pairs: number[]): number {
    const code = this.lists.code(pairs.join(','));
    this.pairLists[code] ??= pairs;
    return code;
  }

  private grow(rows: number): void {
    const length = Math.max(rows, this.status.length * 2, 1024);
    this.status = grownColumn(this.status, length, ABSENT);
    this.liveUntil = grownColumn(this.liveUntil, length, 0);
    this.deadline = grownColumn(this.deadline, length, ABSENT);
    for (const name of ['category', 'states', 'funder'] as const) this.termLists[name] = grownColumn(this.termLists[name], length, 0);
  }

  /** The facets asked, over the rows given (`rowids`), or over the rows a filter bitmap keeps. */
  count(kind: OpportunityKind, names: readonly FacetName[], today: string, rows: FacetRows, rankOf: (rowid: number) => number): Facets {
    const wanted = new Set(names);
    const byStatus = new Int32Array(this.statuses.values.length * 2);
    const byDeadline = new Int32Array(this.deadlines.values.length + 1);
    const terms = {
      category: wanted.has('category') ? new TermCount(this.terms.category) : null,
      states: wanted.has('states') ? new TermCount(this.terms.states) : null,
      funder: wanted.has('funder') ? new TermCount(this.terms.funder) : null,
    };
    const todayNumber = dayNumber(today);
    const { status, liveUntil, deadline, termLists, pairLists } = this;
    const add = (rowid: number) => {
      const code = status[rowid] ?? ABSENT;
      if (code === ABSENT) return;
      byStatus[code * 2 + (liveUntil[rowid]! >= todayNumber ? 0 : 1)]!++;
      byDeadline[deadline[rowid]! + 1]!++;
      if (terms.category || terms.states || terms.funder) {
        const rank = rankOf(rowid);
        terms.category?.add(pairLists[termLists.category[rowid]!]!, rank);
        terms.states?.add(pairLists[termLists.states[rowid]!]!, rank);
        terms.funder?.add(pairLists[termLists.funder[rowid]!]!, rank);
      }
    };
    if ('rowids' in rows) for (let i = 0; i < rows.rowids.length; i++) add(rows.rowids[i]!);
    else if ('bits' in rows) forEachSet(rows.bits, add);
    else for (let rowid = 0; rowid < status.length; rowid++) add(rowid);
    return Object.fromEntries(
      names.map((name) => [
        name,
        name === 'status' ? this.statusValues(kind, byStatus) : name === 'deadline_within' ? this.deadlineValues(today, byDeadline) : terms[name]!.values(),
      ]),
    );
  }

  private statusValues(kind: OpportunityKind, byStatus: Int32Array): FacetValue[] {
    const counts = new Map<string, number>();
    byStatus.forEach((count, code) => {
      if (count === 0) return;
      const value = statusFacetValueOf(kind, this.statuses.values[code >> 1]!, (code & 1) === 0);
      counts.set(value, (counts.get(value) ?? 0) + count);
    });
    return fixedValues(STATUS_FACET_VALUES[kind], counts);
  }

  private deadlineValues(today: string, byDeadline: Int32Array): FacetValue[] {
    const windows = deadlineWindows(today);
    const counts = new Map<string, number>();
    byDeadline.forEach((count, code) => {
      if (count === 0) return;
      const bucket = deadlineBucketOf(code === 0 ? null : this.deadlines.values[code - 1]!, windows);
      counts.set(bucket, (counts.get(bucket) ?? 0) + count);
    });
    return fixedValues(DEADLINE_BUCKETS, counts);
  }
}
