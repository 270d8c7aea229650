import type { SourceFormat, SourceRecord } from '../mapped-record';
import { listOf, parseAmount, parseDate, parseDateTime, plainText, requiredText, requiredTitle, textOf, urlOf } from '../source-values';
import { agencyNamesOfPath, contactEmailOf, naicsOf, placeOfPerformance, placeText, yesNoOf } from './notice-fields';
import { contractOfNotice } from './notice-record';
import { setAsideCodeOf } from './set-aside';

/**
 * SAM.gov Get Opportunities API v2: one element of a search response's `opportunitiesData`, with
 * the API's own keys (noticeId, fullParentPathName, responseDeadLine, placeOfPerformance{...}, ...).
 */

type Json = Record<string, unknown>;
const objectOf = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});

/** The point of contact marked primary; SAM.gov lists it first, but the type says so. */
function primaryContactEmail(contacts: unknown): string | null {
  const list = Array.isArray(contacts) ? contacts.map(objectOf) : [];
  const primary = list.find((contact) => textOf(contact.type)?.toLowerCase() === 'primary');
  return primary ? contactEmailOf(primary.email) : null;
}

function mapSamOpportunity(source: SourceRecord, context: { today: string }) {
  const noticeId = requiredText(source, 'noticeId');
  const title = requiredTitle(source, 'title');
  const place = objectOf(source.placeOfPerformance);
  const state = objectOf(place.state);
  const country = objectOf(place.country);
  // A code when SAM.gov has one, else the name (some VA notices give only state.name "CO").
  const stateText = textOf(state.code) ?? textOf(state.name);
  const countryText = textOf(country.code) ?? textOf(country.name);
  const award = objectOf(source.award);
  const naics = naicsOf(source.naicsCode) ?? naicsOf(listOf(source.naicsCodes)[0]);
  const agencies = agencyNamesOfPath(source.fullParentPathName);
  const awardAmount = parseAmount(award.amount, 'award.amount');
  // `description` is the API's link to the notice text, not the text; a client that stored the
  // fetched text instead gets it used.
  const description = textOf(source.description);
  const text = description !== null && urlOf(description) === null ? plainText(description) : null;
  const officePath = (textOf(source.fullParentPathName) ?? '')
    .split('.')
    .map((level) => level.trim())
    .filter(Boolean);

  return contractOfNotice(
    {
      source: 'sam.gov',
      sourceId: noticeId,
      title,
      text,
      facts: {
        noticeType: textOf(source.type),
        solicitationNumber: textOf(source.solicitationNumber),
        agencies: officePath,
        naics,
        classificationCode: textOf(source.classificationCode),
        setAside: textOf(source.typeOfSetAsideDescription),
        place: placeText(objectOf(place.city).name, stateText, countryText),
        award: {
          number: textOf(award.number),
          date: parseDate(award.date, 'award.date'),
          amount: awardAmount,
          awardee: textOf(objectOf(award.awardee).name),
        },
      },
      postedAt: parseDateTime(source.postedDate, 'postedDate'),
      deadline: parseDate(source.responseDeadLine, 'responseDeadLine'),
      archiveDate: parseDate(source.archiveDate, 'archiveDate'),
      active: yesNoOf(source.active),
      place: placeOfPerformance({ state: stateText, country: countryText }),
      setAsideCode: setAsideCodeOf(source.typeOfSetAside, source.typeOfSetAsideDescription),
      contactEmail: primaryContactEmail(source.pointOfContact),
      listingUrl: urlOf(source.uiLink),
      documentUrl: urlOf(listOf(source.resourceLinks)[0]) ?? urlOf(source.additionalInfoLink),
      awardAmount,
      funderNames: agencies,
    },
    context,
  );
}

export const samOpportunitiesV2: SourceFormat = {
  id: 'sam-opportunities-v2',
  description: 'SAM.gov Get Opportunities API v2 records (opportunitiesData[] of a search response)',
  matches: (source) => 'noticeId' in source && ('postedDate' in source || 'fullParentPathName' in source),
  provenance: [{ repo: 'lindsay-jma/bd-tracker', path: /^opportunities\.db$/ }],
  map: mapSamOpportunity,
};
