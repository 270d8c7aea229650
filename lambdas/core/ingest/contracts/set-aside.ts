import { SET_ASIDE_CODES } from '../../query/list-query';
import { textOf } from '../source-values';

/**
 * SAM.gov set-aside codes from what the feeds write: the code itself (the v2 API, the CSV export,
 * USAspending), or only its description, worded differently by SAM.gov ("Total Small Business
 * Set-Aside (FAR 19.5)"), FedBizOpps ("Total Small Business") and USAspending ("SMALL BUSINESS SET
 * ASIDE - TOTAL"). Only codes the API can filter on are stored: a value that is neither a known code
 * nor a recognised description gives null, as "no set-aside" does.
 */

type SetAsideCode = (typeof SET_ASIDE_CODES)[number];

const KNOWN_CODES: ReadonlySet<string> = new Set(SET_ASIDE_CODES);

/** Descriptions, most specific first: "Economically Disadvantaged Women-Owned" before "Women-Owned". */
const DESCRIPTION_RULES: ReadonlyArray<readonly [RegExp, SetAsideCode, SetAsideCode]> = [
  // [pattern, competed code, sole-source code]
  [/economically\s+disadvantaged\s+wom[ae]n/, 'EDWOSB', 'EDWOSBSS'],
  [/wom[ae]n[\s-]*owned|\bwosb\b/, 'WOSB', 'WOSBSS'],
  [/service[\s-]*disabled|\bsdvosb/, 'SDVOSBC', 'SDVOSBS'],
  [/hubzone|historically\s+underutilized/, 'HZC', 'HZS'],
  [/(^|[^\d.])8\s*\(?a\)?(?![a-z])/, '8A', '8AN'],
  [/buy\s+indian/, 'BICIV', 'BICIV'],
  [/indian\s+small\s+business\s+economic/, 'ISBEE', 'ISBEE'],
  [/indian\s+economic\s+enterprise/, 'IEE', 'IEE'],
  [/veteran[\s-]*owned/, 'VSA', 'VSS'],
  [/local\s+area/, 'LAS', 'LAS'],
  [/partial\s+small\s+business|small\s+business\s+set[\s-]*aside\s*-\s*partial/, 'SBP', 'SBP'],
  [/small\s+business/, 'SBA', 'SBA'],
];

const NO_SET_ASIDE = /^(none|no\s+set[\s-]*aside(\s+used)?\.?|unrestricted|full\s+and\s+open.*)$/;

/** The code a set-aside description stands for, or null for "no set-aside" and unknown wording. */
export function setAsideCodeOfDescription(description: string): SetAsideCode | null {
  const text = description.trim().toLowerCase();
  if (NO_SET_ASIDE.test(text)) return null;
  const soleSource = /sole[\s-]*source/.test(text);
  for (const [pattern, competed, sole] of DESCRIPTION_RULES) {
    if (pattern.test(text)) return soleSource ? sole : competed;
  }
  return null;
}

/**
 * The set-aside code of a record from its code field and/or its description field. A known code
 * wins (SAM.gov writes "BICiv", hence the upper-casing); otherwise the description is read.
 */
export function setAsideCodeOf(code: unknown, description: unknown = null): SetAsideCode | null {
  const codeText = textOf(code)?.toUpperCase() ?? null;
  if (codeText !== null && KNOWN_CODES.has(codeText)) return codeText as SetAsideCode;
  const descriptionText = textOf(description);
  if (descriptionText !== null) return setAsideCodeOfDescription(descriptionText);
  // Some feeds put the description in the code column.
  return codeText === null ? null : setAsideCodeOfDescription(codeText);
}
