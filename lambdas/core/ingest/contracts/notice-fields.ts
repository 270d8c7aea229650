import * as z from 'zod/mini';
import { isStateCode, type StateCode, US_STATE_CODES, US_STATE_NAMES } from '../../geo';
import { closedIfPastDeadline, placeOf } from '../opportunity-fields';
import { textOf } from '../source-values';
import { naicsTitleOf } from './naics-titles';
import { describeNotice } from './notice-description';
import { pscGroupOf } from './psc-groups';

/** Field rules the contract-notice and contract-award mappers share. */

/** A six-digit NAICS code, or null: feeds also write blanks, "N/A" and shorter sector codes. */
export function naicsOf(value: unknown): string | null {
  const text = textOf(value);
  return text !== null && /^\d{6}$/.test(text) ? text : null;
}

const EMAIL = z.email();
// Agencies publish a placeholder when they want no e-mail ("do_not_use_this_email_address@arpa-h.gov").
const NOT_A_MAILBOX = /do[\W_]*not[\W_]*(use|reply)|no[\W_]*reply/i;

/** A contact e-mail that is a real, usable address, or null. */
export function contactEmailOf(value: unknown): string | null {
  const text = textOf(value)?.replace(/^mailto:/i, '') ?? null;
  if (text === null || NOT_A_MAILBOX.test(text)) return null;
  return EMAIL.safeParse(text).success ? text : null;
}

/** The first e-mail address written in free text ("Matthew Chase, Phone 570..., Email matthew@mail.mil"). */
export function firstEmailIn(value: unknown): string | null {
  const text = textOf(value);
  if (text === null) return null;
  for (const match of text.matchAll(/[A-Za-z0-9._%+'-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g)) {
    const email = contactEmailOf(match[0]);
    if (email !== null) return email;
  }
  return null;
}

const US_COUNTRY = /^(usa?|united states( of america)?)$/i;
const STATE_BY_NAME: ReadonlyMap<string, StateCode> = new Map(US_STATE_CODES.map((code) => [US_STATE_NAMES[code].toLowerCase(), code] as const));

/** A US postal code from a state field that holds a code ("VA") or a name ("Virginia"), else null. */
export function stateCodeOf(value: unknown): StateCode | null {
  const text = textOf(value);
  if (text === null) return null;
  const upper = text.toUpperCase();
  if (isStateCode(upper)) return upper;
  return STATE_BY_NAME.get(text.toLowerCase()) ?? null;
}

/**
 * `states` and `geography` from a place of performance. A US state or territory gives that state;
 * a foreign country, or a subdivision code we do not know ("JP-42", or "FM" for Micronesia), is
 * international; no place at all is national, as federal notices without one apply anywhere.
 */
export function placeOfPerformance(place: { state?: unknown; country?: unknown }): { states: StateCode[]; geography: string } {
  const country = textOf(place.country);
  const foreignCountry = country !== null && !US_COUNTRY.test(country);
  const stateText = textOf(place.state);
  const state = stateCodeOf(stateText);
  if (state !== null && !foreignCountry) return placeOf([state]);
  if (foreignCountry || stateText !== null) return placeOf([], true);
  return placeOf([]);
}

/** "Yes"/"No" (SAM.gov), booleans, or nothing. */
export function yesNoOf(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  const text = textOf(value)?.toLowerCase() ?? null;
  if (text === null) return null;
  if (['yes', 'y', 'true', '1'].includes(text)) return true;
  if (['no', 'n', 'false', '0'].includes(text)) return false;
  return null;
}

/**
 * A notice's stored status: open while the source lists it as active, closed once it says
 * inactive, once its response deadline has passed, or once its archive date has (SAM.gov takes a
 * notice off its active list on that date, so notices without a deadline do not stay open forever).
 */
export function noticeStatus(notice: { active: boolean | null; deadline: string | null; archiveDate: string | null; today: string }): 'open' | 'closed' {
  if (notice.active === false) return 'closed';
  if (notice.archiveDate !== null && notice.archiveDate < notice.today) return 'closed';
  return closedIfPastDeadline('open', notice.deadline, notice.today);
}

/**
 * The agency names of a SAM.gov organisation path "DEPARTMENT.SUB-TIER.OFFICE[...]", most specific
 * first and without the office: [sub-tier, department]. Offices are buying units ("FA4407 375 CONS
 * LGC"), not funders. A repeated level ("ENERGY, DEPARTMENT OF.ENERGY, DEPARTMENT OF") appears once.
 */
export function agencyNamesOfPath(path: unknown): string[] {
  const levels = (textOf(path) ?? '')
    .split('.')
    .map((level) => level.replace(/\s+/g, ' ').trim())
    .filter((level) => level !== '');
  return distinctNames(levels.slice(0, 2).reverse());
}

/** Names without blanks and repeats (compared case-insensitively), in the given order. */
export function distinctNames(names: ReadonlyArray<string | null | undefined>): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const name of names) {
    const text = textOf(name);
    if (text === null || seen.has(text.toLowerCase())) continue;
    seen.add(text.toLowerCase());
    result.push(text);
  }
  return result;
}

/** What a notice says about itself, for the composed description of a notice without text. */
export interface NoticeFacts {
  noticeType: string | null;
  solicitationNumber: string | null;
  agencies: readonly string[];
  naics: string | null;
  classificationCode: string | null;
  setAside: string | null;
  place: string | null;
  award?: { number: string | null; date: string | null; amount: number | null; awardee: string | null };
}

/** The description of a notice without text (notice-description.ts), its codes named. */
export function composedNoticeDescription(facts: NoticeFacts): string {
  return describeNotice(facts, {
    industry: facts.naics ? naicsTitleOf(facts.naics) : null,
    productOrService: facts.classificationCode ? pscGroupOf(facts.classificationCode) : null,
  });
}

/** The names of a contract's industry and product and service group, which keyword search reads beside its text. */
export function classificationOf(naics: string | null, psc: string | null): { naics_description: string | null; psc_description: string | null } {
  return { naics_description: naics ? naicsTitleOf(naics) : null, psc_description: psc ? pscGroupOf(psc) : null };
}

/** "Scott Air Force Base, IL, USA" from whichever parts of a place a feed gives. */
export function placeText(...parts: unknown[]): string | null {
  const text = distinctNames(parts.map((part) => textOf(part))).join(', ');
  return text === '' ? null : text;
}

/** Notice type names SAM.gov uses for awards (and FedBizOpps' AWARD code, once named). */
export function isAwardNotice(noticeType: string | null): boolean {
  return noticeType !== null && /^award( notice)?$/i.test(noticeType.trim());
}
