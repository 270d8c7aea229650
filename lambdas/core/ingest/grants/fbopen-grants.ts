import type { SourceFormat, SourceRecord } from '../mapped-record';
import { listOf, parseDate, textOf, urlOf } from '../source-values';
import { announcementUrlOf, grantFromFields, grantsGovDateTime, objectField } from './grant-record';

/**
 * 18F FBOpen's normalised Grants.gov records (its Elasticsearch documents, 2014): solnbr (the
 * opportunity number), title, description, agency, office, listing_url, posted_dt and close_dt
 * (ISO), and the original XML-extract fields under `ext` (AwardCeiling, AwardFloor,
 * EligibilityCategory codes, FundingActivityCategory codes, ArchiveDate, …). FBOpen indexed
 * synopses, so the status is posted until the deadline or archive date passes.
 *
 * The same FBOpen files hold fbo.gov contract notices; only documents that say they come from
 * grants.gov (`data_source`, or an `_id` of "grants.gov:…") are this format.
 */

function isFbopenGrant(source: SourceRecord): boolean {
  if (!('solnbr' in source)) return false;
  const dataSource = textOf(source.data_source)?.toLowerCase();
  if (dataSource !== undefined) return dataSource === 'grants.gov';
  return /^grants\.gov:/i.test(textOf(source._id) ?? '');
}

export const fbopenGrantsFormat: SourceFormat = {
  id: 'fbopen-grants',
  description:
    '18F FBOpen normalised Grants.gov opportunities (solnbr, posted_dt, close_dt, ext.AwardCeiling, ext.EligibilityCategory, …; data_source "grants.gov")',
  matches: isFbopenGrant,
  provenance: [{ repo: '18F/fbopen', path: /^api\/test\/data\/test_data\.json$/ }],
  map: (source, context) => {
    const ext = objectField(source, 'ext');
    return grantFromFields(
      {
        number: source.solnbr,
        title: source.title,
        description: source.description,
        awardFloor: ext.AwardFloor,
        awardCeiling: ext.AwardCeiling,
        deadline: parseDate(source.close_dt, 'close_dt'),
        postedAt: grantsGovDateTime(source.posted_dt, 'posted_dt'),
        archiveDate: parseDate(ext.ArchiveDate, 'ext.ArchiveDate'),
        status: 'posted',
        categories: listOf(ext.FundingActivityCategory),
        eligibility: listOf(ext.EligibilityCategory),
        eligibilityText: ext.AdditionalEligibilityInfo,
        agencyNames: [source.office, source.agency],
        assistanceListings: ext.CFDANumber,
        listingUrl: urlOf(source.listing_url) ?? announcementUrlOf(ext.ObtainFundingOppText),
      },
      context,
    );
  },
};
