import { addDays } from '../dates';
import type { ResourceKind } from '../records';
import type { StatusClause } from './list-query';
import { statusClauses } from './status-clauses';

/**
 * Facet counts of a list query (`facets=` on the grant and contract lists): for each facet asked,
 * how many records of the whole filtered result set (the set `pagination.total` counts) have each
 * value. Both index adapters count with these definitions, so they give the same numbers:
 *
 * - status: the status filter value each record has on the query's date, mutually exclusive
 *   (grants open, forecasted, closed; contracts open, closed), from the clauses the status filter
 *   itself uses; every value listed, zeros included, so the counts sum to the total.
 * - category: each of a record's categories, once per record, grouped as the category filter
 *   matches them (ignoring case), named by the spelling of the record with the smallest id.
 * - states: each postal code in a record's states; a record with none (national: it applies in
 *   every state) counts under NATIONAL_STATE_VALUE.
 * - funder: the record's funder, grouped by funder_id (two funders of one name are two values),
 *   named by the funder_name of its record with the smallest id, with the funder_id as `id`, so
 *   funder_id=<id> selects exactly the value's records. At the cap, ties go to the smaller id.
 * - deadline_within: exclusive day windows from the query's date (DEADLINE_BUCKETS), every one
 *   listed, in that order, zeros included, so they sum to the total.
 *
 * category, states and funder list only values with a count, most first (ties by value), at most
 * FACET_VALUE_CAP of them.
 */

export const FACET_NAMES = ['status', 'category', 'states', 'funder', 'deadline_within'] as const;
export type FacetName = (typeof FACET_NAMES)[number];
/** The facets whose values are the records' own (terms), listed by count and capped. */
export type TermFacetName = Extract<FacetName, 'category' | 'states' | 'funder'>;

export interface FacetValue {
  value: string;
  count: number;
  /** funder only: the funder's id, for the funder_id filter. */
  id?: string;
}
export type Facets = Partial<Record<FacetName, FacetValue[]>>;

/** The most values a term facet lists. */
export const FACET_VALUE_CAP = 50;
/** The states facet's value for records with no state restriction (an empty `states`). */
export const NATIONAL_STATE_VALUE = 'national';

export type OpportunityKind = Exclude<ResourceKind, 'funder'>;

export const STATUS_FACET_VALUES: Readonly<Record<OpportunityKind, readonly string[]>> = {
  grant: ['open', 'forecasted', 'closed'],
  contract: ['open', 'closed'],
};

/** Each status facet value and the status filter clauses it stands for (status-clauses.ts). */
export function statusFacetClauses(kind: OpportunityKind): { value: string; clauses: StatusClause[] }[] {
  return STATUS_FACET_VALUES[kind].map((value) => ({ value, clauses: statusClauses(kind, [value]) }));
}

/** The status facet value of a record with this stored status, live on the query's date or not (applyable.ts). */
export function statusFacetValueOf(kind: OpportunityKind, stored: string, live: boolean): string {
  const found = statusFacetClauses(kind).find(({ clauses }) => clauses.some((c) => c.stored === stored && (c.live === undefined || c.live === live)));
  if (!found) throw new Error(`no ${kind} status facet value covers stored status ${stored}`);
  return found.value;
}

export const DEADLINE_BUCKETS = ['7', '30', '90', 'later', 'none', 'passed'] as const;
export type DeadlineBucket = (typeof DEADLINE_BUCKETS)[number];

/**
 * A deadline window of the query's date `today`, as inclusive days (YYYY-MM-DD): `7` is today to
 * today + 7, `30` the 8th to the 30th day after, `90` the 31st to the 90th, `later` beyond; `none`
 * has no deadline and `passed` a deadline before today (only closed and awarded records).
 */
export interface DeadlineWindow {
  value: DeadlineBucket;
  /** null: the records without a deadline. */
  from: string | null;
  to: string | null;
  missing: boolean;
}

export function deadlineWindows(today: string): DeadlineWindow[] {
  const window = (value: DeadlineBucket, from: string | null, to: string | null): DeadlineWindow => ({ value, from, to, missing: false });
  return [
    window('7', today, addDays(today, 7)),
    window('30', addDays(today, 8), addDays(today, 30)),
    window('90', addDays(today, 31), addDays(today, 90)),
    window('later', addDays(today, 91), null),
    { value: 'none', from: null, to: null, missing: true },
    window('passed', null, addDays(today, -1)),
  ];
}

/** The deadline_within value of one deadline (YYYY-MM-DD or null) on `today`. */
export function deadlineBucketOf(deadline: string | null, windows: readonly DeadlineWindow[]): DeadlineBucket {
  for (const w of windows) {
    if (w.missing ? deadline === null : deadline !== null && (w.from === null || deadline >= w.from) && (w.to === null || deadline <= w.to)) return w.value;
  }
  throw new Error(`no deadline window holds ${deadline}`);
}

/** The grouping key of a term value: the category filter matches ignoring case, and OpenSearch's keyword normalizer lower-cases. */
export const termKeyOf = (value: string) => value.toLowerCase();

/**
 * Orders by code point, as OpenSearch orders terms (UTF-8 bytes); JavaScript's `<` compares
 * UTF-16 units, which puts characters beyond U+FFFF before U+E000-U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/**
 * A term facet's values as listed: count descending, ties by the value's key ascending, at most
 * FACET_VALUE_CAP. Values grouped by id (the funder facet) are chosen by count then id, as
 * OpenSearch's terms aggregation on the id chooses them, and then listed by count and value.
 */
