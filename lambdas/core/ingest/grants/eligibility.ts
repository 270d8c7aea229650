import { APPLICANT_TYPES, type ApplicantType } from '../../records';

/**
 * Grants.gov eligibility (applicant type) codes, the labels feeds print for them, and what they
 * mean in our vocabulary. The XML extracts give codes (`EligibilityCategory`, `EligibleApplicants`),
 * fetchOpportunity gives `{id, description}`, the Grants.gov scrapers give the labels, and
 * simpler.grants.gov gives snake_case names; all of them resolve through one table.
 *
 * Decisions:
 * - 25 "Others (see Additional Information on Eligibility)" adds no applicant type: who the
 *   "others" are is only in free text.
 * - Free text (`AdditionalEligibilityInfo`, `AdditionalInformationOnEligibility`, the CSV's
 *   "Additional Information on Eligibility") is not read here. In the shared data it is full of
 *   negations ("Individuals are not eligible", "For-profit entities are not eligible"), foreign
 *   entities and program-specific limits, so a keyword reading would add wrong types; a record
 *   whose only code is 25 gets [] (unknown) from the codes. Clear restrictions in the text are
 *   read by text-restrictions.ts and combined in eligibility-evidence.ts.
 * - 99 "Unrestricted" is all six types and no 501(c)(3) requirement.
 */

interface EligibilityCode {
  readonly code: string;
  readonly applicantTypes: readonly ApplicantType[];
  /** Labels and identifiers feeds use for this code. */
  readonly names: readonly string[];
}

const ELIGIBILITY_CODES: readonly EligibilityCode[] = [
  { code: '00', applicantTypes: ['municipality'], names: ['State governments', 'state_governments'] },
  { code: '01', applicantTypes: ['municipality'], names: ['County governments', 'county_governments'] },
  { code: '02', applicantTypes: ['municipality'], names: ['City or township governments', 'city_or_township_governments'] },
  { code: '04', applicantTypes: ['municipality'], names: ['Special district governments', 'special_district_governments'] },
  { code: '05', applicantTypes: ['municipality'], names: ['Independent school districts', 'independent_school_districts'] },
  {
    code: '06',
    applicantTypes: ['academic'],
    names: ['Public and State controlled institutions of higher education', 'public_and_state_institutions_of_higher_education'],
  },
  {
    code: '07',
    applicantTypes: ['tribal'],
    names: [
      'Native American tribal governments (Federally recognized)',
      'Federally Recognized Native American Tribal Governments',
      'federally_recognized_native_american_tribal_governments',
    ],
  },
  {
    code: '08',
    applicantTypes: ['municipality'],
    names: ['Public housing authorities/Indian housing authorities', 'Public and Indian housing authorities', 'public_and_indian_housing_authorities'],
  },
  {
    code: '11',
    applicantTypes: ['tribal'],
    names: [
      'Native American tribal organizations (other than Federally recognized tribal governments)',
      'Other Native American Tribal Organizations',
      'other_native_american_tribal_organizations',
    ],
  },
  {
    code: '12',
    applicantTypes: ['nonprofit'],
    names: ['Nonprofits having a 501(c)(3) status with the IRS, other than institutions of higher education', 'nonprofits_non_higher_education_with_501c3'],
  },
  {
    code: '13',
    applicantTypes: ['nonprofit'],
    names: [
      'Nonprofits that do not have a 501(c)(3) status with the IRS, other than institutions of higher education',
      'nonprofits_non_higher_education_without_501c3',
    ],
  },
  { code: '20', applicantTypes: ['academic'], names: ['Private institutions of higher education', 'private_institutions_of_higher_education'] },
  { code: '21', applicantTypes: ['individual'], names: ['Individuals', 'individuals'] },
  {
    code: '22',
    applicantTypes: ['for_profit'],
    names: ['For profit organizations other than small businesses', 'for_profit_organizations_other_than_small_businesses'],
  },
  { code: '23', applicantTypes: ['for_profit'], names: ['Small businesses', 'small_businesses'] },
  {
    code: '25',
    applicantTypes: [],
    names: ['Others (see text field entitled "Additional Information on Eligibility" for clarification)', 'Others', 'Other', 'other'],
  },
  {
    code: '99',
    applicantTypes: APPLICANT_TYPES,
    names: [
      'Unrestricted (i.e., open to any type of entity above), subject to any clarification in text field entitled "Additional Information on Eligibility"',
      'Unrestricted',
      'unrestricted',
    ],
  },
];

const NONPROFIT_WITH_501C3 = '12';
const NONPROFIT_WITHOUT_501C3 = '13';
const UNRESTRICTED = '99';

/** Labels compared without case, punctuation or spacing, so "state_governments" meets "State governments". */
const labelKey = (label: string) => label.toLowerCase().replace(/[^a-z0-9]/g, '');

const BY_CODE = new Map(ELIGIBILITY_CODES.map((entry) => [entry.code, entry]));
const CODE_BY_LABEL = new Map(ELIGIBILITY_CODES.flatMap((entry) => entry.names.map((name) => [labelKey(name), entry.code] as const)));

/**
 * The Grants.gov eligibility code for a code, label or snake_case name; undefined when unknown.
 * Numeric codes are zero-padded ("0" and 0 are "00"); the long "Unrestricted (i.e. …)" and
 * "Others (see …)" labels are also recognised by their first word, since feeds reword the rest.
 */
export function eligibilityCodeOf(value: string): string | undefined {
  const text = value.trim();
  if (/^\d{1,2}$/.test(text)) {
    const code = text.padStart(2, '0');
    return BY_CODE.has(code) ? code : undefined;
  }
  const exact = CODE_BY_LABEL.get(labelKey(text));
  if (exact) return exact;
  if (/^unrestricted\b/i.test(text)) return UNRESTRICTED;
  if (/^others?\s*\(/i.test(text)) return '25';
  return undefined;
}

export interface Eligibility {
  eligible_applicants: ApplicantType[];
  requires_501c3: boolean | null;
}

/**
 * Our applicant types and the 501(c)(3) requirement from a record's eligibility values (codes,
 * labels or names, mixed freely; unknown values are ignored). `requires_501c3` is true when only
 * 501(c)(3) nonprofits may apply (code 12 without 13), false when nonprofits without 501(c)(3)
 * may apply (13) or eligibility is unrestricted (99), and null when nonprofits are not mentioned.
 */
export function eligibilityFrom(values: readonly string[]): Eligibility {
  const codes = new Set(values.map(eligibilityCodeOf).filter((code): code is string => code !== undefined));
  const types = new Set<ApplicantType>();
  for (const code of codes) for (const type of BY_CODE.get(code)!.applicantTypes) types.add(type);
  let requires501c3: boolean | null = null;
  if (codes.has(UNRESTRICTED) || codes.has(NONPROFIT_WITHOUT_501C3)) requires501c3 = false;
  else if (codes.has(NONPROFIT_WITH_501C3)) requires501c3 = true;
  return {
    // In APPLICANT_TYPES order, so equal eligibility gives equal arrays (and content hashes).
    eligible_applicants: APPLICANT_TYPES.filter((type) => types.has(type)),
    requires_501c3: requires501c3,
  };
}
