import type { ApplicantType, Grant } from '../records';
import { listInWords } from '../text';
import { type ApplicantLocation, stateNames } from './applicant-location';
import type { AwardSizeFit, DeadlineFit, EligibilityFit, TextEvidence } from './grant-fit';
import type { TopicFit } from './topic-fit';

/**
 * The plain-English reason of a match: up to three sentences, one per group of components
 * (topic; eligibility and place; award size and deadline), each stating facts the score was
 * computed from. Nothing here is generic: a sentence with no fact to state is left out.
 */

const APPLICANT_NOUNS: Readonly<Record<ApplicantType, string>> = {
  nonprofit: 'nonprofits',
  for_profit: 'for-profit businesses',
  municipality: 'state or local governments',
  tribal: 'tribal governments or organisations',
  individual: 'individuals',
  academic: 'colleges or universities',
};

const quoted = (items: readonly string[]) => items.map((item) => `“${item}”`);

export function usd(amount: number): string {
  return `$${Math.round(amount).toLocaleString('en-US')}`;
}

/** A share of the budget as people say it: "0.25%", "7.6%", "29%", "2.5 times", "12 times". */
function shareInWords(share: number): string {
  if (share >= 10) return `${Math.round(share)} times`;
  if (share >= 2) return `${share.toFixed(1).replace(/\.0$/, '')} times`;
  const pct = share * 100;
  return `${pct >= 10 ? Math.round(pct) : pct >= 1 ? pct.toFixed(1).replace(/\.0$/, '') : pct.toFixed(2)}%`;
}

/** "29% of your $850,000 budget", "18% to 54% of …", "2 to 4 times your …". */
function ofBudget(budget: NonNullable<AwardSizeFit['budget']>): string {
  const low = shareInWords(budget.lowShare);
  const high = shareInWords(budget.highShare);
  const times = (text: string) => text.endsWith(' times');
  let shares = low === high ? low : `${low} to ${high}`;
  if (low !== high && times(low) && times(high)) shares = `${low.replace(/ times$/, '')} to ${high}`;
  return `${shares} ${times(high) ? 'your' : 'of your'} ${usd(budget.usd)} budget`;
}

function topicSentence(grant: Grant, topic: TopicFit): string {
  const parts: string[] = [];
  if (topic.sharedTerms.length > 0) parts.push(`shares your focus on ${listInWords(topic.sharedTerms)}`);
  if (topic.keywords.length > 0) parts.push(`mentions your ${topic.keywords.length === 1 ? 'keyword' : 'keywords'} ${listInWords(quoted(topic.keywords))}`);
  if (parts.length > 0) return `It ${parts.join(' and ')}.`;
  const subject = grant.categories.length > 0 ? `Its subject (${listInWords(quoted(grant.categories.slice(0, 2)))}) is` : 'Its description is';
  // It may share words too common among the candidates, or too short, to cite (topic-fit.ts).
  return `${subject} close in meaning to your mission as a whole, though no word of it is telling enough to cite.`;
}

const SOURCE_NAMES: Readonly<Record<TextEvidence['source'], string>> = {
  title: 'title',
  description: 'description',
  eligibility_text: 'eligibility notes',
};

/** Quotes in a reason are kept short: the grant's own words up to a word boundary, then "…". */
const QUOTE_CHARS = 140;

