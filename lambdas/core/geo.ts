/**
 * US postal codes accepted by the `states` filter: the 50 states, DC and the inhabited territories.
 * Order matters: the embedded index stores a record's states as a bitmask by position in this list.
 */
export const US_STATE_CODES = [
  'AL',
  'AK',
  'AZ',
  'AR',
  'CA',
  'CO',
  'CT',
  'DE',
  'FL',
  'GA',
  'HI',
  'ID',
  'IL',
  'IN',
  'IA',
  'KS',
  'KY',
  'LA',
  'ME',
  'MD',
  'MA',
  'MI',
  'MN',
  'MS',
  'MO',
  'MT',
  'NE',
  'NV',
  'NH',
  'NJ',
  'NM',
  'NY',
  'NC',
  'ND',
  'OH',
  'OK',
  'OR',
  'PA',
  'RI',
  'SC',
  'SD',
  'TN',
  'TX',
  'UT',
  'VT',
  'VA',
  'WA',
  'WV',
  'WI',
  'WY',
  'DC',
  'PR',
  'VI',
  'GU',
  'AS',
  'MP',
] as const;

export type StateCode = (typeof US_STATE_CODES)[number];

export const US_STATE_NAMES: Readonly<Record<StateCode, string>> = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
  DC: 'District of Columbia',
  PR: 'Puerto Rico',
  VI: 'U.S. Virgin Islands',
  GU: 'Guam',
  AS: 'American Samoa',
  MP: 'Northern Mariana Islands',
};

const CODE_SET: ReadonlySet<string> = new Set(US_STATE_CODES);

export function isStateCode(value: string): value is StateCode {
  return CODE_SET.has(value);
}

/** Legacy `geography` levels from the formal interface description. */
export const GEOGRAPHY_LEVELS = ['national', 'state', 'local', 'international'] as const;
export type GeographyLevel = (typeof GEOGRAPHY_LEVELS)[number];

// Longest names first, and each found name is cut out, so "West Virginia" is not also read as Virginia.
const NAMES_LONGEST_FIRST: ReadonlyArray<readonly [string, StateCode]> = US_STATE_CODES.map((code) => [US_STATE_NAMES[code].toLowerCase(), code] as const).sort(
  (a, b) => b[0].length - a[0].length,
);

/**
 * Best-effort canonicalisation of free-text locations ("Austin, TX", "New York statewide") to
 * postal codes. A bare two-letter code counts only when written in capitals, so words such as
 * "in" or "or" are not read as Indiana or Oregon.
 */
export function statesMentionedIn(text: string): StateCode[] {
  const found = new Set<StateCode>();
  let rest = ` ${text
    .toLowerCase()
    .replace(/[^a-z.\s]/g, ' ')
    .replace(/\s+/g, ' ')} `;
  for (const [name, code] of NAMES_LONGEST_FIRST) {
    if (rest.includes(` ${name} `)) {
      found.add(code);
      rest = rest.split(` ${name} `).join('  ');
    }
  }
  for (const token of text.split(/[^A-Za-z]+/)) {
    if (token.length === 2 && token === token.toUpperCase() && isStateCode(token)) found.add(token);
  }
  return US_STATE_CODES.filter((code) => found.has(code));
}

/**
 * The legacy geography level of a record, for the deprecated `geography` filter: national records
 * apply everywhere, local ones name a place inside a state ("Local: Austin, TX").
 */
export function geographyLevelOf(states: readonly string[], geography: string | null): GeographyLevel {
  const text = (geography ?? '').toLowerCase();
  if (states.length === 0) return /international|foreign|overseas|worldwide/.test(text) ? 'international' : 'national';
  // "Austin, TX" names a place; "Multi-state: CA, NV" lists states, so a comma counts only for one state.
  const place = /^local\b|\bcounty\b|\bcity of\b/.test(text) || (states.length === 1 && text.includes(','));
  return place ? 'local' : 'state';
}
