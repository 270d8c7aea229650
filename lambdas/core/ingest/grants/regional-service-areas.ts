import type { StateCode } from '../../geo';

/**
 * Service areas of the regional bodies whose area is fixed by statute or by the agency's own
 * published office list, and the names text uses for them. Only whole states are listed: several
 * bodies cover part of a state (Appalachian counties of New York, northern counties of Maine), and
 * a state is kept whenever any of it is inside, because dropping a partly covered state would hide
 * the grant from applicants who may apply.
 */
export interface ServiceArea {
  /** Regular-expression source matching the body's or region's name (case-insensitive). */
  readonly name: string;
  readonly states: readonly StateCode[];
  /** The body itself runs the competition, so "the <name> invites applications" restricts. */
  readonly fundingBody: boolean;
}

export const REGIONAL_SERVICE_AREAS: readonly ServiceArea[] = [
  // 40 U.S.C. 14102(a)(1): the Appalachian region.
  {
    name: String.raw`Appalachian\s+Regional\s+Commission|Appalachian\s+Region\b(?!al)`,
    states: ['AL', 'GA', 'KY', 'MD', 'MS', 'NY', 'NC', 'OH', 'PA', 'SC', 'TN', 'VA', 'WV'],
    fundingBody: true,
  },
  // 7 U.S.C. 2009aa(2): the Delta Regional Authority's region.
  {
    name: String.raw`Delta\s+Regional\s+Authority`,
    states: ['AL', 'AR', 'IL', 'KY', 'LA', 'MS', 'MO', 'TN'],
    fundingBody: true,
  },
  // 40 U.S.C. 15733 (as amended by the 2018 farm bill, Pub. L. 115-334).
  { name: String.raw`Northern\s+Border\s+Regional\s+Commission`, states: ['ME', 'NH', 'NY', 'VT'], fundingBody: true },
  // Denali Commission Act of 1998, Pub. L. 105-277 div. C title III: Alaska only.
  { name: String.raw`Denali\s+Commission`, states: ['AK'], fundingBody: true },
  // 40 U.S.C. 15731: the parts of these states outside the Appalachian and Delta regions.
  {
    name: String.raw`Southeast\s+Crescent\s+Regional\s+Commission`,
    states: ['AL', 'FL', 'GA', 'MS', 'NC', 'SC', 'VA'],
    fundingBody: true,
  },
  // 40 U.S.C. 15732.
  { name: String.raw`Southwest\s+Border\s+Regional\s+Commission`, states: ['AZ', 'CA', 'NM', 'TX'], fundingBody: true },
  // Great Lakes Authority: 40 U.S.C. subtitle V ch. 157 as amended by Pub. L. 117-328 (2022). The
  // same eight states are the parties to the Great Lakes Basin Compact (Pub. L. 90-419) and the
  // "Great Lakes States" of the Clean Water Act (33 U.S.C. 1268(a)(3)).
  {
    name: String.raw`Great\s+Lakes\s+Authority|Great\s+Lakes\s+States\b`,
    states: ['IL', 'IN', 'MI', 'MN', 'NY', 'OH', 'PA', 'WI'],
    fundingBody: false,
  },
  // ANCSA lands were conveyed under 43 U.S.C. 1601 ff. to Alaska Native corporations: all in Alaska.
  {
    name: String.raw`(?:Alaska\s+Native\s+Claims\s+Settlement\s+Act|ANCSA)\s+(?:\(ANCSA\)\s+)?lands`,
    states: ['AK'],
    fundingBody: false,
  },
  // The U.S. Pacific territories; the freely associated states have no state code.
  { name: String.raw`(?:U\.S\.[-\s]+(?:Affiliated\s+)?)?Pacific\s+Islands`, states: ['AS', 'GU', 'MP'], fundingBody: false },
];

