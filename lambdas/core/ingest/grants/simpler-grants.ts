import type { MappingContext, SourceFormat, SourceRecord } from '../mapped-record';
import { firstText, parseDate, urlOf } from '../source-values';
import { grantFromFields, grantsGovDateTime, objectField, statusOf, valuesOf } from './grant-record';

/**
 * simpler.grants.gov, the new front end of Grants.gov, in two shapes:
 *
 * - The API (`/v1/opportunities/search` `data[]`, `/v1/opportunities/{id}` `data`) and its CSV
 *   export: opportunity_id, opportunity_number, opportunity_title, agency_code, agency_name,
 *   top_level_agency_name, opportunity_status (posted/forecasted/closed/archived) and the summary
 *   fields, nested under `summary` in JSON and flattened to columns in the CSV (where
 *   applicant_types and funding_categories are joined with ";").
 * - The search CSV a Grants.gov tracker writes from that API, with display headers: "Opportunity
 *   ID" (which holds the opportunity *number*), Title, Post Date, Award Ceiling, Deadline, URL,
 *   Description, Agency (top-level code), Status (Posted/Forecast), "Est. Application Deadline".
 *   It has no award floor, categories or eligibility codes; its "Additional Information on
 *   Eligibility" is free text and not read (see eligibility.ts).
 */

const isTrackerCsvRow = (source: SourceRecord) => 'Opportunity ID' in source && 'Title' in source;
const isApiRecord = (source: SourceRecord) => 'opportunity_title' in source && ('opportunity_number' in source || 'opportunity_id' in source);

function mapTrackerCsvRow(source: SourceRecord, context: MappingContext) {
  const status = statusOf(source.Status, 'Status');
  const deadlineField = status === 'forecasted' && firstText(source, 'Deadline') === null ? 'Est. Application Deadline' : 'Deadline';
  return grantFromFields(
    {
      number: source['Opportunity ID'],
      title: source.Title,
      description: source.Description,
      awardFloor: source['Award Floor'],
      awardCeiling: source['Award Ceiling'],
      deadline: parseDate(source[deadlineField], deadlineField),
      postedAt: grantsGovDateTime(source['Post Date'], 'Post Date'),
      status,
      eligibilityText: source['Additional Information on Eligibility'],
      agencyNames: [],
      agencyCode: source.Agency,
      assistanceListings: source['Assistance Listings'],
      listingUrl: urlOf(source.URL),
    },
    context,
  );
}

function mapApiRecord(source: SourceRecord, context: MappingContext) {
  const summary = objectField(source, 'summary');
  // JSON nests these under `summary`; the CSV export has them as top-level columns.
  const field = (name: string) => (summary[name] !== undefined && summary[name] !== null ? summary[name] : source[name]);
  const status = statusOf(source.opportunity_status, 'opportunity_status');
  const closeDate = parseDate(field('close_date'), 'close_date');
  const deadline = closeDate ?? (status === 'forecasted' ? parseDate(field('forecasted_close_date'), 'forecasted_close_date') : null);
  const opportunityId = firstText(source, 'opportunity_id');
  return grantFromFields(
    {
      number: source.opportunity_number,
      title: source.opportunity_title,
      description: field('summary_description'),
      awardFloor: field('award_floor'),
      awardCeiling: field('award_ceiling'),
      deadline,
      postedAt: grantsGovDateTime(field('post_date'), 'post_date'),
      archiveDate: parseDate(field('archive_date'), 'archive_date'),
      status,
      categories: valuesOf(field('funding_categories')),
      eligibility: valuesOf(field('applicant_types')),
      eligibilityText: field('applicant_eligibility_description'),
      agencyNames: [field('agency_name'), source.top_level_agency_name, summary.top_agency_name],
      agencyCode: firstText(source, 'agency_code', 'agency') ?? field('agency_code'),
      assistanceListings: source.opportunity_assistance_listings ?? field('assistance_listings'),
      listingUrl:
        (opportunityId === null ? null : urlOf(`https://simpler.grants.gov/opportunity/${encodeURIComponent(opportunityId)}`)) ??
        urlOf(field('additional_info_url')),
    },
    context,
  );
}

export const simplerGrantsFormat: SourceFormat = {
  id: 'simpler-grants',
  description:
    'simpler.grants.gov opportunities: the API / CSV export (opportunity_number, opportunity_title, summary fields) and the tracker CSV with display headers ("Opportunity ID", Title, Post Date, …)',
  matches: (source) => isApiRecord(source) || isTrackerCsvRow(source),
  provenance: [{ repo: 'UM-MIDAS/grant-tracker', path: /^data\/opportunities\.csv$/ }],
  map: (source, context) => (isApiRecord(source) ? mapApiRecord(source, context) : mapTrackerCsvRow(source, context)),
};
