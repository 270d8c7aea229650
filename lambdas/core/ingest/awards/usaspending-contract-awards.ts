import { contractCategoriesOfNaics } from '../contracts/naics-categories';
import { naicsTitleOf } from '../contracts/naics-titles';
import { classificationOf, distinctNames, naicsOf, placeOfPerformance } from '../contracts/notice-fields';
import { setAsideCodeOf } from '../contracts/set-aside';
import type { ContractDraft, MappedRecord, SourceFormat, SourceRecord } from '../mapped-record';
import { firstText, parseAmount, parseDate, parseDateTime, requiredText, textOf } from '../source-values';

/**
 * USAspending contract awards as GovConRadar keeps them (fact_contract_awards.csv): one row per
 * award with award_id (USAspending's generated id, CONT_AWD_...), piid, award_type, awardee,
 * awarding agency and sub-agency, date_signed, total_obligated_amount, the period of performance,
 * naics, psc, set-aside and competition fields. There is no title and no description.
 */

/** "DELIVERY ORDER" -> "Delivery order"; short acronyms such as BPA stay as written. */
function sentenceCase(text: string): string {
  return text
    .split(/\s+/)
    .map((word, index) => {
      if (word.length <= 3 && word === word.toUpperCase()) return word;
      const lower = word.toLowerCase();
      return index === 0 ? lower.charAt(0).toUpperCase() + lower.slice(1) : lower;
    })
    .join(' ');
}

const usd = (amount: number) => `$${amount.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;

/**
 * A factual description from the award's own fields, so keyword search finds it by awardee,
 * agency, codes and competition terms; nothing is stated that the row does not say.
 */
function describeAward(source: SourceRecord, kind: string, awardee: string | null, agencies: string[], amount: number | null): string {
  const sentences: string[] = [];
  const parent = textOf(source.referenced_idv_piid);
  const signed = textOf(source.date_signed);
  const by = agencies.length > 0 ? ` by ${agencies[0]}${agencies.length > 1 ? ` (${agencies.slice(1).join(', ')})` : ''}` : '';
  sentences.push(
    `${kind} ${textOf(source.piid) ?? ''}${parent ? ` under ${parent}` : ''}, awarded${by}${awardee ? ` to ${awardee}` : ''}${signed ? ` on ${signed}` : ''}.`.replace(
      / +/g,
      ' ',
    ),
  );
  const potential = Number(textOf(source.potential_value) ?? Number.NaN);
  const money = [
    amount !== null ? `Obligated ${usd(amount)}` : null,
    Number.isFinite(potential) && potential > 0 ? `potential value ${usd(potential)}` : null,
  ].filter((part) => part !== null);
  if (money.length > 0) sentences.push(`${money.join('; ')}.`);
  const start = textOf(source.pop_start_date);
  const end = textOf(source.pop_current_end_date);
  const potentialEnd = textOf(source.pop_potential_end_date);
  if (start || end) {
    const later = potentialEnd && potentialEnd !== end ? ` (potential end ${potentialEnd})` : '';
    sentences.push(`Period of performance ${start ?? '?'} to ${end ?? '?'}${later}.`);
  }
  const naics = textOf(source.naics);
  const psc = textOf(source.psc);
  const industry = naics ? naicsTitleOf(naics) : null;
  if (naics) sentences.push(industry ? `Industry: ${industry} (NAICS ${naics}).` : `NAICS ${naics}.`);
  if (psc) sentences.push(`Product/service code ${psc}.`);
  const competition = textOf(source.extent_competed);
  if (competition) sentences.push(`Competition: ${competition.toLowerCase()}.`);
  const pricing = textOf(source.type_of_contract_pricing);
  if (pricing) sentences.push(`Pricing: ${pricing.toLowerCase()}.`);
  const setAside = textOf(source.type_of_set_aside);
  if (setAside) sentences.push(`Set-aside: ${setAside.toLowerCase().replace(/\.$/, '')}.`);
  const offers = textOf(source.number_of_offers_received);
  if (offers) sentences.push(`Offers received: ${offers}.`);
  const state = textOf(source.place_of_performance_state);
  if (state) sentences.push(`Place of performance: ${state}.`);
  return sentences.join(' ');
}

function mapContractAward(source: SourceRecord): MappedRecord {
  const awardId = requiredText(source, 'award_id');
  const piid = requiredText(source, 'piid');
  const kind = sentenceCase(firstText(source, 'award_type') ?? 'Contract');
  const awardee = firstText(source, 'awardee_name_raw', 'awardee_name_clean');
  const amount = parseAmount(source.total_obligated_amount, 'total_obligated_amount');
  // Mixed-case raw names read better; the cleaned upper-case ones are the fallback.
  const agencies = distinctNames([
    firstText(source, 'awarding_subagency_raw', 'awarding_subagency_clean'),
    firstText(source, 'awarding_agency_raw', 'awarding_agency_clean'),
  ]);
  const naics = naicsOf(source.naics);
  const pscCode = textOf(source.psc)?.replace(/\s+/g, '').toUpperCase() || null;

  const record: ContractDraft = {
    title: `${kind} ${piid}${awardee ? ` to ${awardee}` : ''}`,
    description: describeAward(source, kind, awardee, agencies, amount),
    amount_min: amount,
    amount_max: amount,
    deadline_date: null,
    archive_date: null,
    status: 'closed',
    ...placeOfPerformance({ state: source.place_of_performance_state }),
    listing_url: `https://www.usaspending.gov/award/${encodeURIComponent(awardId)}`,
    document_url: null,
    created_at: parseDateTime(source.date_signed, 'date_signed'),
    categories: contractCategoriesOfNaics(naics),
    opportunity_type: 'awarded',
    project_end_date: parseDate(source.pop_current_end_date, 'pop_current_end_date'),
    naics,
    primary_contact_email: null,
    set_aside_code: setAsideCodeOf(source.type_of_set_aside_code, source.type_of_set_aside),
    // An award names its contract (the PIID, in the title), not the solicitation it answered.
    solicitation_number: null,
    psc_code: pscCode,
    ...classificationOf(naics, pscCode),
    source: 'usaspending',
    source_id: awardId,
  };
  return { kind: 'contract', record, funder: { names: agencies } };
}

export const usaspendingContractAwards: SourceFormat = {
  id: 'usaspending-contract-awards',
  description: 'USAspending contract awards, GovConRadar fact_contract_awards.csv (award_id, piid, total_obligated_amount, ...)',
  matches: (source) => 'award_id' in source && 'piid' in source && 'total_obligated_amount' in source,
  provenance: [{ repo: 'CJud25/GovConRadar', path: /^data\/sample\/fact_contract_awards\.csv$/ }],
  map: mapContractAward,
};
