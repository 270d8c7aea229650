import { distinctNames, placeOfPerformance } from '../contracts/notice-fields';
import { assistanceListingsOf } from '../grants/assistance-listings';
import type { MappedRecord, SourceFormat, SourceRecord } from '../mapped-record';
import { reject } from '../rejection';
import { firstText, parseAmount, parseDate, parseDateTime, plainText, requiredText, textOf, titleOf } from '../source-values';
import { agencyOfAssistanceListing } from './assistance-listing-agencies';
import { grantOfAward } from './awarded-grant';

/**
 * USAspending assistance awards: one element of a `spending_by_award` response's `results`
 * ("Award ID", "Award Amount", "Award Type", "Base Obligation Date", "CFDA Number", Description,
 * "Place of Performance State Code" / "Country Code", generated_internal_id, ...). The reader
 * unwraps `{"results": [...]}`. Description is the award's only text; there is no end date unless
 * the request asked for "End Date".
 */

/**
 * Award types that fund no project: direct payments with unrestricted use (retirement, pensions,
 * veterans' benefits, commodity payments to individuals; type D) and insurance (type G). Grants,
 * cooperative agreements, payments for a specified use, loans and other assistance are kept.
 */
const NOT_A_PROJECT = /\((D|G)\)\s*$|^direct payment with unrestricted use|^insurance\b/i;

function mapAssistanceAward(source: SourceRecord): MappedRecord {
  const awardKey = requiredText(source, 'generated_internal_id', 'Award ID');
  const awardType = textOf(source['Award Type']);
  if (awardType !== null && NOT_A_PROJECT.test(awardType)) {
    reject(`Award Type "${awardType}" is not a funded project (unrestricted direct payments and insurance are not imported)`);
  }
  const text = firstText(source, 'Description');
  const title = titleOf(text) ?? reject('missing required field Description');
  const listingNumber = textOf(source['CFDA Number']);
  const funderNames = distinctNames([
    textOf(source['Awarding Sub Agency']),
    textOf(source['Awarding Agency']),
    listingNumber === null ? null : agencyOfAssistanceListing(listingNumber),
  ]);
  if (funderNames.length === 0) {
    reject(listingNumber === null ? 'no awarding agency and no CFDA Number' : `CFDA Number "${listingNumber}" names no known agency`);
  }
  const startField = textOf(source['Base Obligation Date']) !== null ? 'Base Obligation Date' : 'Start Date';

  return grantOfAward({
    source: 'usaspending',
    sourceId: awardKey,
    title,
    description: plainText(text),
    amount: parseAmount(source['Award Amount'], 'Award Amount'),
    startedAt: parseDateTime(source[startField], startField),
    endDate: parseDate(source['End Date'], 'End Date'),
    place: placeOfPerformance({ state: source['Place of Performance State Code'], country: source['Place of Performance Country Code'] }),
    // USAspending gives no category; the Assistance Listing's categories live in the program inventory.
    categories: [],
    listingUrl: `https://www.usaspending.gov/award/${encodeURIComponent(awardKey)}`,
    funderNames,
    assistanceListings: assistanceListingsOf(listingNumber),
  });
}

export const usaspendingAssistanceAwards: SourceFormat = {
  id: 'usaspending-assistance-awards',
  description: 'USAspending spending_by_award assistance results ("Award ID", "Award Amount", "CFDA Number", Description, ...)',
  // Assistance, not contract, results: a CFDA number or an ASST_ generated id.
  matches: (source) => 'Award ID' in source && ('CFDA Number' in source || /^ASST_/.test(textOf(source.generated_internal_id) ?? '')),
  provenance: [{ repo: 'EOP-OMB/federal-program-inventory', path: /^data_extract\/source_files\/awards\/[^/]+\.json$/ }],
  map: mapAssistanceAward,
};