/** EDA regional offices and the states and territories each serves (eda.gov, "Regional Offices"). */
export const EDA_REGIONAL_OFFICES: Readonly<Record<string, readonly StateCode[]>> = {
  atlanta: ['AL', 'FL', 'GA', 'KY', 'MS', 'NC', 'SC', 'TN'],
  austin: ['AR', 'LA', 'NM', 'OK', 'TX'],
  chicago: ['IL', 'IN', 'MI', 'MN', 'OH', 'WI'],
  denver: ['CO', 'IA', 'KS', 'MO', 'MT', 'NE', 'ND', 'SD', 'UT', 'WY'],
  philadelphia: ['CT', 'DE', 'DC', 'ME', 'MD', 'MA', 'NH', 'NJ', 'NY', 'PA', 'PR', 'RI', 'VT', 'VA', 'VI', 'WV'],
  seattle: ['AK', 'AS', 'AZ', 'CA', 'GU', 'HI', 'ID', 'MP', 'NV', 'OR', 'WA'],
};

/**
 * EPA regions 1-10 (epa.gov, "Visiting a Regional Office"). Other agencies number their regions
 * differently (Fish and Wildlife Service Region 2 is the Southwest), so this table is only used
 * where the text names EPA.
 */
export const EPA_REGIONS: Readonly<Record<number, readonly StateCode[]>> = {
  1: ['CT', 'ME', 'MA', 'NH', 'RI', 'VT'],
  2: ['NJ', 'NY', 'PR', 'VI'],
  3: ['DE', 'DC', 'MD', 'PA', 'VA', 'WV'],
  4: ['AL', 'FL', 'GA', 'KY', 'MS', 'NC', 'SC', 'TN'],
  5: ['IL', 'IN', 'MI', 'MN', 'OH', 'WI'],
  6: ['AR', 'LA', 'NM', 'OK', 'TX'],
  7: ['IA', 'KS', 'MO', 'NE'],
  8: ['CO', 'MT', 'ND', 'SD', 'UT', 'WY'],
  9: ['AZ', 'CA', 'HI', 'NV', 'AS', 'GU', 'MP'],
  10: ['AK', 'ID', 'OR', 'WA'],
};

const OFFICE = '(Atlanta|Austin|Chicago|Denver|Philadelphia|Seattle)';
/** "the states served by the Denver Regional Office", "EDA's Denver Regional Office's region". */
export const EDA_OFFICE_NAME = new RegExp(
  String.raw`\b(?:the\s+)?(?:states|areas?|region)\s+(?:served|covered)\s+by\s+(?:the\s+)?(?:EDA(?:['’]s)?\s+)?${OFFICE}\s+Regional\s+Office|\b(?:EDA(?:['’]s)?\s+)?${OFFICE}\s+Regional\s+Office['’]s\s+(?:region|service\s+area)`,
  'gi',
);
/** An EDA listing whose title starts with an office's city ("Seattle FY 2021 – FY 2023 EDA Planning …"). */
export const EDA_OFFICE_TITLE = new RegExp(String.raw`^(?:EDA\s+)?${OFFICE}\b(?=.*\b(?:EDA|Economic\s+Development)\b)`, 'i');
export const edaOfficeStates = (city: string): readonly StateCode[] => EDA_REGIONAL_OFFICES[city.toLowerCase()] ?? [];

/** "EPA Region 5", "EPA Region I". */
export const EPA_REGION_NAME = /\bEPA(?:['’]s)?\s+Region\s+(10|[1-9]|I{1,3}|IV|VI{0,3}|IX|X)\b/gi;
const ROMAN: Readonly<Record<string, number>> = { I: 1, II: 2, III: 3, IV: 4, V: 5, VI: 6, VII: 7, VIII: 8, IX: 9, X: 10 };
export const epaRegionStates = (numeral: string): readonly StateCode[] => EPA_REGIONS[ROMAN[numeral.toUpperCase()] ?? Number(numeral)] ?? [];
