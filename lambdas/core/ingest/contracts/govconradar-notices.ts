import type { MappingContext, SourceFormat, SourceRecord } from '../mapped-record';
import { parseDate, parseDateTime, requiredText, requiredTitle, textOf, urlOf } from '../source-values';
import { distinctNames, naicsOf, placeOfPerformance } from './notice-fields';
import { contractOfNotice } from './notice-record';
import { setAsideCodeOf } from './set-aside';

/**
 * SAM.gov notices in GovConRadar's star schema (fact_opportunity_notices.csv): snake_case columns,
 * agency / subagency / office split out, a set-aside code and its description, a place-of-
 * performance state, and no text, contact or active flag.
 */

function mapGovConRadarNotice(source: SourceRecord, context: MappingContext) {
  const noticeId = requiredText(source, 'notice_id');
  const title = requiredTitle(source, 'title');
  const naics = naicsOf(source.naics);
  const state = textOf(source.place_of_performance_state);
  return contractOfNotice(
    {
      source: 'sam.gov',
      sourceId: noticeId,
      title,
      text: null,
      facts: {
        noticeType: textOf(source.notice_type),
        solicitationNumber: textOf(source.solicitation_number),
        agencies: distinctNames([textOf(source.agency), textOf(source.subagency), textOf(source.office)]),
        naics,
        classificationCode: textOf(source.psc),
        setAside: textOf(source.set_aside),
        place: state,
      },
      postedAt: parseDateTime(source.posted_date, 'posted_date'),
      deadline: parseDate(source.response_deadline, 'response_deadline'),
      archiveDate: parseDate(source.archive_date, 'archive_date'),
      // No active flag: the deadline and archive date decide.
      active: null,
      place: placeOfPerformance({ state }),
      setAsideCode: setAsideCodeOf(source.set_aside_code, source.set_aside),
      contactEmail: null,
      listingUrl: urlOf(source.source_url),
      documentUrl: null,
      awardAmount: null,
      funderNames: distinctNames([textOf(source.subagency), textOf(source.agency)]),
    },
    context,
  );
}

export const govConRadarNotices: SourceFormat = {
  id: 'govconradar-notices',
  description: 'SAM.gov notices from GovConRadar fact_opportunity_notices.csv (snake_case columns)',
  matches: (source) => 'notice_id' in source && 'notice_type' in source,
  provenance: [{ repo: 'CJud25/GovConRadar', path: /^data\/sample\/fact_opportunity_notices\.csv$/ }],
  map: mapGovConRadarNotice,
};
