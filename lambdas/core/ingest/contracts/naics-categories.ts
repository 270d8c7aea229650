import type { ContractCategoryName } from '../../categories';

/**
 * Contract categories by NAICS prefix. SAM.gov has no category field, so a notice's category is
 * read from its industry code: the longest matching prefix wins, so "54151" (computer systems
 * design) overrides "541" (professional services). Codes no rule covers (agriculture, mining,
 * finance, ...) get no category rather than a wrong one.
 */
const CATEGORY_BY_NAICS_PREFIX: Readonly<Record<string, ContractCategoryName>> = {
  // Information: software publishers (2017 and 2022 codes), telecommunications, hosting, and
  // computer systems design, the bulk of federal IT buying.
  '5112': 'Information Technology',
  '5132': 'Information Technology',
  '517': 'Information Technology',
  '518': 'Information Technology',
  '54151': 'Information Technology',
  '3341': 'Information Technology', // computer and peripheral equipment

  // Professional, scientific and technical services; research is its own category.
  '541': 'Professional Services',
  '5611': 'Professional Services', // office administrative services
  '5613': 'Professional Services', // employment services
  '5417': 'Research and Development',

  '23': 'Construction',

  '62': 'Medical',
  '3391': 'Medical', // medical equipment and supplies manufacturing
  '42345': 'Medical', // medical equipment wholesalers

  // Administrative and support services run bases and buildings; waste and remediation is environmental.
  '56': 'Facilities Support',
  '22': 'Facilities Support', // utilities
  '531': 'Facilities Support', // leasing of buildings and land
  '7223': 'Facilities Support', // food service contractors
  '811': 'Facilities Support', // repair and maintenance
  '562': 'Environmental Services',
  '2213': 'Environmental Services', // water and sewage systems
  '1153': 'Environmental Services', // forestry support, including wildfire suppression
  '5616': 'Security and Defense', // investigation and security services

  // Goods: manufacturing and trade are what supply notices buy, and transport moves them.
  '31': 'Logistics and Supplies',
  '32': 'Logistics and Supplies',
  '33': 'Logistics and Supplies',
  '42': 'Logistics and Supplies',
  '48': 'Logistics and Supplies',
  '49': 'Logistics and Supplies',

  // Public administration (national security sits in 928) and defence hardware.
  '92': 'Security and Defense',
  '336': 'Security and Defense', // aircraft, ships, tanks and other transportation equipment
  '332992': 'Security and Defense', // small arms ammunition
  '332993': 'Security and Defense', // ammunition
  '332994': 'Security and Defense', // small arms and ordnance

  '61': 'Training and Education',
};

const PREFIXES_LONGEST_FIRST = Object.keys(CATEGORY_BY_NAICS_PREFIX).sort((a, b) => b.length - a.length);

/** The contract category of a NAICS code, or null when no rule covers it. */
export function contractCategoryOfNaics(naics: string | null): ContractCategoryName | null {
  if (naics === null) return null;
  const prefix = PREFIXES_LONGEST_FIRST.find((candidate) => naics.startsWith(candidate));
  return prefix === undefined ? null : CATEGORY_BY_NAICS_PREFIX[prefix]!;
}

/** `categories` for a contract record: the NAICS category, or none. */
export function contractCategoriesOfNaics(naics: string | null): string[] {
  const category = contractCategoryOfNaics(naics);
  return category === null ? [] : [category];
}
