/**
 * Federal agency names as feeds write them: "INTERIOR, DEPARTMENT OF THE" (the Federal
 * Hierarchy), "DEPT OF THE INTERIOR" (SAM.gov notices), "Department of the Interior" (Grants.gov).
 * agencyKeyOf makes them compare equal, so a record links to the funder its agency already is.
 */

const ABBREVIATIONS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bdept\b/g, 'department'],
  [/\bagcy\b/g, 'agency'],
  [/\badmin\b/g, 'administration'],
  [/\bnatl\b/g, 'national'],
  [/\bsvc\b/g, 'service'],
  [/\bsvcs\b/g, 'services'],
  [/\bcmd\b/g, 'command'],
  [/\bu s\b/g, 'us'],
];

/** "INTERIOR, DEPARTMENT OF THE" -> "DEPARTMENT OF THE INTERIOR": the hierarchy lists departments inverted. */
export function uninvertedAgencyName(name: string): string {
  const match = /^(.+?),\s*((?:department|dept|office|bureau|agency) of(?: the)?)\s*$/i.exec(name.trim());
  return match ? `${match[2]} ${match[1]}` : name.trim();
}

/** The matching key of an agency name: case, inversion, abbreviations, acronym suffixes and "the" do not matter. */
export function agencyKeyOf(name: string): string {
  let key = ` ${uninvertedAgencyName(name)
    .toLowerCase()
    .replace(/\([^)]*\)/g, ' ')
    .replace(/&/g, ' and ')
    .replace(/\./g, '')
    .replace(/[^a-z0-9]+/g, ' ')} `;
  for (const [pattern, replacement] of ABBREVIATIONS) key = key.replace(pattern, replacement);
  key = key.replace(/ the /g, ' ').replace(/^ (?:us|united states) (?=department|agency)/, ' ');
  return key.replace(/\s+/g, ' ').trim();
}

/** SAM.gov's abbreviations, written out in display names ("DEPT OF THE ARMY" -> "Department of the Army"). */
const DISPLAY_EXPANSIONS: Readonly<Record<string, string>> = { DEPT: 'department', AGCY: 'agency', ADMIN: 'administration', NATL: 'national' };

const SMALL_WORDS = new Set(['of', 'the', 'and', 'for', 'on', 'in', 'to', 'at', 'by', 'a', 'an']);

/**
 * A readable name for an agency written in capitals ("DEPT OF THE ARMY" -> "Department of the Army").
 * Acronyms in parentheses and codes with digits stay as written; mixed-case names are kept.
 */
export function agencyDisplayName(name: string): string {
  const plain = uninvertedAgencyName(name).replace(/\s+/g, ' ');
  if (plain !== plain.toUpperCase()) return plain;
  let insideParentheses = false;
  return plain
    .split(' ')
    .map((word, index) => {
      const opens = word.startsWith('(');
      insideParentheses ||= opens;
      const keep = insideParentheses || /\d/.test(word) || !/[AEIOUY]/.test(word.replace(/[^A-Z]/g, ''));
      if (word.endsWith(')')) insideParentheses = false;
      if (keep) return word;
      const lower = DISPLAY_EXPANSIONS[word] ?? word.toLowerCase();
      if (index > 0 && SMALL_WORDS.has(lower)) return lower;
      return lower.replace(/(^|[-/'])([a-z])/g, (_, sep: string, letter: string) => `${sep}${letter.toUpperCase()}`);
    })
    .join(' ');
}
