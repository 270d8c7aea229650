/**
 * The agency that runs an Assistance Listing (CFDA number "93.243"): the two digits before the dot
 * name the agency. A few prefixes are shared by small agencies (45: the arts and humanities
 * endowments and IMLS; 85, 87, 90: independent foundations, commissions and corporations), so for
 * those a longer prefix decides. Names are the agencies' official names as the Assistance Listings
 * give them, so the funder directory matches them to the Federal Hierarchy funders.
 *
 * Derived from every listing in the Federal Program Inventory (programs.jsonl, fields cfda and
 * agency); a test checks the table still agrees with it. 70 is not there: its listings (70.002,
 * 70.003) were OPIC's and are now awarded by its successor, the Development Finance Corporation.
 */
const AGENCY_BY_LISTING_PREFIX: Readonly<Record<string, string>> = {
  '10': 'Department of Agriculture',
  '11': 'Department of Commerce',
  '12': 'Department of Defense',
  '14': 'Department of Housing and Urban Development',
  '15': 'Department of the Interior',
  '16': 'Department of Justice',
  '17': 'Department of Labor',
  '19': 'Department of State',
  '20': 'Department of Transportation',
  '21': 'Department of the Treasury',
  '23': 'Appalachian Regional Commission',
  '30': 'Equal Employment Opportunity Commission',
  '31': 'Export-Import Bank of the United States',
  '32': 'Federal Communications Commission',
  '38': 'Federal Financial Institutions Examination Council Appraisal Subcommittee',
  '39': 'General Services Administration',
  '42': 'Library of Congress',
  '43': 'National Aeronautics and Space Administration',
  '44': 'National Credit Union Administration',
  '45.02': 'National Endowment for the Arts',
  '45.03': 'Institute of Museum and Library Services',
  '45.1': 'National Endowment for the Humanities',
  '45.2': 'National Endowment for the Arts',
  '45.3': 'Institute of Museum and Library Services',
  '47': 'National Science Foundation',
  '54': 'Office of the Director of National Intelligence',
  '57': 'Railroad Retirement Board',
  '59': 'Small Business Administration',
  '64': 'Department of Veterans Affairs',
  '66': 'Environmental Protection Agency',
  '70': 'United States International Development Finance Corporation',
  '77': 'Nuclear Regulatory Commission',
  '81': 'Department of Energy',
  '84': 'Department of Education',
  '85.0': 'Millennium Challenge Corporation',
  '85.2': 'Barry Goldwater Scholarship and Excellence in Education Fund',
  '85.4': 'Morris K. Udall Scholarship and Excellence in National Environmental Policy Foundation',
  '85.7': 'Inter-American Foundation',
  '86': 'Pension Benefit Guaranty Corporation',
  '87.002': 'Consumer Product Safety Commission',
  '87.003': 'Consumer Product Safety Commission',
  '87.004': 'United States International Development Finance Corporation',
  '87.005': 'United States International Development Finance Corporation',
  '87.006': 'United States International Development Finance Corporation',
  '87.05': 'Gulf Coast Ecosystem Restoration Council',
  '87.1': 'United States International Development Finance Corporation',
  '89': 'National Archives and Records Administration',
  '90.0': 'Denali Commission',
  '90.1': 'Denali Commission',
  '90.2': 'Delta Regional Authority',
  '90.3': 'Japan-U.S. Friendship Commission',
  '90.4': 'U.S. Election Assistance Commission',
  '90.5': 'U.S. Agency for Global Media',
  '90.6': 'Northern Border Regional Commission',
  '90.7': 'Southeast Crescent Regional Commission',
  '90.8': 'Federal Permitting Improvement Steering Council',
  '91': 'United States Institute of Peace',
  '92': 'National Council on Disability',
  '93': 'Department of Health and Human Services',
  '94': 'Corporation for National and Community Service',
  '95': 'Executive Office of the President',
  '96': 'Social Security Administration',
  '97': 'Department of Homeland Security',
  '98': 'Agency for International Development',
};

const PREFIXES_LONGEST_FIRST = Object.keys(AGENCY_BY_LISTING_PREFIX).sort((a, b) => b.length - a.length);

/** The agency of an Assistance Listing number ("10.030"), or null for a malformed or unknown number. */
export function agencyOfAssistanceListing(listingNumber: string): string | null {
  const normalised = listingNumber.trim();
  if (!/^\d{2}\.\d{3}$/.test(normalised)) return null;
  const prefix = PREFIXES_LONGEST_FIRST.find((candidate) => normalised.startsWith(candidate));
  return prefix === undefined ? null : AGENCY_BY_LISTING_PREFIX[prefix]!;
}
