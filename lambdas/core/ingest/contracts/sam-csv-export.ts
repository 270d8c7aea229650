import type { MappingContext, SourceFormat, SourceRecord } from '../mapped-record';
import { firstText, parseAmount, parseDate, parseDateTime, plainText, requiredText, requiredTitle, textOf, urlOf } from '../source-values';
import { contactEmailOf, distinctNames, naicsOf, placeOfPerformance, placeText, yesNoOf } from './notice-fields';
import { contractOfNotice } from './notice-record';
import { setAsideCodeOf } from './set-aside';

/**
 * The official SAM.gov Contract Opportunities CSV export (ContractOpportunitiesFullCSV.csv and the
 * yearly archives), one row per notice with its columns: NoticeId, Sol#, Department/Ind.Agency,
 * Sub-Tier, Office, PopState, SetASideCode, Award$, PrimaryContactEmail, Link, Description, ...
 * Unlike the API it carries the notice text itself.
 */

function mapSamCsvRow(source: SourceRecord, context: MappingContext) {
  const noticeId = requiredText(source, 'NoticeId');
  const title = requiredTitle(source, 'Title');
  const naics = naicsOf(source.NaicsCode);
  const awardAmount = parseAmount(source.Award$, 'Award$');
  const text = plainText(source.Description);

  return contractOfNotice(
    {
      source: 'sam.gov',
      sourceId: noticeId,
      title,
      text: text === '' ? null : text,
      facts: {
        noticeType: textOf(source.Type),
        solicitationNumber: textOf(source['Sol#']),
        agencies: distinctNames([textOf(source['Department/Ind.Agency']), textOf(source['Sub-Tier']), textOf(source.Office)]),
        naics,
        classificationCode: textOf(source.ClassificationCode),
        setAside: textOf(source.SetASide),
        place: placeText(source.PopCity, source.PopState, source.PopCountry),
        award: {
          number: textOf(source.AwardNumber),
          date: parseDate(source.AwardDate, 'AwardDate'),
          amount: awardAmount,
          awardee: textOf(source.Awardee),
        },
      },
      postedAt: parseDateTime(source.PostedDate, 'PostedDate'),
      deadline: parseDate(source.ResponseDeadLine, 'ResponseDeadLine'),
      archiveDate: parseDate(source.ArchiveDate, 'ArchiveDate'),
      active: yesNoOf(source.Active),
      place: placeOfPerformance({ state: source.PopState, country: source.PopCountry }),
      setAsideCode: setAsideCodeOf(source.SetASideCode, source.SetASide),
      contactEmail: contactEmailOf(source.PrimaryContactEmail),
      listingUrl: urlOf(source.Link),
      documentUrl: urlOf(source.AdditionalInfoLink),
      awardAmount,
      // Sub-tier before department; the office is a buying unit, not a funder.
      funderNames: distinctNames([firstText(source, 'Sub-Tier'), firstText(source, 'Department/Ind.Agency')]),
    },
    context,
  );
}

export const samCsvExport: SourceFormat = {
  id: 'sam-csv-export',
  description: 'SAM.gov Contract Opportunities CSV export (ContractOpportunitiesFullCSV.csv columns)',
  matches: (source) => 'NoticeId' in source && ('Sol#' in source || 'Department/Ind.Agency' in source),
  // No shared-data source has this shape; it is covered by a fixture.
  provenance: [],
  map: mapSamCsvRow,
};
