import { addDays } from '../dates';
import { RECORD_SCHEMAS, type ResourceKind } from '../records';
import type { OpportunityKind } from './facets';
import { type CaseRule, inCase, type ParamKind, type ParamSpec, type ParamValue } from './params';

/**
 * The list filters that fit a shape, each declared once: its parameter (parsed and documented
 * from `spec`), the record kinds it applies to, the record field it reads, and how it compares
 * (its shape). OpenSearch's query (opensearch-filters.ts), the embedded index's SQL and in-memory
 * columns (sqlite-index-filters.ts, filter-columns.ts) and the test oracle each interpret the
 * shapes, so engines cannot drift and a new filter of a known shape is one entry here plus its
 * tests (docs/contributing.md). Filters that fit no shape stay explicit in list-query.ts and in
 * each engine: opportunity_type, status (liveness depends on the query's date), states (with
 * national records), geography, and the applicant eligibility grant matching sets.
 */

export type { OpportunityKind };
export type RangeOp = 'gt' | 'gte' | 'lt' | 'lte';

export type FilterShape =
  /** Any given value equals the field's value (one of them, for a list field) under the case rule; the field's case is folded too. */
  | { type: 'terms'; case: CaseRule }
  /** Any given value begins the field's value; a value `wholeLength` long is a whole code, which an engine may match as a term. */
  | { type: 'prefix'; wholeLength: number }
  /**
   * The field's value compared with the given bound (`of` is the field's type; a date parameter on
   * a timestamp compares the timestamp's UTC day). A record without a value never matches.
   */
  | { type: 'range'; op: RangeOp; of: 'number' | 'date' | 'timestamp' };
export type RangeShape = Extract<FilterShape, { type: 'range' }>;

export interface ListFilter {
  /** The query parameter. */
  param: string;
  /** Its property in OpportunityFilters, holding the parsed value (filterValueOf). */
  key: string;
  kinds: readonly OpportunityKind[];
  /** The record field it reads; the OpenSearch field of the same name, and the embedded index's row column. */
  field: string;
  shape: FilterShape;
  spec: Omit<ParamSpec, 'name'>;
}

/** The largest amount min_amount and max_amount take. */
export const AMOUNT_MAX = 1e13;

/** SAM.gov set-aside codes (Get Opportunities v2 `typeOfSetAside`). */
export const SET_ASIDE_CODES = [
  'SBA',
  'SBP',
  '8A',
  '8AN',
  'HZC',
  'HZS',
  'SDVOSBC',
  'SDVOSBS',
  'WOSB',
  'WOSBSS',
  'EDWOSB',
  'EDWOSBSS',
  'LAS',
  'IEE',
  'ISBEE',
  'BICIV',
  'VSA',
  'VSS',
] as const;

/** Record ids as the service writes them (name-based UUIDs, lower-case hex). */
const STORED_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BOTH: readonly OpportunityKind[] = ['grant', 'contract'];

const ENTRIES = [
  {
    param: 'category',
    key: 'category',
    kinds: BOTH,
    field: 'categories',
    shape: { type: 'terms', case: 'lower' },
    spec: { description: 'Category name (case-insensitive exact match)', kind: { type: 'text', maxLength: 100 } },
  },
  {
    param: 'funder_id',
    key: 'funderIds',
    kinds: BOTH,
    field: 'funder_id',
    shape: { type: 'terms', case: 'exact' },
    spec: {
      description: "Comma-separated funder ids (a record's funder_id, a funder's id, or the id of a facets=funder value): records of any of these funders",
      kind: {
        type: 'patternList',
        pattern: STORED_UUID,
        example: '13c1d59c-bcf1-5b4d-8b58-b0656c61ba94',
        hint: 'funder ids (UUIDs in lower case, as records give them)',
        case: 'exact',
      },
    },
  },
  {
    param: 'deadline_after',
    key: 'deadlineAfter',
    kinds: BOTH,
    field: 'deadline_date',
    shape: { type: 'range', op: 'gt', of: 'date' },
    spec: { description: 'Deadline strictly after this date (YYYY-MM-DD)', kind: { type: 'date' } },
  },
  {
    param: 'deadline_before',
    key: 'deadlineBefore',
    kinds: BOTH,
    field: 'deadline_date',
    shape: { type: 'range', op: 'lt', of: 'date' },
    spec: { description: 'Deadline strictly before this date (YYYY-MM-DD); must be later than deadline_after', kind: { type: 'date' } },
  },
  {
    param: 'posted_after',
    key: 'createdFrom',
    kinds: BOTH,
    field: 'created_at',
    shape: { type: 'range', op: 'gt', of: 'timestamp' },
    spec: { description: 'Created strictly after this date (YYYY-MM-DD)', kind: { type: 'date' } },
  },
  {
    param: 'min_amount',
    key: 'minAmount',
    kinds: BOTH,
    field: 'amount_max',
    shape: { type: 'range', op: 'gte', of: 'number' },
    spec: { description: 'Keeps records whose amount_max is at least this', kind: { type: 'number', min: 0, max: AMOUNT_MAX } },
  },
  {
    param: 'max_amount',
    key: 'maxAmount',
    kinds: BOTH,
    field: 'amount_min',
    shape: { type: 'range', op: 'lte', of: 'number' },
    spec: { description: 'Keeps records whose amount_min is at most this', kind: { type: 'number', min: 0, max: AMOUNT_MAX } },
  },
  {
    param: 'naics',
    key: 'naics',
    kinds: ['contract'],
    field: 'naics',
    shape: { type: 'prefix', wholeLength: 6 },
    spec: {
      description: 'Comma-separated NAICS codes; 2 to 5 digits match as a prefix',
      kind: { type: 'patternList', pattern: /^\d{2,6}$/, example: '541512', hint: 'NAICS codes (2 to 6 digits)', case: 'upper' },
    },
  },
  {
    param: 'set_aside',
    key: 'setAside',
    kinds: ['contract'],
    field: 'set_aside_code',
    shape: { type: 'terms', case: 'upper' },
    spec: { description: 'Comma-separated SAM.gov set-aside codes', kind: { type: 'enumList', values: SET_ASIDE_CODES } },
  },
] as const satisfies readonly ListFilter[];

