import type { GrantDraft, MappedRecord, MappingContext, SourceRecord } from '../mapped-record';
import { closedIfPastDeadline, placeOf } from '../opportunity-fields';
import { reject } from '../rejection';
import { parseAmount, parseDate, parseDateTime, plainText, textOf, titleOf, urlOf } from '../source-values';
import { departmentNameOfAgencyCode } from './agency-codes';
import { assistanceListingsOf } from './assistance-listings';
import { eligibilityWithText } from './eligibility-evidence';
import { categoryNamesFrom } from './funding-categories';

/**
 * The rules every Grants.gov feed shares. Each format module reads its own field names into a
 * GrantFields value; `grantFromFields` turns that into our record, so amounts, status, funder
 * names and identity follow one rule whichever feed an opportunity came from.
 */

export type GrantsGovStatus = 'posted' | 'forecasted' | 'closed';

/** What a format module reads from one source record, still as the source wrote it. */
export interface GrantFields {
  /** The Grants.gov opportunity number: our source_id, shared by every feed. */
  readonly number: unknown;
  readonly title: unknown;
  /** HTML or plain text; absent in search results. */
  readonly description?: unknown;
  readonly awardFloor?: unknown;
  readonly awardCeiling?: unknown;
  /** Already a calendar date (YYYY-MM-DD) or null; format modules parse their own date fields. */
  readonly deadline: string | null;
  /** When the opportunity was published, as a UTC datetime, or null. */
  readonly postedAt: string | null;
  /** Archived opportunities are closed; null when the source has no archive date. */
  readonly archiveDate?: string | null;
  readonly status: GrantsGovStatus;
  /** Funding-activity codes or labels. */
  readonly categories?: readonly string[];
  /** Eligibility codes, labels or simpler.grants.gov names. */
  readonly eligibility?: readonly string[];
  /** The listing's free-text eligibility notes ("Additional Information on Eligibility"); HTML or plain text. */
  readonly eligibilityText?: unknown;
  /** Agency names the source gives, most specific first (raw: tidied and filtered here). */
  readonly agencyNames: readonly unknown[];
  /** A Grants.gov agency code ("HHS-NIH11"): adds the department's official name after the source's names, and is kept as agency_code. */
  readonly agencyCode?: unknown;
  /** The Assistance Listings the source names, in any of its shapes (assistance-listings.ts). */
  readonly assistanceListings?: unknown;
  readonly listingUrl: string | null;
}

/** A Grants.gov agency code as Grants.gov writes it ("hhs-nih11 " -> "HHS-NIH11"), or null. */
export function agencyCodeOf(value: unknown): string | null {
  const code = textOf(value)?.replace(/\s+/g, '').toUpperCase();
  return code && /^[A-Z0-9][A-Z0-9-]{0,39}$/.test(code) ? code : null;
}

/** "pa-12-295 " -> "PA-12-295": the same opportunity from two feeds gets the same id. */
export function opportunityNumberOf(value: unknown): string {
  const number = textOf(value)?.replace(/\s+/g, '').toUpperCase();
  return number || reject('missing opportunity number');
}

/**
 * Office names that say nothing on their own ("Headquarters" of which agency?). Used as a funder
 * name they would merge unrelated agencies into one funder, so they are skipped and the next,
 * broader name is used.
 */
const NON_IDENTIFYING_OFFICE = /^(?:headquarters|hq|public affairs|region\s+\d+|[a-z ]+ state office|none)$/i;

/** Grants.gov's own test opportunities, published under this pseudo-agency. */
const TEST_AGENCY = /^iv\s*&\s*v test agency$/i;

/** An agency name as it should read: markup and entities gone ("Food &amp; Drug Administration"), spacing tidied. */
function agencyNameOf(value: unknown): string | null {
  const name = plainText(value).replace(/\s+/g, ' ').trim();
  return name === '' || textOf(name) === null ? null : name;
}

export function funderNamesOf(agencyNames: readonly unknown[], agencyCode?: unknown): string[] {
  const names = agencyNames.map(agencyNameOf).filter((name): name is string => name !== null);
  if (names.some((name) => TEST_AGENCY.test(name))) reject('Grants.gov test opportunity (agency "IV&V Test Agency"), not a real funding opportunity');
  const code = textOf(agencyCode);
  const department = code === null ? undefined : departmentNameOfAgencyCode(code);
  const all = [...names.filter((name) => !NON_IDENTIFYING_OFFICE.test(name)), ...(department ? [department] : [])];
  // A code this table does not know still names the agency better than nothing.
  if (all.length === 0 && code !== null) all.push(code);
  const unique = [...new Map(all.map((name) => [name.toLowerCase(), name])).values()];
  if (unique.length > 0) return unique;
  if (names.length > 0) reject(`agency "${names[0]}" does not say which agency it is (no department or agency code given)`);
  return reject('missing agency: no agency name or code to link a funder to');
}

/**
 * Award floor and ceiling. A ceiling of 0 or "none" means the agency published none (Grants.gov
 * requires the field), so it is null. A floor of 0 is "no minimum" and kept as 0 when a ceiling
 * is published; without a ceiling it is the same placeholder and becomes null.
 */
export function awardRangeOf(floor: unknown, ceiling: unknown): { amount_min: number | null; amount_max: number | null } {
  const max = parseAmount(ceiling, 'award ceiling');
  const min = parseAmount(floor, 'award floor');
  const amountMax = max === 0 ? null : max;
  const amountMin = min === 0 && amountMax === null ? null : min;
  if (amountMin !== null && amountMax !== null && amountMin > amountMax) {
    reject(`award floor ${amountMin} is above the award ceiling ${amountMax}`);
  }
  return { amount_min: amountMin, amount_max: amountMax };
}

