import { GRANT_CATEGORY_CODES, GRANT_CATEGORY_NAMES, grantCategoryName } from '../../categories';

/**
 * Funding-activity categories as readable names (the names in categories.ts). Feeds give codes
 * ("HL"), labels ("Health", "Infrastructure Investment and Jobs Act (IIJA)", "Other (see text field
 * entitled …)") or simpler.grants.gov names ("science_technology_and_other_research_and_development").
 *
 * Decisions:
 * - A label is compared without case, punctuation, a trailing parenthetical and the word "and",
 *   so the variants above meet their table name.
 * - An unknown label that reads as words is kept (tidied: parenthetical dropped, snake_case
 *   spelled out), because Grants.gov adds categories over time ("Energy Infrastructure and
 *   Critical Mineral and Materials") and a readable name is still useful to search and filter.
 * - An unknown short code (one to three capitals, e.g. "XY") is dropped: it is not readable.
 */

/** "Law, Justice and Legal Services" and "law_justice_and_legal_services" both become "lawjusticelegalservices". */
function categoryKey(label: string): string {
  return label
    .toLowerCase()
    .replace(/\s*\([^)]*\)\s*$/, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .split(' ')
    .filter((word) => word !== '' && word !== 'and')
    .join('');
}

const NAME_BY_KEY = new Map(GRANT_CATEGORY_CODES.map((code) => [categoryKey(GRANT_CATEGORY_NAMES[code]!), GRANT_CATEGORY_NAMES[code]!]));

/** The readable name for one code or label, or null when it is an unknown code. */
export function categoryNameOf(value: string): string | null {
  const text = value.trim();
  if (text === '') return null;
  const byCode = grantCategoryName(text);
  if (byCode) return byCode;
  const byLabel = NAME_BY_KEY.get(categoryKey(text));
  if (byLabel) return byLabel;
  if (/^[A-Z]{1,3}$/.test(text)) return null;
  const words = text
    .replace(/\s*\([^)]*\)\s*$/, '')
    .replace(/_/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (words === '') return null;
  return words === words.toLowerCase() ? words[0]!.toUpperCase() + words.slice(1) : words;
}

/** Readable category names for a record's codes/labels, without duplicates, in source order. */
export function categoryNamesFrom(values: readonly string[]): string[] {
  const names = values.map(categoryNameOf).filter((name): name is string => name !== null);
  return [...new Set(names)];
}
