/**
 * Category vocabularies. Records store readable category names (interface section 2), so sources
 * that publish codes (Grants.gov FundingActivityCategory) are translated through this table.
 */

/** Grants.gov funding-activity category codes. */
export const GRANT_CATEGORY_CODES = [
  'ACA',
  'AG',
  'AR',
  'BC',
  'CD',
  'CP',
  'DPR',
  'ED',
  'ELT',
  'EN',
  'ENV',
  'FN',
  'HL',
  'HO',
  'HU',
  'IIJ',
  'IS',
  'ISS',
  'LJL',
  'NR',
  'O',
  'OZ',
  'RA',
  'RD',
  'ST',
  'T',
] as const;
export type GrantCategoryCode = (typeof GRANT_CATEGORY_CODES)[number];

const NAMES_BY_CODE: Readonly<Record<GrantCategoryCode, string>> = {
  ACA: 'Affordable Care Act',
  AG: 'Agriculture',
  AR: 'Arts',
  BC: 'Business and Commerce',
  CD: 'Community Development',
  CP: 'Consumer Protection',
  DPR: 'Disaster Prevention and Relief',
  ED: 'Education',
  ELT: 'Employment, Labor and Training',
  EN: 'Energy',
  ENV: 'Environment',
  FN: 'Food and Nutrition',
  HL: 'Health',
  HO: 'Housing',
  HU: 'Humanities',
  IIJ: 'Infrastructure Investment and Jobs Act',
  IS: 'Information and Statistics',
  ISS: 'Income Security and Social Services',
  LJL: 'Law, Justice and Legal Services',
  NR: 'Natural Resources',
  O: 'Other',
  OZ: 'Opportunity Zone Benefits',
  RA: 'Recovery Act',
  RD: 'Regional Development',
  ST: 'Science and Technology and other Research and Development',
  T: 'Transportation',
};

/** Readable name by Grants.gov code. Typed loosely so callers can index with codes read from a feed. */
export const GRANT_CATEGORY_NAMES: Readonly<Record<string, string>> = NAMES_BY_CODE;

/**
 * The readable name of a funding-activity code; feeds vary in case and padding, hence the
 * normalisation. Unknown codes give undefined so the caller decides between dropping and keeping.
 */
export function grantCategoryName(code: GrantCategoryCode): string;
export function grantCategoryName(code: string): string | undefined;
export function grantCategoryName(code: string): string | undefined {
  const normalised = code.trim().toUpperCase();
  // hasOwn keeps inherited keys such as "CONSTRUCTOR" from resolving to a function.
  return Object.hasOwn(NAMES_BY_CODE, normalised) ? GRANT_CATEGORY_NAMES[normalised] : undefined;
}

/** Contract categories, grouped loosely by NAICS sector; SAM.gov has no category field of its own. */
export const CONTRACT_CATEGORY_NAMES = [
  'Information Technology',
  'Professional Services',
  'Construction',
  'Research and Development',
  'Medical',
  'Facilities Support',
  'Logistics and Supplies',
  'Security and Defense',
  'Environmental Services',
  'Training and Education',
] as const;
export type ContractCategoryName = (typeof CONTRACT_CATEGORY_NAMES)[number];
