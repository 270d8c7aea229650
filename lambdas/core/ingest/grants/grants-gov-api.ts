import type { MappingContext, SourceFormat, SourceRecord } from '../mapped-record';
import { reject } from '../rejection';
import { firstText, listOf, parseDate, textOf, urlOf } from '../source-values';
import {
  announcementUrlOf,
  type GrantsGovStatus,
  grantFromFields,
  grantsGovDate,
  grantsGovDateTime,
  grantsGovListingUrl,
  objectField,
  statusOf,
  valuesOf,
} from './grant-record';

/**
 * The Grants.gov REST API (api.grants.gov/v1/api) and records built from it:
 *
 * - `grants-gov-search2`: one hit of `search2` (`data.oppHits[]`): id (OpportunityID), number,
 *   title, agencyCode, agency, openDate/closeDate (MM/DD/YYYY), oppStatus, docType, cfdaList.
 *   Hits carry no description, amounts, categories or eligibility. Older hits (2015) have no
 *   agencyCode or oppStatus; they were returned as open, so they are posted.
 * - `grants-gov-fetch-opportunity`: the `data` object of `fetchOpportunity` (or the whole
 *   `{errorcode, data}` response), with `synopsis` and/or `forecast`.
 * - `grants-gov-scraped`: items a Grants.gov scraper built from those two calls (snake_case:
 *   opportunity_number, agency_code, eligibilities as labels, funding_categories as labels).
 */

// ---------------------------------------------------------------------------------------------
// search2 hits

function isSearchHit(source: SourceRecord): boolean {
  return 'number' in source && 'title' in source && ('openDate' in source || 'closeDate' in source || 'oppStatus' in source || 'cfdaList' in source);
}

/** A hit's oppStatus (or docType); hits without one were returned by a search for open opportunities. */
function hitStatusOf(source: SourceRecord): GrantsGovStatus {
  const declared = firstText(source, 'oppStatus', 'docType');
  return declared === null ? 'posted' : statusOf(declared, 'oppStatus');
}

function mapSearchHit(source: SourceRecord, context: MappingContext) {
  const deadline = parseDate(source.closeDate, 'closeDate');
  return grantFromFields(
    {
      number: source.number,
      title: source.title,
      deadline,
      postedAt: grantsGovDateTime(source.openDate, 'openDate'),
      status: hitStatusOf(source),
      agencyNames: [source.agency, source.agencyName],
      agencyCode: source.agencyCode,
      assistanceListings: source.cfdaList,
      listingUrl: grantsGovListingUrl(source.id),
    },
    context,
  );
}

export const grantsGovSearch2Format: SourceFormat = {
  id: 'grants-gov-search2',
  description: 'Grants.gov search2 API hits (data.oppHits[]): number, title, agency, open/close dates, status; no description',
  matches: (source) => isSearchHit(source) && !('opportunityNumber' in source) && !('opportunity_number' in source),
  provenance: [{ repo: '18F/fbopen', path: /^loaders\/test\/sample\/grants-ids-\d+\.json$/ }],
  map: mapSearchHit,
};

// ---------------------------------------------------------------------------------------------
// fetchOpportunity

/** The opportunity object, whether the reader gave the `data` object or the whole response. */
function opportunityData(source: SourceRecord): SourceRecord {
  const data = objectField(source, 'data');
  return 'opportunityNumber' in data ? data : source;
}

function isFetchedOpportunity(source: SourceRecord): boolean {
  const data = opportunityData(source);
  return 'opportunityNumber' in data && ('synopsis' in data || 'forecast' in data || 'owningAgencyCode' in data);
}

const hasFields = (record: SourceRecord) => Object.keys(record).length > 0;

