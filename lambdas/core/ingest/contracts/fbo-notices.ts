import { isStateCode, type StateCode, US_STATE_CODES, US_STATE_NAMES } from '../../geo';
import type { MappingContext, SourceFormat, SourceRecord } from '../mapped-record';
import { placeOf } from '../opportunity-fields';
import { firstText, parseDate, parseDateTime, plainText, requiredText, requiredTitle, textOf, urlOf } from '../source-values';
import { contactEmailOf, distinctNames, firstEmailIn, naicsOf, placeText } from './notice-fields';
import { contractOfNotice } from './notice-record';
import { setAsideCodeOf } from './set-aside';

/**
 * FedBizOpps (FBO.gov) notices as normalised by 18F's FBOpen: `notice_type` (PRESOL, COMBINE, ...),
 * `solnbr`, `posted_dt`, `close_dt`, `agency`, `office`, `description`, `listing_url`, and the FBO
 * fields either under `ext` (ext.NAICS, ext.SETASIDE, ext.POPADDRESS) or as top-level `FBO_*` keys
 * (FBO_NAICS, FBO_SETASIDE, FBO_POPADDRESS), depending on the loader version. FBOpen indexes
 * Grants.gov grants in the same files; those are recognised by their data_source and left to the
 * grant formats.
 */

/** FedBizOpps' notice type codes, named as SAM.gov names the same notice types today. */
const NOTICE_TYPE_NAMES: Readonly<Record<string, string>> = {
  PRESOL: 'Presolicitation',
  COMBINE: 'Combined Synopsis/Solicitation',
  AMDCSS: 'Combined Synopsis/Solicitation',
  SRCSGT: 'Sources Sought',
  SNOTE: 'Special Notice',
  MOD: 'Modification/Amendment',
  AWARD: 'Award Notice',
  JA: 'Justification and Approval',
  FAIROPP: 'Fair Opportunity / Limited Sources Justification',
  ITB: 'Intent to Bundle Requirements',
  SSALE: 'Sale of Surplus Property',
  FSTD: 'Foreign Government Standard',
};

/**
 * FedBizOpps stopped on this date, when SAM.gov Contract Opportunities replaced it: no FBO notice
 * can be answered after it, whatever its own dates say.
 */
const FBO_RETIRED_ON = '2019-11-08';

/** An FBO field, from `ext` (test_data.json) or a top-level `FBO_` key (the nightly files). */
function fboField(source: SourceRecord, name: string): unknown {
  const ext = source.ext !== null && typeof source.ext === 'object' ? (source.ext as Record<string, unknown>) : {};
  return textOf(ext[name]) ?? textOf(ext[name.toLowerCase()]) ?? textOf(source[`FBO_${name}`]);
}

const US_COUNTRY = /^(us|usa|united states( of america)?)$/i;
const STATE_BY_NAME: ReadonlyMap<string, StateCode> = new Map(US_STATE_CODES.map((code) => [US_STATE_NAMES[code].toLowerCase(), code] as const));
const ZIP = String.raw`(?:\s+\d{5}(?:-\d{0,4})?)?`;
const TRAILING_CODE = new RegExp(String.raw`(?:^|[\s,])([A-Z]{2})\.?${ZIP}\s*$`);
const TRAILING_NAME = new RegExp(String.raw`(?:^|,)\s*([A-Za-z][A-Za-z .]*?)\.?${ZIP}\s*$`);

/**
 * The state of a free-text FBO place of performance. Agencies end an address with its city and
 * state ("Fort Benning, GA 31905", "Kirtland AFB, NM", "WARREN, MICHIGAN 48397-5000"), so the last
 * line that ends in a state code or name decides; a state mentioned mid-text does not.
 */
export function stateOfAddress(address: string | null): StateCode | null {
  if (address === null) return null;
  const lines = address
    .split(/[\r\n;]+/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  for (const line of lines.reverse()) {
    const code = TRAILING_CODE.exec(line)?.[1];
    if (code !== undefined && isStateCode(code)) return code;
    const name = TRAILING_NAME.exec(line)?.[1]?.trim().toLowerCase();
    const byName = name === undefined ? undefined : STATE_BY_NAME.get(name);
    if (byName !== undefined) return byName;
  }
  return null;
}

function fboPlace(source: SourceRecord): { states: StateCode[]; geography: string } {
  const country = textOf(fboField(source, 'POPCOUNTRY'));
  if (country !== null && !US_COUNTRY.test(country)) return placeOf([], true);
  const state = stateOfAddress(textOf(fboField(source, 'POPADDRESS')));
  return placeOf(state === null ? [] : [state]);
}

function mapFboNotice(source: SourceRecord, context: MappingContext) {
  const noticeTypeCode = requiredText(source, 'notice_type').toUpperCase();
  const solicitationNumber = requiredText(source, 'solnbr');
  const title = requiredTitle(source, 'title');
  const naics = naicsOf(fboField(source, 'NAICS'));
  const setAside = textOf(fboField(source, 'SETASIDE'));
  const agency = textOf(source.agency);
  const text = plainText(source.description);
  const archiveDate = parseDate(source.FBO_ARCHDATE_dt ?? fboField(source, 'ARCHDATE'), 'ARCHDATE');
  const notice = contractOfNotice(
    {
      source: 'fbo.gov',
      // FedBizOpps lists each notice of a solicitation (presolicitation, then combined synopsis,
      // then award) separately, as SAM.gov does with notice ids; FBOpen's own key is type + number.
      sourceId: `${noticeTypeCode}:${solicitationNumber}`,
      title,
      text: text === '' ? null : text,
      facts: {
        noticeType: NOTICE_TYPE_NAMES[noticeTypeCode] ?? noticeTypeCode,
        solicitationNumber,
        agencies: distinctNames([agency, textOf(source.office), textOf(source.location)]),
        naics,
        classificationCode: textOf(fboField(source, 'CLASSCOD')),
        setAside,
        place: placeText(fboField(source, 'POPADDRESS'), fboField(source, 'POPCOUNTRY')),
      },
      postedAt: parseDateTime(source.posted_dt, 'posted_dt'),
      deadline: parseDate(source.close_dt, 'close_dt'),
      archiveDate: archiveDate !== null && archiveDate < FBO_RETIRED_ON ? archiveDate : FBO_RETIRED_ON,
      active: null,
      place: fboPlace(source),
      setAsideCode: setAsideCodeOf(setAside),
      contactEmail: contactEmailOf(fboField(source, 'EMAIL_ADDRESS')) ?? firstEmailIn(fboField(source, 'CONTACT')),
      listingUrl: urlOf(source.listing_url),
      documentUrl: null,
      awardAmount: null,
      funderNames: distinctNames([agency]),
    },
    context,
  );
  return notice;
}

/** FBOpen marks its FedBizOpps records "fbo.gov" (test data) or "FBO" (nightly files), also in `_id`. */
function isFboRecord(source: SourceRecord): boolean {
  const dataSource = firstText(source, 'data_source');
  if (dataSource !== null) return /^fbo(\.gov)?$/i.test(dataSource);
  return /^fbo(\.gov)?:/i.test(firstText(source, '_id') ?? '');
}

export const fboNotices: SourceFormat = {
  id: 'fbo-notices',
  description: 'FedBizOpps notices normalised by 18F FBOpen (notice_type, solnbr, ext{} / FBO_* fields)',
  matches: (source) => 'solnbr' in source && isFboRecord(source),
  provenance: [{ repo: '18F/fbopen', path: /^api\/test\/data\/(?:test_data|20140401\.sample)\.json$/ }],
  map: mapFboNotice,
};