export function rankedTermValues(values: Iterable<FacetValue>): FacetValue[] {
  let kept = [...values].filter((v) => v.count > 0);
  if (kept.some((v) => v.id !== undefined)) {
    kept = kept.sort((a, b) => b.count - a.count || compareCodePoints(a.id ?? '', b.id ?? '')).slice(0, FACET_VALUE_CAP);
  }
  return kept
    .sort((a, b) => b.count - a.count || compareCodePoints(termKeyOf(a.value), termKeyOf(b.value)) || compareCodePoints(a.id ?? '', b.id ?? ''))
    .slice(0, FACET_VALUE_CAP)
    .map(({ value, count, id }) => (id === undefined ? { value, count } : { value, count, id }));
}

/**
 * Counts one term facet: values grouped by what they refer to when they have a reference (the
 * funder facet's funder_id), else by termKeyOf; each counted once per record, and named by the
 * spelling of the record with the smallest id (so two adapters name a group alike).
 */
export class TermTally {
  private readonly groups = new Map<string, { value: string; count: number; first: string; ref: string | undefined }>();
  private readonly seen = new Set<string>();
  /** The key of each spelling met: a catalogue repeats a few hundred names across its records. */
  private readonly keys = new Map<string, string>();

  /** One record's values (duplicates within a record count once), and what they refer to. */
  add(id: string, values: readonly string[], ref?: string): void {
    this.seen.clear();
    for (const value of values) {
      let key = ref;
      if (key === undefined) {
        key = this.keys.get(value);
        if (key === undefined) this.keys.set(value, (key = termKeyOf(value)));
      }
      if (values.length > 1) {
        if (this.seen.has(key)) continue;
        this.seen.add(key);
      }
      const group = this.groups.get(key);
      if (!group) this.groups.set(key, { value, count: 1, first: id, ref });
      else {
        group.count++;
        if (id < group.first) Object.assign(group, { value, first: id, ref });
      }
    }
  }

  ranked(): FacetValue[] {
    return rankedTermValues([...this.groups.values()].map(({ value, count, ref }) => (ref === undefined ? { value, count } : { value, count, id: ref })));
  }
}

/** A facet of fixed values (status, deadline_within): every value, in order, zeros included. */
export function fixedValues(values: readonly string[], counts: ReadonlyMap<string, number>): FacetValue[] {
  return values.map((value) => ({ value, count: counts.get(value) ?? 0 }));
}

/** The facets of an empty result set: the fixed values at zero, the term facets empty. */
export function emptyFacets(kind: OpportunityKind, names: readonly FacetName[]): Facets {
  const none = new Map<string, number>();
  return Object.fromEntries(
    names.map((name) => [
      name,
      name === 'status' ? fixedValues(STATUS_FACET_VALUES[kind], none) : name === 'deadline_within' ? fixedValues(DEADLINE_BUCKETS, none) : [],
    ]),
  );
}

/** A record as the facets read it. */
export interface FacetRecord {
  id: string;
  status: string;
  live: boolean;
  categories: readonly string[];
  states: readonly string[];
  funder_name: string;
  funder_id: string;
  deadline_date: string | null;
}

/**
 * Counts the facets asked over a whole result set, record by record (the embedded index; tests
 * check OpenSearch's aggregations against it).
 */
export class FacetCounter {
  private readonly statuses = new Map<string, number>();
  private readonly deadlines = new Map<string, number>();
  private readonly terms: Record<TermFacetName, TermTally> = { category: new TermTally(), states: new TermTally(), funder: new TermTally() };
  private readonly windows: DeadlineWindow[];
  private readonly wanted: ReadonlySet<FacetName>;
  /** By stored status: the value when live, and when not. */
  private readonly statusValues = new Map<string, [string, string]>();
  private readonly deadlineBuckets = new Map<string | null, DeadlineBucket>();

  constructor(
    private readonly kind: OpportunityKind,
    private readonly names: readonly FacetName[],
    today: string,
  ) {
    this.windows = deadlineWindows(today);
    this.wanted = new Set(names);
  }

  add(record: FacetRecord): void {
    const { wanted } = this;
    if (wanted.has('status')) bump(this.statuses, this.statusValueOf(record.status, record.live));
    if (wanted.has('deadline_within')) bump(this.deadlines, this.deadlineBucketOf(record.deadline_date));
    if (wanted.has('category')) this.terms.category.add(record.id, record.categories);
    if (wanted.has('states')) this.terms.states.add(record.id, record.states.length > 0 ? record.states : [NATIONAL_STATE_VALUE]);
    if (wanted.has('funder')) this.terms.funder.add(record.id, [record.funder_name], record.funder_id);
  }

  private statusValueOf(stored: string, live: boolean): string {
    let values = this.statusValues.get(stored);
    if (values === undefined)
      this.statusValues.set(stored, (values = [statusFacetValueOf(this.kind, stored, true), statusFacetValueOf(this.kind, stored, false)]));
    return values[live ? 0 : 1];
  }

  private deadlineBucketOf(deadline: string | null): DeadlineBucket {
    let bucket = this.deadlineBuckets.get(deadline);
    if (bucket === undefined) this.deadlineBuckets.set(deadline, (bucket = deadlineBucketOf(deadline, this.windows)));
    return bucket;
  }

  facets(): Facets {
    return Object.fromEntries(
      this.names.map((name) => [
        name,
        name === 'status'
          ? fixedValues(STATUS_FACET_VALUES[this.kind], this.statuses)
          : name === 'deadline_within'
            ? fixedValues(DEADLINE_BUCKETS, this.deadlines)
            : this.terms[name].ranked(),
      ]),
    );
  }
}

function bump(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}
