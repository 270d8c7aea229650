import type { MappingContext, SourceFormat, SourceRecord } from '../mapped-record';
import { listOf, parseDate, parseDateTime, requiredText, requiredTitle, textOf, urlOf } from '../source-values';
import { agencyNamesOfPath, contactEmailOf, firstEmailIn, naicsOf, placeOfPerformance, yesNoOf } from './notice-fields';
import { contractOfNotice } from './notice-record';
import { setAsideCodeOf } from './set-aside';

/**
 * SAM.gov notices flattened to CSV by UM-MIDAS grant-tracker (ARPA-H, DARPA, ARPA-E): the API's
 * fields under readable headers ("Notice ID", "Department Path", "Response Deadline", "Resource
 * Links" joined with " | "). There is no notice text and no place of performance.
 */

function mapSamNoticeRow(source: SourceRecord, context: MappingContext) {
  const noticeId = requiredText(source, 'Notice ID');
  const title = requiredTitle(source, 'Title');
  const naics = naicsOf(source['NAICS Code']);
  const setAside = textOf(source['Set Aside']);
  // "Description URL" is deliberately not used: it is an API call that embeds the exporter's API key.
  return contractOfNotice(
    {
      source: 'sam.gov',
      sourceId: noticeId,
      title,
      text: null,
      facts: {
        noticeType: textOf(source.Type),
        solicitationNumber: textOf(source['Solicitation Number']),
        agencies: (textOf(source['Department Path']) ?? '')
          .split('.')
          .map((level) => level.trim())
          .filter(Boolean),
        naics,
        classificationCode: textOf(source['Classification Code']),
        setAside,
        place: null,
      },
      postedAt: parseDateTime(source['Posted Date'], 'Posted Date'),
      deadline: parseDate(source['Response Deadline'], 'Response Deadline'),
      archiveDate: parseDate(source['Archive Date'], 'Archive Date'),
      active: yesNoOf(source.Active),
      place: placeOfPerformance({}),
      // The column holds a code or a description, depending on the exporter's version.
      setAsideCode: setAsideCodeOf(setAside),
      contactEmail: contactEmailOf(source.Contact) ?? firstEmailIn(source.Contact),
      listingUrl: urlOf(source['UI Link']),
      documentUrl: urlOf(listOf(source['Resource Links'], /\s*\|\s*/)[0]),
      awardAmount: null,
      funderNames: agencyNamesOfPath(source['Department Path']),
    },
    context,
  );
}

export const samNoticesCsv: SourceFormat = {
  id: 'sam-notices-csv',
  description: 'SAM.gov notices as CSV with readable headers (Notice ID, Department Path, ...), UM-MIDAS grant-tracker',
  matches: (source) => 'Notice ID' in source && ('Department Path' in source || 'UI Link' in source),
  provenance: [{ repo: 'UM-MIDAS/grant-tracker', path: /^data\/sam_opportunities\.csv$/ }],
  map: mapSamNoticeRow,
};