function mapFetchedOpportunity(source: SourceRecord, context: MappingContext) {
  const data = opportunityData(source);
  const synopsis = objectField(data, 'synopsis');
  const forecast = objectField(data, 'forecast');
  const declared = firstText(data, 'oppStatus', 'docType');
  let status: GrantsGovStatus;
  let detail: SourceRecord;
  if (declared !== null) {
    status = statusOf(declared, 'docType');
    detail = status === 'forecasted' && hasFields(forecast) ? forecast : hasFields(synopsis) ? synopsis : forecast;
  } else if (hasFields(synopsis)) {
    status = 'posted';
    detail = synopsis;
  } else if (hasFields(forecast)) {
    status = 'forecasted';
    detail = forecast;
  } else {
    return reject('fetchOpportunity data has neither a synopsis nor a forecast');
  }
  const isForecast = detail === forecast;
  // Older responses carry the lists at the top level, newer ones inside the synopsis/forecast.
  const listField = (field: string) => (detail[field] !== undefined ? detail[field] : data[field]);
  return grantFromFields(
    {
      number: data.opportunityNumber,
      title: data.opportunityTitle,
      description: isForecast ? firstText(detail, 'forecastDesc', 'synopsisDesc') : detail.synopsisDesc,
      awardFloor: detail.awardFloor,
      awardCeiling: detail.awardCeiling,
      deadline: isForecast
        ? grantsGovDate(firstText(detail, 'estApplicationResponseDateStr', 'estApplicationResponseDate'), 'forecast.estApplicationResponseDate')
        : grantsGovDate(firstText(detail, 'responseDateStr', 'responseDate'), 'synopsis.responseDate'),
      postedAt: grantsGovDateTime(firstText(detail, 'postingDateStr', 'postingDate'), 'postingDate'),
      archiveDate: grantsGovDate(firstText(detail, 'archiveDateStr', 'archiveDate'), 'archiveDate'),
      status,
      categories: valuesOf(listField('fundingActivityCategories')),
      eligibility: valuesOf(listField('applicantTypes')),
      eligibilityText: detail.applicantEligibilityDesc,
      agencyNames: [detail.agencyName, objectField(data, 'agencyDetails').agencyName, objectField(data, 'topAgencyDetails').agencyName],
      agencyCode: firstText(data, 'owningAgencyCode') ?? firstText(detail, 'agencyCode'),
      assistanceListings: data.cfdas ?? data.cfdaNumbers,
      listingUrl: grantsGovListingUrl(data.id) ?? announcementUrlOf(detail.fundingDescLinkUrl),
    },
    context,
  );
}

export const grantsGovFetchOpportunityFormat: SourceFormat = {
  id: 'grants-gov-fetch-opportunity',
  description:
    'Grants.gov fetchOpportunity API responses (data: opportunityNumber, synopsis/forecast with amounts, dates, applicantTypes, fundingActivityCategories)',
  matches: isFetchedOpportunity,
  provenance: [],
  map: mapFetchedOpportunity,
};

// ---------------------------------------------------------------------------------------------
// Scraped items (search2 + fetchOpportunity, flattened to snake_case)

function isScrapedItem(source: SourceRecord): boolean {
  return (
    'opportunity_number' in source &&
    'title' in source &&
    !('opportunity_title' in source) &&
    ('eligibilities' in source || 'opp_status' in source || 'doc_type' in source)
  );
}

/**
 * The scraper sometimes stored the grantor contact card ("Lajos Szabo\nGrantor") as
 * `agency_name`. A contact card has a line break (name, then job title) or an e-mail address;
 * those are not agency names, and the agency code names the agency instead.
 */
export function organisationNameOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (/[\r\n]/.test(value.trim()) || value.includes('@')) return null;
  return textOf(value);
}

function mapScrapedItem(source: SourceRecord, context: MappingContext) {
  return grantFromFields(
    {
      number: source.opportunity_number,
      title: source.title,
      description: source.description,
      awardFloor: source.award_floor,
      awardCeiling: source.award_ceiling,
      deadline: parseDate(source.deadline_date, 'deadline_date'),
      postedAt: grantsGovDateTime(source.posted_date, 'posted_date'),
      status: statusOf(firstText(source, 'opp_status', 'doc_type'), 'opp_status'),
      categories: listOf(source.funding_categories, /;/),
      eligibility: listOf(source.eligibilities, /;/),
      agencyNames: [organisationNameOf(source.agency_name)],
      agencyCode: source.agency_code,
      assistanceListings: source.alns,
      listingUrl: urlOf(source.url),
    },
    context,
  );
}

export const grantsGovScrapedFormat: SourceFormat = {
  id: 'grants-gov-scraped',
  description:
    'Grant items a scraper built from the Grants.gov search2/fetchOpportunity APIs (opportunity_number, agency_code, opp_status, eligibilities and funding_categories as labels)',
  matches: isScrapedItem,
  provenance: [{ repo: 'hDanford/grant-finding-tool', path: /^data\/grants\.json$/ }],
  map: mapScrapedItem,
};
