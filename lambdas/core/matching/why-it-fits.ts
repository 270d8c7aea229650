import type { ApplicantType, Grant } from '../records';
import { listInWords } from '../text';
import { stateNames, type ApplicantLocation } from './applicant-location';
import type { AwardSizeFit, DeadlineFit, EligibilityFit } from './grant-fit';
import type { TopicFit } from './topic-fit';

/**
 * The plain-English reason of a match: up to three sentences, one per group of components
 * (topic; eligibility and place; award size and deadline), each stating facts the score was
 * computed from. Nothing here is generic: a sentence with no fact to state is left out.
 */

const APPLICANT_NOUNS: Readonly<Record<ApplicantType, string>> = {
  nonprofit: 'nonprofits',
  for_profit: 'for-profit businesses',
  municipality: 'state and local governments',
  tribal: 'tribal governments and organisations',
  individual: 'individuals',
  academic: 'colleges and universities',
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
  const subject = grant.categories.length > 0 ? `Its subject (${listInWords(grant.categories.slice(0, 2))}) is` : 'Its description is';
  return `${subject} close in meaning to your mission, though it shares none of its key words.`;
}

function placePhrase(fit: EligibilityFit, location: ApplicantLocation): string {
  const geography = fit.geography;
  if (geography.kind === 'in_state') return `in ${stateNames(geography.states)}`;
  if (geography.kind === 'state_unconfirmed') {
    const why = location.kind === 'unknown' && location.text ? `your location “${location.text}” names no US state` : 'you did not give your location';
    return `only in ${stateNames(geography.states)} (${why}, so check that you qualify)`;
  }
  return 'nationwide';
}

function eligibilitySentence(fit: EligibilityFit, location: ApplicantLocation): string {
  const place = placePhrase(fit, location);
  const applicants = fit.applicants;
  let sentence: string;
  if (applicants.kind === 'confirmed') {
    sentence = applicants.everyType ? `It is open to every type of applicant ${place}` : `It is open to ${APPLICANT_NOUNS[applicants.type]} ${place}`;
  } else if (applicants.kind === 'unknown') {
    sentence = `It is open ${place}, but the listing does not say which types of applicant may apply, so confirm your eligibility`;
  } else if (applicants.everyType) {
    sentence = `It is open to every type of applicant ${place}`;
  } else {
    sentence = `It is open to ${listInWords(applicants.types.map((type) => APPLICANT_NOUNS[type]))} ${place}; you did not say which you are`;
  }
  if (fit.charity501c3 === 'holds') sentence += ', and nonprofits must hold 501(c)(3) status, as you do';
  else if (fit.charity501c3 === 'not_stated') sentence += ', and nonprofits must hold 501(c)(3) status, which you did not confirm';
  return `${sentence}.`;
}

function awardPhrase(award: AwardSizeFit): string | null {
  const { amountMin, amountMax, budget } = award;
  if (amountMin === null && amountMax === null) return null;
  const range = amountMin !== null && amountMax !== null && amountMin !== amountMax
    ? `awards of ${usd(amountMin)} to ${usd(amountMax)}`
    : amountMax !== null ? `awards of up to ${usd(amountMax)}` : `awards from ${usd(amountMin!)}`;
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

export function whyItFits(
  grant: Grant,
  fits: { topic: TopicFit; eligibility: EligibilityFit; awardSize: AwardSizeFit; deadline: DeadlineFit },
  location: ApplicantLocation,
): string {
  const award = awardPhrase(fits.awardSize);
  const deadline = deadlinePhrase(fits.deadline);
  const timing = award ? `${award}, and ${deadline}.` : `${deadline.charAt(0).toUpperCase()}${deadline.slice(1)}.`;
  return [topicSentence(grant, fits.topic), eligibilitySentence(fits.eligibility, location), timing].join(' ');
}
