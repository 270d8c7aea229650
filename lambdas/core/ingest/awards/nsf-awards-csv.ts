import { grantCategoryName } from '../../categories';
import { placeOfPerformance } from '../contracts/notice-fields';
import type { SourceFormat, SourceRecord } from '../mapped-record';
import { firstText, parseAmount, parseDate, parseDateTime, plainText, requiredText, requiredTitle, textOf } from '../source-values';
import { grantOfAward } from './awarded-grant';

/**
 * NSF Award Search CSV export: AwardNumber (Excel-protected as `="1545481"` in some exports),
 * Title, StartDate / EndDate / LastAmendmentDate (MM/DD/YYYY), AwardedAmountToDate ("$17,764.00"
 * or 17764), Organization and OrganizationState (the awardee institution), NSFDirectorate,
 * Program(s) and the Abstract (HTML line breaks and entities).
 */

const RESEARCH = grantCategoryName('ST');
const EDUCATION = grantCategoryName('ED');

/**
 * Every NSF award funds research; those of the education directorate (EDU, formerly EHR) also
 * fund education, and are found under that category too.
 */
function nsfCategories(directorate: string | null): string[] {
  return directorate !== null && /^(EDU|EHR)$/i.test(directorate) ? [RESEARCH, EDUCATION] : [RESEARCH];
}

/**
 * When the award became public. Usually the start date, but NSF publishes awards before they
 * start (an award made in June can start in October), and its first amendment is the award
 * itself: the earlier of the two keeps a future start from dating a record in the future.
 */
function publishedAt(source: SourceRecord): string | null {
  const start = parseDateTime(source.StartDate, 'StartDate');
  const amended = parseDateTime(source.LastAmendmentDate, 'LastAmendmentDate');
  if (start === null || amended === null) return start ?? amended;
  // biome-ignore lint/complexity/useMathMinMax: ISO date strings, which Math.min would turn into NaN
  return amended < start ? amended : start;
}

function mapNsfAward(source: SourceRecord) {
  const awardNumber = requiredText(source, 'AwardNumber');
  return grantOfAward({
    source: 'nsf',
    sourceId: awardNumber,
    title: requiredTitle(source, 'Title'),
    description: plainText(source.Abstract),
    amount: parseAmount(source.AwardedAmountToDate, 'AwardedAmountToDate'),
    startedAt: publishedAt(source),
    endDate: parseDate(source.EndDate, 'EndDate'),
    // The awardee institution's state: where the funded work is done.
    place: placeOfPerformance({ state: firstText(source, 'OrganizationState', 'State') }),
    categories: nsfCategories(textOf(source.NSFDirectorate)),
    listingUrl: `https://www.nsf.gov/awardsearch/showAward?AWD_ID=${encodeURIComponent(awardNumber)}`,
    funderNames: ['National Science Foundation'],
    // The award CSV names the program element, not its Assistance Listing.
    assistanceListings: [],
  });
}

export const nsfAwardsCsv: SourceFormat = {
  id: 'nsf-awards-csv',
  description: 'NSF Award Search CSV export (AwardNumber, AwardedAmountToDate, StartDate, EndDate, Abstract, ...)',
  matches: (source) => 'AwardNumber' in source && ('AwardedAmountToDate' in source || 'NSFDirectorate' in source),
  provenance: [
    // <Program>/Awards-<Program>-<Year>.csv
    { repo: 'lowrank/NSF-DMS-awards', path: /^[^/]+\/Awards-[^/]+-\d{4}\.csv$/ },
    { repo: 'monica-marion/Interdisciplinary-Training-Grants-Dataset', path: /^input\/Awards\.csv$/ },
  ],
  map: mapNsfAward,
};
