import type { SourceFormat } from '../mapped-record';
import { fbopenGrantsFormat } from './fbopen-grants';
import { grantsGovFetchOpportunityFormat, grantsGovScrapedFormat, grantsGovSearch2Format } from './grants-gov-api';
import { grantsGovXmlFormat } from './grants-gov-xml';
import { simplerGrantsFormat } from './simpler-grants';

/**
 * The Grants.gov grant-opportunity formats, in detection order. Each `matches` tests fields the
 * others lack, so the order only matters as a tie-break: the most specific shapes come first
 * (XML element names, FBOpen's solnbr + grants.gov source, fetchOpportunity's nested synopsis),
 * and search2 hits, which have the fewest fields, come last.
 */
export const GRANT_FORMATS: readonly SourceFormat[] = [
  grantsGovXmlFormat,
  fbopenGrantsFormat,
  grantsGovFetchOpportunityFormat,
  simplerGrantsFormat,
  grantsGovScrapedFormat,
  grantsGovSearch2Format,
];

export { departmentNameOfAgencyCode } from './agency-codes';
export { eligibilityCodeOf, eligibilityFrom } from './eligibility';