/**
 * A status word from any Grants.gov feed: "posted"/"synopsis"/"Posted", "forecasted"/"forecast",
 * "closed", "archived" (archived is closed). An unknown word rejects the record rather than guess.
 */
export function statusOf(value: unknown, field: string): GrantsGovStatus {
  const text = textOf(value)?.toLowerCase();
  if (text === undefined) return reject(`missing ${field}`);
  if (/^forecast/.test(text)) return 'forecasted';
  if (/^(?:posted|synopsis|open|active|modified)/.test(text)) return 'posted';
  if (/^(?:closed|archived?|inactive)/.test(text)) return 'closed';
  return reject(`${field}: unknown status "${text}"`);
}

/**
 * Grants.gov dates beyond parseDate's formats: fetchOpportunity writes "Aug 04, 2016 12:00:00 AM
 * EDT" and "2016-08-04-00-00-00". The calendar date is kept as written (the time zone is that of
 * the agency's deadline), then parsed as usual so impossible dates still reject the record.
 */
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

export function grantsGovDate(value: unknown, field: string): string | null {
  const text = textOf(value);
  if (text === null) return null;
  const named = /^([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2}),?\s+(\d{4})\b/.exec(text);
  if (named) {
    const month = MONTHS.indexOf(named[1]!.toLowerCase());
    if (month < 0) reject(`${field}: "${text}" is not a date`);
    return parseDate(`${named[3]}-${String(month + 1).padStart(2, '0')}-${named[2]!.padStart(2, '0')}`, field);
  }
  const dashed = /^(\d{4}-\d{2}-\d{2})-\d{2}-\d{2}-\d{2}$/.exec(text);
  return parseDate(dashed ? dashed[1] : text, field);
}

/** The publication instant of a date field in any Grants.gov format (a bare date is midnight UTC). */
export function grantsGovDateTime(value: unknown, field: string): string | null {
  const text = textOf(value);
  if (text === null) return null;
  if (/^[A-Za-z]/.test(text) || /^\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}$/.test(text)) {
    const date = grantsGovDate(text, field);
    return date === null ? null : `${date}T00:00:00Z`;
  }
  return parseDateTime(text, field);
}

/** The Grants.gov page of an opportunity, by its numeric OpportunityID. */
export function grantsGovListingUrl(opportunityId: unknown): string | null {
  const id = textOf(opportunityId);
  return id !== null && /^\d+$/.test(id) ? `https://www.grants.gov/search-results-detail/${id}` : null;
}

/**
 * A URL from a free-text "where to get the announcement" field: used only when the field is a
 * URL, and not when it is a bare site home page ("www.grants.gov"), which is no listing at all.
 */
export function announcementUrlOf(value: unknown): string | null {
  const text = textOf(value);
  if (text === null || /\s/.test(text)) return null;
  const url = urlOf(text);
  if (url === null) return null;
  const { pathname, search } = new URL(url);
  return pathname === '/' && search === '' ? null : url;
}

/** Values of a field that may be one value, a list, or objects such as fetchOpportunity's `{id, description}`. */
export function valuesOf(value: unknown, separator: RegExp = /;/): string[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(separator) : value === undefined || value === null ? [] : [value];
  return items
    .map((item) => (item !== null && typeof item === 'object' ? ((item as Record<string, unknown>).id ?? (item as Record<string, unknown>).description) : item))
    .map(textOf)
    .filter((item): item is string => item !== null);
}

export function grantFromFields(fields: GrantFields, context: MappingContext): MappedRecord {
  const title = titleOf(fields.title, 300) ?? reject('missing title');
  const sourceId = opportunityNumberOf(fields.number);
  const names = funderNamesOf(fields.agencyNames, fields.agencyCode);
  const archived = fields.archiveDate !== undefined && fields.archiveDate !== null && fields.archiveDate < context.today;
  const status = archived ? 'closed' : closedIfPastDeadline(fields.status, fields.deadline, context.today);
  const description = plainText(fields.description);
  // No Grants.gov feed has a place field: where and who may apply beyond the codes is read from the text.
  const eligibility = eligibilityWithText(fields.eligibility ?? [], { title, description, eligibilityText: plainText(fields.eligibilityText) || null });
  const record: GrantDraft = {
    title,
    description,
    ...awardRangeOf(fields.awardFloor, fields.awardCeiling),
    deadline_date: fields.deadline,
    archive_date: fields.archiveDate ?? null,
    ...placeOf(eligibility.states),
    listing_url: fields.listingUrl,
    created_at: fields.postedAt,
    categories: categoryNamesFrom(fields.categories ?? []),
    opportunity_type: 'open',
    project_end_date: null,
    source: 'grants.gov',
    source_id: sourceId,
    assistance_listings: assistanceListingsOf(fields.assistanceListings),
    agency_code: agencyCodeOf(fields.agencyCode),
    status,
    eligible_applicants: eligibility.eligible_applicants,
    requires_501c3: eligibility.requires_501c3,
    ...(eligibility.evidence.length > 0 ? { eligibility_evidence: eligibility.evidence } : {}),
  };
  return { kind: 'grant', record, funder: { names } };
}

/** A nested object of a source record (fetchOpportunity's `synopsis`, the simpler API's `summary`), or {}. */
export function objectField(source: SourceRecord, field: string): SourceRecord {
  const value = source[field];
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as SourceRecord) : {};
}