export const LIST_FILTERS: readonly ListFilter[] = ENTRIES;

type ValueOfKind<K extends ParamKind> = K extends { type: 'number' | 'integer' }
  ? number
  : K extends { type: 'enumList' | 'patternList' | 'stateList' }
    ? string[]
    : string;
/** The parsed value of each declared filter, by its key (filterValueOf): the part of OpportunityFilters this file declares. */
export type DeclaredFilterValues = { [E in (typeof ENTRIES)[number] as E['key']]?: ValueOfKind<E['spec']['kind']> };
export type FilterValue = string | number | readonly string[];

/** The declared filters of a kind's list, in registry order. */
export function filtersOf(kind: ResourceKind): ListFilter[] {
  return LIST_FILTERS.filter((filter) => (filter.kinds as readonly string[]).includes(kind));
}

/** The declared filters' parameters of a kind's list (LIST_PARAMS). */
export function filterParamsOf(kind: ResourceKind): ParamSpec[] {
  return filtersOf(kind).map((filter) => ({ name: filter.param, ...filter.spec }));
}

/** The declared filters' values among a kind's parsed parameters (parseParams). */
export function declaredFilterValues(kind: OpportunityKind, values: Readonly<Record<string, ParamValue | undefined>>): DeclaredFilterValues {
  const out: Record<string, FilterValue> = {};
  for (const filter of filtersOf(kind)) {
    const given = values[filter.param];
    if (given !== undefined) out[filter.key] = filterValueOf(filter, given as FilterValue);
  }
  return out as DeclaredFilterValues;
}

/** A parameter's value as a filter holds it: a range on a timestamp keeps the instant it compares with (storedBound). */
function filterValueOf(filter: ListFilter, given: FilterValue): FilterValue {
  return filter.shape.type === 'range' ? storedBound(filter.shape, given as string | number).value : given;
}

/** The declared filters a query sets, with their values, in registry order. */
export function declaredFiltersIn(filters: object | null): { filter: ListFilter; value: FilterValue }[] {
  if (!filters) return [];
  const values = filters as Readonly<Record<string, FilterValue | undefined>>;
  return LIST_FILTERS.flatMap((filter) => (values[filter.key] === undefined ? [] : [{ filter, value: values[filter.key]! }]));
}

/** A terms filter's values, in its case: a text parameter gives one. */
export function termsOf(shape: Extract<FilterShape, { type: 'terms' }>, value: FilterValue): string[] {
  return (typeof value === 'string' ? [value] : (value as readonly string[])).map((term) => inCase(shape.case, term));
}

/** The comparison an engine makes with the stored field: a day bound on a timestamp compares with an instant. */
export function storedOp(shape: RangeShape): RangeOp {
  if (shape.of !== 'timestamp') return shape.op;
  return shape.op === 'gt' ? 'gte' : shape.op === 'lte' ? 'lt' : shape.op;
}

/**
 * A bound as the engines compare it with the stored field: unchanged, or for a day on a
 * timestamp the first instant after the day (gt, lte) or of it (gte, lt).
 */
export function storedBound(shape: RangeShape, given: string | number): { op: RangeOp; value: string | number } {
  if (shape.of !== 'timestamp') return { op: shape.op, value: given };
  const day = String(given);
  return { op: storedOp(shape), value: shape.op === 'gt' || shape.op === 'lte' ? dayAfter(day) : `${day}T00:00:00.000Z` };
}

/** Whether a filter's record field holds a list (as categories does), from the record schema. */
export function readsList(filter: ListFilter): boolean {
  return filter.kinds.some((kind) => {
    const field = (RECORD_SCHEMAS[kind].shape as Record<string, { _zod: { def: { type: string } } } | undefined>)[filter.field];
    return field?._zod.def.type === 'array';
  });
}

const LAST_DAY = '9999-12-31';

/**
 * The first instant after a day. The last day a date parameter takes has none a timestamp can
 * write (year 10000 would sort before every record), so it is that day's last millisecond.
 */
export function dayAfter(isoDate: string): string {
  return isoDate >= LAST_DAY ? `${LAST_DAY}T23:59:59.999Z` : `${addDays(isoDate, 1)}T00:00:00.000Z`;
}
