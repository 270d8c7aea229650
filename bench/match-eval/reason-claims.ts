import { daysBetween } from '../../lambdas/core/dates';
import { US_STATE_NAMES } from '../../lambdas/core/geo';
import type { ApplicantType, Grant } from '../../lambdas/core/records';

/**
 * A mechanical check of every claim a `why_it_fits` makes, against the grant record and the
 * profile, written apart from the code that builds reasons so that it cannot share its mistakes.
 * Each sentence of a reason must be one this checker understands; one it does not is reported as
 * unchecked, so a new kind of sentence cannot slip past it.
 */

export interface ReasonProfile {
  mission: string;
  sector?: string | null;
  applicant_type?: ApplicantType | null;
  is_501c3?: boolean | null;
  annual_budget_usd?: number | null;
}

export interface ClaimReport {
  claims: number;
  /** Each false claim, in words. */
  false: string[];
  /** Sentences no rule here reads. */
  unchecked: string[];
}

const STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'are',
  'as',
  'at',
  'be',
  'by',
  'for',
  'from',
  'in',
  'into',
  'is',
  'it',
  'of',
  'on',
  'or',
  'the',
  'to',
  'with',
  'our',
  'we',
  'you',
  'your',
  'this',
  'that',
]);

const APPLICANT_NOUNS: Record<string, ApplicantType> = {
  nonprofits: 'nonprofit',
  'for-profit businesses': 'for_profit',
  'state or local governments': 'municipality',
  'tribal governments or organisations': 'tribal',
  individuals: 'individual',
  'colleges or universities': 'academic',
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The text holds the phrase as whole words: not inside a longer word, and not as part of a hyphenated compound. */
function holdsVerbatim(text: string, phrase: string): boolean {
  return new RegExp(`(?<![\\p{L}\\p{N}-])${escapeRegExp(phrase)}(?![\\p{L}\\p{N}]|-[\\p{L}\\p{N}])`, 'iu').test(text);
}

/** The same word or its plural / third-person form ("community" and "communities", "clinic" and "clinics"). */
function inflections(word: string): string[] {
  const w = escapeRegExp(word.toLowerCase());
  const forms = [w, `${w}s`, `${w}es`];
  if (/[^aeiou]y$/.test(word)) forms.push(`${w.slice(0, -1)}ies`);
  if (/ies$/.test(word)) forms.push(`${w.slice(0, -3)}y`);
  if (/es$/.test(word)) forms.push(w.slice(0, -2));
  if (/s$/.test(word)) forms.push(w.slice(0, -1));
  return forms;
}

/** The text holds the phrase's words in a row, each in some inflection, as whole words outside compounds (hyphens and spaces alike inside the phrase). */
function holdsInflected(text: string, phrase: string): boolean {
  const words = phrase.split(/[\s-]+/).filter((w) => w !== '');
  if (words.length === 0) return false;
  const body = words.map((w) => `(?:${inflections(w).join('|')})`).join('[\\s-]+');
  return new RegExp(`(?<![\\p{L}\\p{N}-])${body}(?![\\p{L}\\p{N}]|-[\\p{L}\\p{N}])`, 'iu').test(text.normalize('NFKD').replace(/\p{M}/gu, ''));
}

function listItems(list: string): string[] {
  return list
    .split(/, | and /)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

const money = (text: string) => Number(text.replace(/[$,]/g, ''));

export function checkReason(why: string, grant: Grant, profile: ReasonProfile, focusKeywords: readonly string[], today: string): ClaimReport {
  const report: ClaimReport = { claims: 0, false: [], unchecked: [] };
  const claim = (ok: boolean, what: string) => {
    report.claims++;
    if (!ok) report.false.push(what);
  };
  const grantText = `${grant.title} . ${grant.categories.join(' . ')} . ${grant.description}`;
  const profileText = `${profile.mission} . ${profile.sector ?? ''}`;
  // Every sentence of a reason opens with one of these words, so a full stop after "FDA" or "U.S." is no break.
  const sentences = why.split(/(?<=\.)\s+(?=(?:It|Its|Check|Applications|No) )/);

  for (const sentence of sentences) {
    let understood = false;
    const focus = /shares your focus on (.+?)(?: and mentions your| ?\.$)/.exec(sentence);
    if (focus) {
      understood = true;
      for (const term of listItems(focus[1]!)) {
        claim(holdsVerbatim(grantText, term), `“${term}” is not a word or phrase of the grant`);
        claim(holdsInflected(profileText, term), `“${term}” is not in the profile`);
        const words = term.split(/\s+/);
        claim(!words.every((w) => STOP_WORDS.has(w.toLowerCase())), `“${term}” is a stop word`);
        claim(
          words.some((w) => w.replace(/-/g, '').length >= 4 || (w.length > 1 && w === w.toUpperCase())),
          `“${term}” is a word under 4 letters and no acronym`,
        );
      }
    }
    const keywords = /mentions your keywords? (.+?)\.$/.exec(sentence);
    if (keywords) {
      understood = true;
      for (const [, keyword] of keywords[1]!.matchAll(/“([^”]+)”/g)) {
        claim(
          focusKeywords.some((k) => k.toLowerCase() === keyword!.toLowerCase()),
          `“${keyword}” is not one of the profile's focus keywords`,
        );
        const acronym = /^[A-Z0-9]{2,}$/.test(keyword!)
          ? new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(keyword!)}(?![\\p{L}\\p{N}])`, 'u').test(grantText)
          : null;
        claim(acronym ?? holdsInflected(grantText, keyword!), `keyword “${keyword}” is not in the grant`);
      }
    }
    const subject = /^Its subject \((.+)\) is close in meaning to your mission/.exec(sentence);
    // A judgement of meaning, with nothing in it to check but the categories it names.
    if (/^Its description is close in meaning to your mission as a whole, though no word of it is telling enough to cite\.$/.test(sentence)) understood = true;
    if (subject) {
      understood = true;
      for (const [, category] of subject[1]!.matchAll(/“([^”]+)”/g)) claim(grant.categories.includes(category!), `category “${category}” is not the grant's`);
    }
    if (/^Check your eligibility first: /.test(sentence)) {
      understood = true;
      const caveats = sentence.replace(/^Check your eligibility first: /, '');
      if (caveats.includes('the listing does not say which types of applicant may apply'))
        claim(grant.eligible_applicants.length === 0, 'says the types are unknown, but the listing names them');
      const only = /it is open only to (.+?), and you did not say which you are/.exec(caveats);
      if (only) for (const noun of listItems(only[1]!)) claim(grant.eligible_applicants.includes(APPLICANT_NOUNS[noun]!), `says it is open to ${noun}`);
      if (caveats.includes('which you did not confirm'))
        claim(grant.requires_501c3 === true && profile.is_501c3 == null, 'a 501(c)(3) caveat that does not hold');
      if (caveats.includes('which you said you do not hold'))
        claim(grant.requires_501c3 === true && profile.is_501c3 === false, 'a 501(c)(3) caveat that does not hold');
      const narrower = /only (.+?) may apply \(its [a-z ]+: “(.+?)”\)/.exec(caveats);
      if (narrower) claim(holdsQuote(grant, narrower[2]!), `quote “${narrower[2]}” is not the listing's`);
      const states = /it is only for applicants in (.+?)(?: \(its|, and)/.exec(caveats);
      if (states)
        for (const name of listItems(states[1]!))
          claim(
            grant.states.some((s) => US_STATE_NAMES[s] === name),
            `says it is only for ${name}`,
          );
    }
    const open =
      /^It is (?:open to (.+?)|for applicants)(?: in (.+?))?(?: \(its [a-z ]+: “(.+?)”\))?(?: with no place restriction in its listing)?(?:, and nonprofits must hold 501\(c\)\(3\) status, as you do)?\.$/.exec(
        sentence,
      );
    if (open) {
      understood = true;
      const who = open[1]?.replace(/ with no place restriction in its listing$/, '');
      if (who === 'every type of applicant') claim(grant.eligible_applicants.length === 6, 'says every type may apply');
      else if (who !== undefined)
        claim(
          grant.eligible_applicants.includes(APPLICANT_NOUNS[who]!) &&
            (profile.applicant_type === APPLICANT_NOUNS[who] || (profile.applicant_type == null && profile.is_501c3 === true && who === 'nonprofits')),
          `says it is open to ${who}, as the applicant is`,
        );
      if (open[2])
        for (const name of listItems(open[2]))
          claim(
            grant.states.some((s) => US_STATE_NAMES[s] === name),
            `says it is open in ${name}`,
          );
      if (sentence.includes('with no place restriction in its listing'))
        claim(grant.states.length === 0, 'says no place restriction, but the grant has states');
      if (open[3]) claim(holdsQuote(grant, open[3]), `quote “${open[3]}” is not the listing's`);
      if (sentence.includes('as you do')) claim(grant.requires_501c3 === true && profile.is_501c3 === true, 'a 501(c)(3) claim that does not hold');
    }
    if (sentence === 'Its listing names no place restriction.') {
      understood = true;
      claim(grant.states.length === 0, 'says no place restriction, but the grant has states');
    }
    const range = /awards of (\$[\d,]+) to (\$[\d,]+)/.exec(sentence);
    const upTo = /awards of up to (\$[\d,]+)/.exec(sentence);
    const from = /awards from (\$[\d,]+)/.exec(sentence);
    if (range) claim(grant.amount_min === money(range[1]!) && grant.amount_max === money(range[2]!), `award range ${range[1]} to ${range[2]}`);
    if (upTo) claim(grant.amount_max === money(upTo[1]!), `award ceiling ${upTo[1]}`);
    if (from) claim(grant.amount_min === money(from[1]!) && grant.amount_max === null, `award floor ${from[1]}`);
    const budget = /of your (\$[\d,]+) budget|your (\$[\d,]+) budget/.exec(sentence);
    if (budget) claim(profile.annual_budget_usd === money(budget[1] ?? budget[2]!), 'budget');
    const close = /close(?: soon,)? on (\d{4}-\d{2}-\d{2}) \((today|tomorrow|in (\d+) days)\)/.exec(sentence);
    if (close) {
      understood = true;
      const days = close[2] === 'today' ? 0 : close[2] === 'tomorrow' ? 1 : Number(close[3]);
      claim(grant.deadline_date === close[1] && daysBetween(today, close[1]!) === days, `deadline ${close[1]} in ${days} days`);
    }
    if (/no application deadline is published/i.test(sentence)) {
      understood = true;
      claim(grant.deadline_date === null, 'says no deadline, but the grant has one');
    }
    if (range || upTo || from) understood = true;
    if (!understood) report.unchecked.push(sentence);
  }
  return report;
}

/** The quote (an ellipsis marks where it was cut) is the listing's own words. */
function holdsQuote(grant: Grant, quote: string): boolean {
  const text = `${grant.title} ${grant.description} ${(grant.eligibility_evidence ?? []).map((e) => e.quote).join(' ')}`.replace(/\s+/g, ' ');
  return quote
    .replace(/…$/, '')
    .split('…')
    .every((part) => text.includes(part.trim()));
}
