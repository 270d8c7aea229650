import type { Contract, Grant, RecordByKind, ResourceKind } from '../records';

/**
 * Identifiers a search finds exactly (DESIGN.md section 3, "Keyword search"): opportunity,
 * solicitation and notice numbers, Assistance Listing (CFDA) numbers, NAICS and product and service
 * codes, agency codes. Each is a keyword field beside the analysed text, as Simpler.Grants.gov
 * keeps opportunity_number.keyword^12 and assistance_listing_number^10: a query that is an
 * identifier finds its records first, whatever the spacing, case or hyphens it was typed with
 * ("par 25 098" finds PAR-25-098). Declared once here; both search indices store the keys this
 * module makes and compare them with the query's.
 */

/** One identifier field of a kind: its name, its rank among the fields, and the values a record has. */
export interface IdentifierField<K extends ResourceKind> {
  name: string;
  /**
   * The field's boost, as Simpler.Grants.gov weighs its fields: among records an identifier query
   * matches, those matching through a heavier field come first.
   */
  weight: number;
  valuesOf(record: RecordByKind[K]): readonly (string | null)[];
  /**
   * Whether a word of a longer query ("CFDA 93.262", "NAICS 336611") may match the field, or only
   * the whole query. Codes read from a title are whole-query only: "COVID-19 vaccine research"
   * must not put every COVID-19 title first.
   */
  matchesWords: boolean;
}

/** Upper case, letters, digits and dots only: "par-25-098 " and "PAR 25 098" are both "PAR25098". */
export function identifierKey(value: string): string {
  return value
    .normalize('NFKC')
    .toUpperCase()
    .replace(/[^A-Z0-9.]/g, '')
    .replace(/^\.+|\.+$/g, '');
}

/**
 * Agency code keys: the code, each of its parts, and each part without its trailing digits, so
 * "HHS-NIH11" is found as "HHS-NIH11", "HHS" or "NIH".
 */
function agencyCodeValues(code: string | null): string[] {
  if (code === null) return [];
  const parts = code.split('-').filter((part) => part !== '');
  return [code, ...parts, ...parts.map((part) => part.replace(/\d+$/, ''))];
}

/** Codes in a title: words with a letter and at least two digits, six characters or more ("36C24827Q0012", "W912DY-26-R-0012"). */
export function titleCodesOf(title: string): string[] {
  return title.split(/[\s,;:()[\]]+/).filter((word) => {
    const key = identifierKey(word);
    return key.length >= 6 && /[A-Z]/.test(key) && (key.match(/\d/g)?.length ?? 0) >= 2;
  });
}

const GRANT_FIELDS: readonly IdentifierField<'grant'>[] = [
  { name: 'agency_code', weight: 16, valuesOf: (grant: Grant) => agencyCodeValues(grant.agency_code), matchesWords: true },
  { name: 'opportunity_number', weight: 12, valuesOf: (grant: Grant) => [grant.source_id], matchesWords: true },
  { name: 'assistance_listing', weight: 10, valuesOf: (grant: Grant) => grant.assistance_listings.map((listing) => listing.number), matchesWords: true },
  { name: 'title_code', weight: 6, valuesOf: (grant: Grant) => titleCodesOf(grant.title), matchesWords: false },
];

const CONTRACT_FIELDS: readonly IdentifierField<'contract'>[] = [
  { name: 'solicitation_number', weight: 12, valuesOf: (contract: Contract) => [contract.solicitation_number], matchesWords: true },
  { name: 'notice_id', weight: 12, valuesOf: (contract: Contract) => [contract.source_id], matchesWords: true },
  { name: 'naics', weight: 8, valuesOf: (contract: Contract) => [contract.naics], matchesWords: true },
  { name: 'psc_code', weight: 8, valuesOf: (contract: Contract) => [contract.psc_code], matchesWords: true },
  { name: 'title_code', weight: 6, valuesOf: (contract: Contract) => titleCodesOf(contract.title), matchesWords: false },
];

export const IDENTIFIER_FIELDS: { readonly [K in ResourceKind]: readonly IdentifierField<K>[] } = {
  grant: GRANT_FIELDS,
  contract: CONTRACT_FIELDS,
  funder: [],
};

/** A record's identifier keys, field by field (every field present, empty when the record has none). */
export function identifierKeysOf<K extends ResourceKind>(kind: K, record: RecordByKind[K]): Record<string, string[]> {
  const keys: Record<string, string[]> = {};
  for (const field of IDENTIFIER_FIELDS[kind] as readonly IdentifierField<K>[]) {
    const found = new Set<string>();
    for (const value of field.valuesOf(record)) {
      const key = value === null ? '' : identifierKey(value);
      if (key.length >= 2) found.add(key);
    }
    keys[field.name] = [...found];
  }
  return keys;
}

/** The most words a query may have for one of its words, or for it without a digit, to be taken as an identifier. */
const MAX_IDENTIFIER_QUERY_WORDS = 3;
/** Longer than any identifier: a longer text is never compared whole. */
const MAX_IDENTIFIER_LENGTH = 40;

/**
 * What of a search text may be an identifier: the whole text as one key, when it has at most
 * three words or a digit ("par 25 098" -> "PAR25098", "HHS 2025 ACF OCS EE 0042", but not "grants
 * for rural health clinics"), and in a text of at most three words each word with a digit in it
 * ("CFDA 93.262" -> "93.262"): in a sentence, a number is a quantity or a year, not a code. Null
 * when nothing is.
 */
export interface IdentifierQuery {
  whole: string | null;
  words: string[];
}

export function identifierQueryOf(text: string): IdentifierQuery | null {
  const whole = identifierKey(text);
  const parts = text
    .trim()
    .split(/\s+/)
    .filter((part) => part !== '');
  const short = parts.length <= MAX_IDENTIFIER_QUERY_WORDS;
  const wholeKey = whole.length >= 2 && whole.length <= MAX_IDENTIFIER_LENGTH && (short || /\d/.test(whole)) ? whole : null;
  const words = !short
    ? []
    : [
        ...new Set(
          parts
            .filter((part) => /\d/.test(part))
            .map(identifierKey)
            .filter((key) => key.length >= 2 && key !== whole),
        ),
      ];
  return wholeKey === null && words.length === 0 ? null : { whole: wholeKey, words };
}

/** The keys a field is looked up by for a query: the whole text, and its words when the field takes words. */
export function lookupKeysOf(query: IdentifierQuery, field: { matchesWords: boolean }): string[] {
  return [...(query.whole === null ? [] : [query.whole]), ...(field.matchesWords ? query.words : [])];
}

/**
 * The score an identifier match adds: above every record the words alone match (whose BM25
 * stays under IDENTIFIER_FIELD_STEP), then by its heaviest matching
 * field, then as the words rank it.
 */
export const IDENTIFIER_MATCH_SCORE = 1_000_000;
export const IDENTIFIER_FIELD_STEP = 100_000;

export function identifierScoreOf(weight: number): number {
  return IDENTIFIER_MATCH_SCORE + weight * IDENTIFIER_FIELD_STEP;
}
