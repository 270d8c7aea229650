import type { MappingContext, SourceFormat, SourceRecord } from '../mapped-record';
import { reject } from '../rejection';
import { firstText, listOf, parseDate } from '../source-values';
import { announcementUrlOf, type GrantsGovStatus, grantFromFields, grantsGovDateTime, grantsGovListingUrl } from './grant-record';

/**
 * The Grants.gov XML extract, one record element at a time (the reader gives child element name
 * -> text, a repeated child -> string[], and `_record_type` = the element name). Two generations:
 *
 * - XMLExtract.dtd (to 2016): `FundingOppSynopsis` and `FundingOppModSynopsis` (a modification of
 *   the same opportunity, same number). Dates MMDDYYYY. No OpportunityID, so the listing URL is
 *   `ObtainFundingOppText` when that is a URL.
 * - GrantsDBExtract v2 (current): `OpportunitySynopsisDetail_1_0` (posted) and
 *   `OpportunityForecastDetail_1_0` (forecasted; the deadline is the estimated
 *   `EstimatedSynopsisCloseDate`). The listing URL is the Grants.gov page of `OpportunityID`.
 */

const V1_RECORDS = new Set(['FundingOppSynopsis', 'FundingOppModSynopsis']);
const V2_SYNOPSIS = 'OpportunitySynopsisDetail_1_0';
const V2_FORECAST = 'OpportunityForecastDetail_1_0';

/** The element name without a namespace prefix ("ns0:OpportunitySynopsisDetail_1_0", "{uri}…"). */
function recordTypeOf(source: SourceRecord): string | null {
  const type = source._record_type;
  return typeof type === 'string' ? type.replace(/^.*[:}]/, '') : null;
}

function mapV1(source: SourceRecord, context: MappingContext) {
  return grantFromFields(
    {
      number: source.FundingOppNumber,
      title: source.FundingOppTitle,
      description: source.FundingOppDescription,
      awardFloor: source.AwardFloor,
      awardCeiling: source.AwardCeiling,
      deadline: parseDate(source.ApplicationsDueDate, 'ApplicationsDueDate'),
      postedAt: grantsGovDateTime(source.PostDate, 'PostDate'),
      archiveDate: parseDate(source.ArchiveDate, 'ArchiveDate'),
      status: 'posted',
      categories: listOf(source.FundingActivityCategory),
      eligibility: listOf(source.EligibilityCategory),
      eligibilityText: source.AdditionalEligibilityInfo,
      agencyNames: [source.Office, source.Agency],
      assistanceListings: source.CFDANumber,
      listingUrl: announcementUrlOf(source.ObtainFundingOppText),
    },
    context,
  );
}

function mapV2(source: SourceRecord, context: MappingContext, status: GrantsGovStatus) {
  const forecast = status === 'forecasted';
  const deadlineField = forecast ? firstFieldWithText(source, 'EstimatedSynopsisCloseDate', 'CloseDate') : 'CloseDate';
  return grantFromFields(
    {
      number: source.OpportunityNumber,
      title: source.OpportunityTitle,
      description: source.Description,
      awardFloor: source.AwardFloor,
      awardCeiling: source.AwardCeiling,
      deadline: parseDate(source[deadlineField], deadlineField),
      postedAt: grantsGovDateTime(source.PostDate, 'PostDate'),
      archiveDate: parseDate(source.ArchiveDate, 'ArchiveDate'),
      status,
      categories: listOf(source.CategoryOfFundingActivity),
      eligibility: listOf(source.EligibleApplicants),
      eligibilityText: source.AdditionalInformationOnEligibility,
      agencyNames: [source.AgencyName],
      agencyCode: source.AgencyCode,
      assistanceListings: source.CFDANumber ?? source.CFDANumbers,
      listingUrl: grantsGovListingUrl(source.OpportunityID) ?? announcementUrlOf(source.AdditionalInformationURL),
    },
    context,
  );
}

function firstFieldWithText(source: SourceRecord, ...fields: string[]): string {
  return fields.find((field) => firstText(source, field) !== null) ?? fields[0]!;
}

export const grantsGovXmlFormat: SourceFormat = {
  id: 'grants-gov-xml',
  description:
    'Grants.gov XML extract records: FundingOppSynopsis/FundingOppModSynopsis (XMLExtract.dtd) and OpportunitySynopsisDetail_1_0/OpportunityForecastDetail_1_0 (GrantsDBExtract v2)',
  matches: (source) => {
    const type = recordTypeOf(source);
    if (type !== null) return V1_RECORDS.has(type) || type === V2_SYNOPSIS || type === V2_FORECAST;
    return 'FundingOppNumber' in source || ('OpportunityNumber' in source && 'OpportunityTitle' in source);
  },
  provenance: [{ repo: '18F/fbopen', path: /^loaders\/test\/sample\/grants\.xml$/ }],
  map: (source, context) => {
    const type = recordTypeOf(source);
    if (type === V2_FORECAST) return mapV2(source, context, 'forecasted');
    if (type === V2_SYNOPSIS) return mapV2(source, context, 'posted');
    if (type !== null && V1_RECORDS.has(type)) return mapV1(source, context);
    // Records without an element name (a reader that drops it) are told apart by their fields.
    if (type === null && 'FundingOppNumber' in source) return mapV1(source, context);
    if (type === null && 'OpportunityNumber' in source) {
      return mapV2(source, context, 'EstimatedSynopsisPostDate' in source ? 'forecasted' : 'posted');
    }
    return reject(`unknown Grants.gov XML record type "${type ?? '(none)'}"`);
  },
};
