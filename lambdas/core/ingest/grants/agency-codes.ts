/**
 * Grants.gov agency codes. Grants.gov names an opportunity's agency by a code whose first segment
 * is the top-level agency ("HHS-NIH11" is NIH under HHS). Some feeds give only that code (the
 * simpler.grants.gov CSV's `Agency`, the scraper's `agency_code`), so the department's official
 * name comes from this table: the pipeline matches funders by name, so these are the names the
 * SAM.gov Federal Hierarchy uses.
 */

const DEPARTMENT_NAMES_BY_CODE: Readonly<Record<string, string>> = {
  AC: 'AmeriCorps',
  ACHP: 'Advisory Council on Historic Preservation',
  ARC: 'Appalachian Regional Commission',
  CNCS: 'Corporation for National and Community Service',
  CPSC: 'Consumer Product Safety Commission',
  DC: 'Denali Commission',
  DHS: 'Department of Homeland Security',
  DOC: 'Department of Commerce',
  DOD: 'Department of Defense',
  DOE: 'Department of Energy',
  DOI: 'Department of the Interior',
  DOJ: 'Department of Justice',
  DOL: 'Department of Labor',
  DOS: 'Department of State',
  DOT: 'Department of Transportation',
  DRA: 'Delta Regional Authority',
  EAC: 'Election Assistance Commission',
  ED: 'Department of Education',
  EPA: 'Environmental Protection Agency',
  GCERC: 'Gulf Coast Ecosystem Restoration Council',
  HHS: 'Department of Health and Human Services',
  HUD: 'Department of Housing and Urban Development',
  IAF: 'Inter-American Foundation',
  IMLS: 'Institute of Museum and Library Services',
  MCC: 'Millennium Challenge Corporation',
  NARA: 'National Archives and Records Administration',
  NASA: 'National Aeronautics and Space Administration',
  NEA: 'National Endowment for the Arts',
  NEH: 'National Endowment for the Humanities',
  NRC: 'Nuclear Regulatory Commission',
  NSF: 'National Science Foundation',
  ONDCP: 'Office of National Drug Control Policy',
  // "PAMS" is the Department of Energy Office of Science's own portal; its codes (PAMS-SC) are DOE's.
  PAMS: 'Department of Energy',
  SBA: 'Small Business Administration',
  SSA: 'Social Security Administration',
  USADF: 'United States African Development Foundation',
  USAID: 'Agency for International Development',
  USDA: 'Department of Agriculture',
  USDOJ: 'Department of Justice',
  // Grants.gov's code for the Treasury is USDOT (e.g. USDOT-GCR, the IRS Low Income Taxpayer Clinic), not Transportation.
  USDOT: 'Department of the Treasury',
  VA: 'Department of Veterans Affairs',
};

/** The top-level segment of an agency code: "HHS-NIH11" -> "HHS", " nsf " -> "NSF". */
export function topLevelAgencyCode(agencyCode: string): string {
  return agencyCode.trim().split('-')[0]!.trim().toUpperCase();
}

/**
 * The department or independent agency a Grants.gov agency code belongs to, by its official name;
 * undefined for a code this table does not know, so the caller can fall back to the source's text.
 */
export function departmentNameOfAgencyCode(agencyCode: string): string | undefined {
  const code = topLevelAgencyCode(agencyCode);
  return Object.hasOwn(DEPARTMENT_NAMES_BY_CODE, code) ? DEPARTMENT_NAMES_BY_CODE[code] : undefined;
}

export const KNOWN_TOP_LEVEL_AGENCY_CODES: readonly string[] = Object.keys(DEPARTMENT_NAMES_BY_CODE);
