import { type FieldIssue, invalidParameters } from '../errors';
import { GEOGRAPHY_LEVELS, type GeographyLevel, type StateCode, statesMentionedIn } from '../geo';
import type { ApplicantType, ResourceKind } from '../records';
import { FACET_NAMES, FACET_VALUE_CAP, type FacetName, NATIONAL_STATE_VALUE } from './facets';
import { AMOUNT_MAX, type DeclaredFilterValues, declaredFilterValues, filterParamsOf } from './filter-registry';
import { type ParamSpec, parseParams } from './params';
import { statusClauses } from './status-clauses';

/**
 * The longest `cursor` accepted (list-cursor.ts): a sort key is at most a title of a few thousand
 * characters (in base64url, signed), and the whole URL stays under API Gateway's 10,240-byte
 * request line.
 */
export const CURSOR_MAX_LENGTH = 8_000;

export const SEARCH_MODES = ['keyword', 'semantic', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

export const GRANT_STATUS_FILTERS = ['open', 'posted', 'closed', 'forecasted', 'upcoming'] as const;
export const CONTRACT_STATUS_FILTERS = ['open', 'closed'] as const;
export const OPPORTUNITY_TYPE_FILTERS = ['open', 'awarded', 'all'] as const;
export type OpportunityTypeFilter = (typeof OPPORTUNITY_TYPE_FILTERS)[number];

export const SORT_FIELDS = {
  grant: ['created_at', 'deadline_date', 'amount_min', 'amount_max', 'title'],
  contract: ['created_at', 'deadline_date', 'amount_min', 'amount_max', 'title'],
  funder: ['name', 'created_at'],
} as const satisfies Record<ResourceKind, readonly string[]>;
export type SortField = (typeof SORT_FIELDS)[ResourceKind][number] | 'relevance';
export type SortOrder = 'asc' | 'desc';

export { dayAfter, SET_ASIDE_CODES } from './filter-registry';

export const LIST_FORMATS = ['json', 'csv'] as const;
export type ListFormat = (typeof LIST_FORMATS)[number];

/** Rows one CSV export holds at most (lambdas/core/export/csv-export.ts keeps it under the response size too). */
export const CSV_MAX_ROWS = 10_000;

export const LIMITS = { pageMax: 100, pageDefault: 20, offsetMax: 10_000, searchMaxLength: 500, amountMax: AMOUNT_MAX } as const;

/**
 * A stored status, optionally narrowed to the records that are live on the query's date (true) or
 * no longer are (false): deadline and archive date not passed, not a stale listing (applyable.ts).
 */
export interface StatusClause {
  stored: string;
  live?: boolean;
}

/**
 * The filters of a grant or contract list: those that fit no shape, here, and those of
 * filter-registry.ts by their keys (deadlineAfter, createdFrom: the instant after posted_after's
 * day, minAmount, naics, setAside, funderIds, ...).
 */
export interface OpportunityFilters extends DeclaredFilterValues {
  opportunityType: OpportunityTypeFilter;
  /** Disjunction of clauses; undefined means any status. */
  status?: StatusClause[];
  states?: StateCode[];
  includeNational: boolean;
  geography?: { level?: GeographyLevel; states?: StateCode[]; text?: string };
  /**
   * Grants an applicant of this type may apply for: eligible_applicants lists the type or is
   * empty (unknown). With lacks501c3, grants whose nonprofit applicants need 501(c)(3) status are
   * left out too. Set by grant matching; not a list parameter.
   */
  applicant?: { type: ApplicantType; lacks501c3: boolean };
}

export interface ListQuery {
  kind: ResourceKind;
  filters: OpportunityFilters | null;
  search?: { text: string; mode: SearchMode };
  sort: { field: SortField; order: SortOrder };
  limit: number;
  offset: number;
  countOnly: boolean;
  /** How the answer is sent: json (the envelope; also when absent) or csv (an export: lambdas/core/export). The index ignores it. */
  format?: ListFormat;
  /** The UTC date the query is evaluated on: "open" and "closed" depend on it. */
  today: string;
  /**
   * Only these records, among those the query matches: which of a batch of changed records a saved
   * search (a webhook subscription's filter) matches, with the list's own semantics. Set by the
   * saved-search matcher; not a list parameter.
   */
  ids?: readonly string[];
  /** Facet counts to add over the whole filtered result set (facets.ts); grants and contracts only. */
  facets?: FacetName[];
  /** Deep paging (list-cursor.ts): the `cursor` parameter as given, read by the list route into `after`. */
  cursor?: string;
  /** Keyset paging: the results that follow this sort key (an index adapter's IndexPage.next), instead of skipping `offset`. */
  after?: PagePosition;
}

/**
 * Where a page ended, as the index adapter that answered it sorts: the last result's sort value
 * (or score) and id. Opaque outside the adapter; carried between pages in a signed cursor.
 */
export type PagePosition = readonly (string | number | null)[];

const commonParams = (kind: ResourceKind, searchedFields: string): ParamSpec[] => [
  { name: 'limit', description: 'Results per page', kind: { type: 'integer', min: 1, max: LIMITS.pageMax }, default: LIMITS.pageDefault },
  { name: 'offset', description: 'Results to skip', kind: { type: 'integer', min: 0, max: LIMITS.offsetMax }, default: 0 },
  {
    name: 'sort_by',
    description: `Sort field. Default: ${kind === 'funder' ? 'name' : 'created_at'}; with a search term, relevance. relevance is accepted only with search.`,
    kind: { type: 'enum', values: [...SORT_FIELDS[kind], 'relevance'] },
  },
  {
    name: 'order',
    description: `asc or desc. Default: ${kind === 'funder' ? 'asc for name, desc otherwise' : 'desc'}`,
    kind: { type: 'enum', values: ['asc', 'desc'] },
  },
  {
    name: 'cursor',
    description:
      'Deep paging: pagination.next_cursor of the previous page, to continue right after it in the same order, with no offset cap. Send the same parameters as the first page (limit may change) and no offset. Valid for 24 hours; a cursor for another query, a changed one or an expired one is a 400',
    kind: { type: 'text', maxLength: CURSOR_MAX_LENGTH },
  },
  { name: 'count_only', description: 'Return only pagination.total', kind: { type: 'boolean' }, default: false },
  {
    name: 'format',
    description: `json (the default) or csv: the whole filtered result as CSV (RFC 4180, a header row, one row per record in the sort order, every field but the long texts), from offset on, up to ${CSV_MAX_ROWS.toLocaleString('en-US')} rows (limit, when given, caps it lower) and 5 MB; X-Total-Count, X-Export-Rows, X-Export-Complete and X-Export-Next-Offset say how much it holds and where the next file starts. Without format, an Accept header naming text/csv asks for CSV too. Not with count_only or facets`,
    kind: { type: 'enum', values: LIST_FORMATS },
  },
  { name: 'search', description: `Search text, matched against ${searchedFields}`, kind: { type: 'text', maxLength: LIMITS.searchMaxLength } },
  {
    name: 'search_mode',
    description:
      'keyword (BM25 as Lucene scores it, title above body: all the meaningful words of a one- or two-word query, most of a longer one, or fewer with a rare one; no relevance floor, so every record holding the words is a result; an identifier typed whole, in any case or spacing, is found first), semantic (sentence-embedding similarity above a minimum-relevance floor that accounts for the query: off-topic queries find nothing, and a short query its own words confirm is answered), or hybrid (both, fused; identifier matches first). semantic and hybrid need a search term and add relevance (0 to 1) to each result. An empty answer says why in meta.no_results',
    kind: { type: 'enum', values: SEARCH_MODES },
    default: 'keyword',
  },
];

const FACETS_DESCRIPTION =
  `Comma-separated facet names (any of ${FACET_NAMES.join(', ')}): adds \`facets\` to the response (with count_only too), {name: [{value, count}]} (funder values add id), counted over the whole filtered result set (the records pagination.total counts, in every search mode; in semantic and hybrid modes on OpenSearch, the window of nearest candidates that total counts, so they are lower bounds too when total_relation is gte). ` +
  "status: the status filter value each record has today, mutually exclusive (grants open, forecasted, closed; contracts open, closed), every value listed, so the counts sum to the total; status=<value> in place of the query's own status returns exactly that count for each value the query's status holds (without status, opportunity_type=open holds open and forecasted). " +
  "category: each of a record's categories, once per record, grouped ignoring case as the category filter matches (category=<value> returns that count). " +
  `states: each postal code in a record's states (states=<code> returns that count); records with no state restriction count under ${NATIONAL_STATE_VALUE} (the records include_national adds: states=${NATIONAL_STATE_VALUE} returns them). ` +
  "funder: each funder (two funders of one name are two values), named, with id, the funder's id, to pass back as funder_id=<id> (which returns that count). " +
  `category, states and funder list only values with a count, most first (ties by value), at most ${FACET_VALUE_CAP}. ` +
  'deadline_within: by days from today (UTC) to the deadline, every bucket listed in this order so they sum to the total: 7 (today to 7 days ahead), 30 (8 to 30), 90 (31 to 90), later (more than 90), none (no deadline), passed (before today: closed or awarded records). ' +
  'Funders have no facets.';

const opportunityParams = (kind: Exclude<ResourceKind, 'funder'>, statuses: readonly string[], noun: string): ParamSpec[] => [
  {
    name: 'status',
    description: `Comma-separated statuses (${statuses.join(', ')}). Without it, opportunity_type=open returns what can be applied for: ${noun === 'grants' ? 'posted grants whose deadline, archive date and listing have not lapsed, and forecasted ones' : 'active solicitations whose deadline and archive date have not passed'}`,
    kind: { type: 'enumList', values: statuses },
  },
  {
    name: 'opportunity_type',
    description: 'open (default; applyable only), awarded (previously funded), or all',
    kind: { type: 'enum', values: OPPORTUNITY_TYPE_FILTERS },
    default: 'open',
  },
  {
    name: 'states',
    description: `Comma-separated postal codes; state-specific ${noun} only unless include_national=true. ${NATIONAL_STATE_VALUE} among them stands for the ${noun} with no state restriction, as include_national=true does (states=${NATIONAL_STATE_VALUE} alone: only those)`,
    kind: { type: 'stateList', national: NATIONAL_STATE_VALUE },
  },
  { name: 'include_national', description: `With states, also return national ${noun}`, kind: { type: 'boolean' }, default: false },
  {
    name: 'geography',
    description: 'Deprecated, best effort: national, state, local, international, or a place name canonicalised to states. Prefer states.',
    kind: { type: 'text', maxLength: 100 },
    deprecated: true,
  },
  ...filterParamsOf(kind),
  { name: 'facets', description: FACETS_DESCRIPTION, kind: { type: 'enumList', values: FACET_NAMES } },
];

export const LIST_PARAMS: Record<ResourceKind, readonly ParamSpec[]> = {
  grant: [
    ...commonParams(
      'grant',
      'title, description, funder and Assistance Listing program titles (keyword and hybrid also match opportunity, Assistance Listing and agency codes exactly)',
    ),
    ...opportunityParams('grant', GRANT_STATUS_FILTERS, 'grants'),
  ],
  contract: [
    ...commonParams(
      'contract',
      'title, description, agency and NAICS industry (keyword and hybrid also match solicitation and notice numbers, NAICS and PSC codes exactly)',
    ),
    ...opportunityParams('contract', CONTRACT_STATUS_FILTERS, 'contracts'),
  ],
  funder: commonParams('funder', 'name and summary'),
};

/**
 * What can be applied for, the default of opportunity_type=open without a status filter (as
 * Grants.gov and Simpler.Grants.gov search by default): live posted and forecasted grants, live
 * contract solicitations.
 */
export function applyableStatusClauses(kind: Exclude<ResourceKind, 'funder'>): StatusClause[] {
  return kind === 'grant'
    ? [
        { stored: 'posted', live: true },
        { stored: 'forecasted', live: true },
      ]
    : [{ stored: 'open', live: true }];
}

/** `national` in the states list is include_national=true; alone, it keeps only the national records (an empty state list with include_national). */
function statesFilterOf(states: string[] | undefined, includeNational: boolean): Pick<OpportunityFilters, 'states' | 'includeNational'> {
  if (!states) return { states: undefined, includeNational };
  const codes = states.filter((s) => s !== NATIONAL_STATE_VALUE) as StateCode[];
  return { states: codes, includeNational: includeNational || codes.length < states.length };
}

function parseGeography(text: string): OpportunityFilters['geography'] {
  const lower = text.toLowerCase();
  const level = GEOGRAPHY_LEVELS.find((l) => l === lower);
  if (level) return { level };
  const states = statesMentionedIn(text);
  return states.length > 0 ? { states } : { text };
}

/** Facets on funders get their own message below, not the unknown parameter's. */
function withoutFacets(query: Readonly<Record<string, readonly string[] | undefined>>): Readonly<Record<string, readonly string[] | undefined>> {
  const { facets: _facets, ...rest } = query;
  return rest;
}

/** Turns the raw query string of a list call into a validated, normalised query, or throws a 400. */
export function parseListQuery(
  kind: ResourceKind,
  query: Readonly<Record<string, readonly string[] | undefined>>,
  today: string,
  options: { acceptsCsv?: boolean } = {},
): ListQuery {
  const { values: v, issues } = parseParams(LIST_PARAMS[kind], kind === 'funder' ? withoutFacets(query) : query, `a parameter of the ${kind} list`);
  const extra: FieldIssue[] = [];
  const search = v.search as string | undefined;
  const mode = v.search_mode as SearchMode;
  if (mode && mode !== 'keyword' && !search) {
    extra.push({ field: 'search_mode', issue: `${mode} search needs a search term` });
  }
  if (kind === 'funder' && query.facets !== undefined) {
    extra.push({ field: 'facets', issue: `funders have no facets; facets (${FACET_NAMES.join(', ')}) are counted on the grant and contract lists` });
  }
  if (v.sort_by === 'relevance' && !search) extra.push({ field: 'sort_by', issue: 'relevance needs a search term' });
  if (v.deadline_after && v.deadline_before && (v.deadline_after as string) >= (v.deadline_before as string)) {
    extra.push({ field: 'deadline_before', issue: 'must be later than deadline_after' });
  }
  // An Accept header asks for CSV only where CSV can answer: with count_only or facets it is the JSON.
  const format = (v.format as ListFormat | undefined) ?? (options.acceptsCsv && !v.count_only && !v.facets ? 'csv' : 'json');
  if (format === 'csv' && v.count_only)
    extra.push({ field: 'format', issue: 'csv cannot be combined with count_only: a CSV export holds the records; count_only=true alone gives the total' });
  if (format === 'csv' && v.facets) extra.push({ field: 'facets', issue: 'facets are not part of a CSV export: ask the JSON list for them' });
  if (v.cursor !== undefined && (v.offset as number) !== 0) {
    extra.push({
      field: 'cursor',
      issue: 'cannot be combined with offset: a cursor already says where the page starts (drop offset, or drop cursor to page by offset)',
    });
    extra.push({ field: 'offset', issue: 'must be 0 (or absent) with cursor' });
  }
  const all = [...issues, ...extra];
  if (all.length > 0) throw invalidParameters(all);

  const defaultField: SortField = search ? 'relevance' : kind === 'funder' ? 'name' : 'created_at';
  const field = (v.sort_by as SortField | undefined) ?? defaultField;
  const defaultOrder: SortOrder = field === 'name' ? 'asc' : 'desc';
  const order = (v.order as SortOrder | undefined) ?? defaultOrder;

  return {
    kind,
    filters:
      kind === 'funder'
        ? null
        : {
            opportunityType: v.opportunity_type as OpportunityTypeFilter,
            status: v.status ? statusClauses(kind, v.status as string[]) : v.opportunity_type === 'open' ? applyableStatusClauses(kind) : undefined,
            ...statesFilterOf(v.states as string[] | undefined, v.include_national as boolean),
            geography: v.geography ? parseGeography(v.geography as string) : undefined,
            ...declaredFilterValues(kind, v),
          },
    search: search ? { text: search, mode } : undefined,
    sort: { field, order },
    limit: v.limit as number,
    offset: v.offset as number,
    countOnly: v.count_only as boolean,
    format,
    today,
    ...(v.facets ? { facets: v.facets as FacetName[] } : {}),
    ...(v.cursor !== undefined ? { cursor: v.cursor as string } : {}),
  };
}