function shortQuote(quote: string): string {
  if (quote.length <= QUOTE_CHARS) return quote;
  const cut = quote.slice(0, QUOTE_CHARS);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), QUOTE_CHARS / 2)).replace(/[\s,;:.]+$/, '')}…`;
}

const says = (evidence: TextEvidence | null) => (evidence ? ` (its ${SOURCE_NAMES[evidence.source]}: “${shortQuote(evidence.quote)}”)` : '');

/**
 * What the applicant must confirm before applying, blockers first: who may apply when the listing
 * does not say or names a narrower group, 501(c)(3) status, and a state limit the profile's
 * location cannot confirm.
 */
function eligibilityCaveats(fit: EligibilityFit, location: ApplicantLocation): string[] {
  const caveats: string[] = [];
  const applicants = fit.applicants;
  if (applicants.kind === 'unknown') caveats.push('the listing does not say which types of applicant may apply');
  else if (applicants.kind === 'type_not_given' && !applicants.everyType) {
    caveats.push(`it is open only to ${listInWords(applicants.types.map((type) => APPLICANT_NOUNS[type]))}, and you did not say which you are`);
  }
  if (fit.narrowerGroup) caveats.push(`only ${fit.narrowerGroup.detail} may apply${says(fit.narrowerGroup)}`);
  if (fit.charity501c3 === 'not_stated') caveats.push('nonprofits must hold 501(c)(3) status, which you did not confirm');
  if (fit.charity501c3 === 'lacks') caveats.push('nonprofits must hold 501(c)(3) status, which you said you do not hold');
  if (fit.geography.kind === 'state_unconfirmed') {
    const why = location.kind === 'unknown' && location.text ? `your location “${location.text}” names no US state` : 'you did not give your location';
    caveats.push(`it is only for applicants in ${stateNames(fit.geography.states)}${says(fit.geography.evidence)}, and ${why}`);
  }
  return caveats;
}

/** The eligibility the listing confirms: the applicant's type, its place (or that it names none), and 501(c)(3) status held. */
function eligibilitySentence(fit: EligibilityFit): string {
  const geography = fit.geography;
  const place =
    geography.kind === 'in_state'
      ? `in ${stateNames(geography.states)}${says(geography.evidence)}`
      : geography.kind === 'unrestricted'
        ? 'with no place restriction in its listing'
        : null;
  const applicants = fit.applicants;
  let who: string | null = null;
  if (applicants.kind === 'confirmed') who = applicants.everyType ? 'every type of applicant' : APPLICANT_NOUNS[applicants.type];
  else if (applicants.kind === 'type_not_given' && applicants.everyType) who = 'every type of applicant';
  let sentence: string | null = null;
  if (who) sentence = `It is open to ${who}${place ? ` ${place}` : ''}`;
  else if (geography.kind === 'in_state') sentence = `It is for applicants ${place}`;
  else if (geography.kind === 'unrestricted') sentence = 'Its listing names no place restriction';
  if (fit.charity501c3 === 'holds') sentence = `${sentence ?? 'It is open to nonprofits'}, and nonprofits must hold 501(c)(3) status, as you do`;
  return sentence ? `${sentence}.` : '';
}

function awardPhrase(award: AwardSizeFit): string | null {
  const { amountMin, amountMax, budget } = award;
  if (amountMin === null && amountMax === null) return null;
  const range =
    amountMin !== null && amountMax !== null && amountMin !== amountMax
      ? `awards of ${usd(amountMin)} to ${usd(amountMax)}`
      : amountMax !== null
        ? `awards of up to ${usd(amountMax)}`
        : `awards from ${usd(amountMin!)}`;
  if (!budget) return `It makes ${range}`;
  const shares = ofBudget(budget);
  if (budget.band === 'within') return `Its ${range} fit your budget well (${shares})`;
  if (budget.band === 'below') return `Its ${range} are small next to your budget (${shares})`;
  return `Its ${range} are large for your budget (${shares})`;
}

function deadlinePhrase(deadline: DeadlineFit): string {
  if (deadline.date === null || deadline.daysLeft === null) return 'no application deadline is published';
  const days = deadline.daysLeft;
  const when = days === 0 ? 'today' : days === 1 ? 'tomorrow' : `in ${days} days`;
  return days < 14 ? `applications close soon, on ${deadline.date} (${when})` : `applications close on ${deadline.date} (${when})`;
}

/**
 * Blockers first: any eligibility caveat opens the reason, then the topic, what the listing
 * confirms about eligibility, and the award size and deadline.
 */
export function whyItFits(
  grant: Grant,
  fits: { topic: TopicFit; eligibility: EligibilityFit; awardSize: AwardSizeFit; deadline: DeadlineFit },
  location: ApplicantLocation,
): string {
  const caveats = eligibilityCaveats(fits.eligibility, location);
  const award = awardPhrase(fits.awardSize);
  const deadline = deadlinePhrase(fits.deadline);
  const timing = award ? `${award}, and ${deadline}.` : `${deadline.charAt(0).toUpperCase()}${deadline.slice(1)}.`;
  return [
    caveats.length > 0 ? `Check your eligibility first: ${caveats.join('; ')}.` : '',
    topicSentence(grant, fits.topic),
    eligibilitySentence(fits.eligibility),
    timing,
  ]
    .filter((sentence) => sentence !== '')
    .join(' ');
}
