import type { AssistanceListing } from '../lambdas/core/records';

/**
 * The identifiers of synthetic records (assistance listings and agency codes of grants,
 * solicitation numbers and product and service codes of contracts), derived from what a record
 * already is rather than drawn from its random stream, so adding them changed no other field of
 * the deterministic catalogue.
 */

/** The two digits that open the Assistance Listing numbers of each synthetic federal agency (as the real ones do). */
const LISTING_PREFIX: Readonly<Record<string, string>> = {
  HHS: '93',
  USDA: '10',
  ED: '84',
  DOJ: '16',
  DOE: '81',
  VA: '64',
  NSF: '47',
  USACE: '12',
  NAVY: '12',
  USAF: '12',
  DLA: '12',
  GSA: '39',
  DOT: '20',
  HUD: '14',
  DOL: '17',
  DHS: '97',
  CISA: '97',
  CBP: '97',
  DOC: '11',
  DOI: '15',
  EPA: '66',
  NEA: '45',
  NEH: '45',
  IMLS: '45',
  NASA: '43',
  SBA: '59',
  TREAS: '21',
  DOS: '19',
  USAID: '98',
  CNCS: '94',
};

/** A stable number from a text (FNV-1a), for program numbers that do not depend on record order. */
function stableNumber(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** A topic key as a program title: "community-development" -> "Community Development Program". */
function programTitleOf(topicKey: string): string {
  return `${topicKey
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ')} Program`;
}

/** A federal agency's grant on a topic falls under one listing of that agency; other funders' grants under none. */
export function syntheticAssistanceListings(federalCode: string | null, topicKey: string): AssistanceListing[] {
  const prefix = federalCode === null ? undefined : LISTING_PREFIX[federalCode];
  if (prefix === undefined) return [];
  const program = String(100 + (stableNumber(`${federalCode}/${topicKey}`) % 900));
  return [{ number: `${prefix}.${program}`, program_title: programTitleOf(topicKey) }];
}

/** "SYN-C-GSA-26-000123" -> "GSA26R000123" (an award's notice, "SYN-CA-…", a "C" for contract). */
export function syntheticSolicitationNumber(sourceId: string): string {
  const [, type = 'C', code = 'SYN', year = '00', serial = '0'] = sourceId.split('-');
  return `${code}${year}${type === 'CA' ? 'C' : 'R'}${serial}`;
}

/** The product and service code a synthetic notice of each NAICS industry carries (the service or supply group it buys). */
const PSC_BY_NAICS_PREFIX: readonly (readonly [string, string])[] = [
  ['5415', 'DA01'],
  ['5182', 'DA01'],
  ['5413', 'C219'],
  ['5416', 'R408'],
  ['5417', 'AN13'],
  ['5419', 'R499'],
  ['5612', 'S206'],
  ['5616', 'S206'],
  ['5617', 'S201'],
  ['5621', 'S205'],
  ['5629', 'F108'],
  ['2362', 'Y1AA'],
  ['2371', 'Y1PZ'],
  ['2373', 'Y1LB'],
  ['2382', 'Z2AA'],
  ['3329', '1305'],
  ['3345', '6605'],
  ['3364', '1560'],
  ['3391', '6515'],
  ['4234', '6515'],
  ['4244', '8905'],
  ['4841', 'V112'],
  ['4931', 'S215'],
  ['6114', 'U008'],
  ['6115', 'U009'],
  ['6117', 'U008'],
  ['6211', 'Q201'],
  ['6215', 'Q301'],
  ['6221', 'Q201'],
  ['7223', 'S203'],
  ['8113', 'J099'],
];

export function syntheticPscCode(naics: string | null): string | null {
  if (naics === null) return null;
  return PSC_BY_NAICS_PREFIX.find(([prefix]) => naics.startsWith(prefix))?.[1] ?? null;
}
