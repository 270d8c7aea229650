import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { departmentNameOfAgencyCode, eligibilityFrom, GRANT_FORMATS } from '../../lambdas/core/ingest/grants';
import { assistanceListingsOf } from '../../lambdas/core/ingest/grants/assistance-listings';
import { categoryNamesFrom } from '../../lambdas/core/ingest/grants/funding-categories';
import { agencyCodeOf } from '../../lambdas/core/ingest/grants/grant-record';
import type { GrantDraft, MappedRecord, SourceFormat, SourceRecord } from '../../lambdas/core/ingest/mapped-record';
import { RecordRejected } from '../../lambdas/core/ingest/rejection';
import { type Grant, GrantSchema } from '../../lambdas/core/records';

/*
 * Expected mapped values of the original-format fixtures in test/fixtures/ingest/, with
 * context.today = 2026-05-01 (source is "grants.gov", opportunity_type "open", states [] and
 * geography "National" for every record; funder = FunderReference.names).
 *
 * grants-gov-extract-v2.xml (format grants-gov-xml; 3 records)
 *   RFA-MH-26-110  OpportunitySynopsisDetail_1_0, posted, deadline 2026-10-15, amount 0..450000,
 *                  categories [Health, Science and Technology and other Research and Development],
 *                  eligible [nonprofit, tribal, academic], requires_501c3 true,
 *                  funder [National Institutes of Health, Department of Health and Human Services],
 *                  listing https://www.grants.gov/search-results-detail/358123, created 2026-02-12T00:00:00Z,
 *                  description "This Notice … youth aged 10–24.\n\nApplicants & partners should describe … in real-world settings."
 *   DE-FOA-0003120 synopsis, closed (deadline 2025-01-15 passed), amounts null/null (ceiling and floor 0),
 *                  categories [Energy, Science and Technology …], all six applicant types, requires_501c3 false,
 *                  funder [Golden Field Office, Department of Energy], listing …/341877
 *   USDA-NIFA-AFRI-011870 OpportunityForecastDetail_1_0, forecasted, deadline 2026-09-30 (EstimatedSynopsisCloseDate),
 *                  amount 50000..500000, categories [Agriculture], eligible [nonprofit, municipality], requires_501c3 true,
 *                  funder [National Institute of Food and Agriculture, Department of Agriculture], listing …/359410
 * grants-gov-extract-v1.xml (grants-gov-xml; 2 FundingOppSynopsis)
 *   EPA-R5-GL2010-01 closed, deadline 2010-06-18, amount 25000..250000, categories [Environment, Natural Resources],
 *                  eligible [nonprofit, municipality, tribal, academic], requires_501c3 false (13 present),
 *                  funder [Environmental Protection Agency] ("Region 5" office skipped), listing http://www.epa.gov/glnpo/fund/2010rfp01.html,
 *                  created 2010-04-14T00:00:00Z, description "… restore coastal wetlands and shoreline habitat & control invasive species."
 *   NEH-2009-PUB-9001 closed, deadline 2009-05-15, amounts null/null ("None"), categories [Humanities], eligible [] (only 25),
 *                  requires_501c3 null, funder [National Endowment for the Humanities], listing null (ObtainFundingOppText is the home page)
 * grants-gov-search2.json (grants-gov-search2; data.oppHits, 2 hits)
 *   HHS-2026-ACF-OCS-EE-0077 posted, deadline 2026-06-22, title "Rural Community Development Program & Technical Assistance",
 *                  description "", funder [Administration for Children and Families - OCS, Department of Health and Human Services],
 *                  listing …/360512, created 2026-03-20T00:00:00Z
 *   NPS-26-NERO-0042 forecasted, deadline null, funder [National Park Service, Department of the Interior], listing …/361044
 * grants-gov-fetch-opportunity.json (grants-gov-fetch-opportunity; the whole response or its `data`)
 *   DOJ-OVW-2026-17 closed (deadline 2026-02-24), amount null..1000000 (floor "none"), categories [Law, Justice and Legal Services],
 *                  eligible [academic], requires_501c3 null, funder [Office on Violence Against Women, Department of Justice],
 *                  listing …/355870, created 2025-12-16T00:00:00Z,
 *                  description "The Campus Program encourages … on campus.\n\nInstitutions of higher education may apply."
 * simpler-grants-search.json (simpler-grants; data[], 2 records)
 *   NSF-26-5117    posted, deadline 2026-11-19, amount 100000..1200000, categories [Science and Technology …],
 *                  eligible [nonprofit, academic], requires_501c3 false, funder [U.S. National Science Foundation, National Science Foundation],
 *                  listing https://simpler.grants.gov/opportunity/6f0a8e3c-1b2d-4c5e-8f90-a1b2c3d4e5f6
 *   FR-6100-N-44   forecasted, deadline 2026-10-30 (forecasted_close_date), amount null..500000, categories [Housing, Community Development],
 *                  eligible [municipality, tribal] ("unknown_type" ignored), requires_501c3 null, funder [Department of Housing and Urban Development]
 * simpler-grants-export.csv (simpler-grants; 2 rows, every cell a string)
 *   EPA-R5-GL2026-01 closed (deadline 2026-04-10 passed), amount 50000..750000, categories [Environment, Natural Resources],
 *                  eligible [nonprofit, municipality, academic], requires_501c3 true, funder [Environmental Protection Agency],
 *                  listing https://simpler.grants.gov/opportunity/b3a1c2d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d
 *   HHS-2026-IHS-TSGP-0002 closed (archived), amount null..120000, categories [Health], eligible [tribal], requires_501c3 null,
 *                  funder [Indian Health Service, Department of Health and Human Services]
 * malformed.xml: one good record, USDA-FS-2026-CWDG (posted, deadline 2026-10-31, eligible [municipality],
 *                  categories [Disaster Prevention and Relief], funder [Forest Service, Department of Agriculture]), then an unclosed element.
 * malformed-lines.jsonl: line 1 a search2 hit DOC-NOAA-2026-0015 (posted, deadline 2026-09-15,
 *                  funder [DOC NOAA - ERA Production, Department of Commerce]); line 2 broken JSON; line 3 a JSON array.
 */

const context = { today: '2026-05-01' };
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/ingest/${name}`, import.meta.url));

function format(id: string): SourceFormat {
  const found = GRANT_FORMATS.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no format ${id}`);
  return found;
}

function mapGrant(id: string, source: SourceRecord): { record: GrantDraft; names: readonly string[] } {
  const mapped: MappedRecord = format(id).map(source, context);
  if (mapped.kind !== 'grant') throw new Error(`expected a grant, got ${mapped.kind}`);
  return { record: mapped.record, names: mapped.funder.names };
}

function rejectionOf(id: string, source: SourceRecord): string {
  try {
    format(id).map(source, context);
  } catch (error) {
    if (error instanceof RecordRejected) return error.reason;
    throw error;
  }
  throw new Error('expected the record to be rejected');
}

/** Fills what only the pipeline knows, so a draft can be checked against the public schema. */
function asStoredGrant(mapped: { record: GrantDraft; names: readonly string[] }) {
  return {
    ...mapped.record,
    id: '00000000-0000-4000-8000-000000000001',
    funder_id: '00000000-0000-4000-8000-000000000002',
    funder_name: mapped.names[0] ?? 'unknown',
    created_at: mapped.record.created_at ?? '2026-05-01T00:00:00Z',
  };
}

function expectValidGrant(mapped: { record: GrantDraft; names: readonly string[] }) {
  const result = GrantSchema.safeParse(asStoredGrant(mapped));
  expect(result.success, JSON.stringify(result.error?.issues)).toBe(true);
}

const SCIENCE = 'Science and Technology and other Research and Development';

describe('eligibility', () => {
  it('maps codes to applicant types and the 501(c)(3) rule', () => {
    expect(eligibilityFrom(['12'])).toEqual({ eligible_applicants: ['nonprofit'], requires_501c3: true });
    expect(eligibilityFrom(['12', '13'])).toEqual({ eligible_applicants: ['nonprofit'], requires_501c3: false });
    expect(eligibilityFrom(['13'])).toEqual({ eligible_applicants: ['nonprofit'], requires_501c3: false });
    expect(eligibilityFrom(['00', '01', '02', '04', '05', '08'])).toEqual({ eligible_applicants: ['municipality'], requires_501c3: null });
    expect(eligibilityFrom(['06', '20', '07', '11', '21', '22', '23'])).toEqual({
      eligible_applicants: ['for_profit', 'tribal', 'individual', 'academic'],
      requires_501c3: null,
    });
    expect(eligibilityFrom(['99'])).toEqual({
      eligible_applicants: ['nonprofit', 'for_profit', 'municipality', 'tribal', 'individual', 'academic'],
      requires_501c3: false,
    });
  });

  it('gives nothing for "Others" alone, and ignores unknown values', () => {
    expect(eligibilityFrom(['25'])).toEqual({ eligible_applicants: [], requires_501c3: null });
    expect(eligibilityFrom(['Others (see text field entitled "Additional Information on Eligibility" for clarification)'])).toEqual({
      eligible_applicants: [],
      requires_501c3: null,
    });
    expect(eligibilityFrom(['42', 'Martians', ''])).toEqual({ eligible_applicants: [], requires_501c3: null });
    expect(eligibilityFrom([])).toEqual({ eligible_applicants: [], requires_501c3: null });
  });

  it('reads Grants.gov labels and simpler.grants.gov names like codes', () => {
    expect(
      eligibilityFrom([
        'Nonprofits having a 501(c)(3) status with the IRS, other than institutions of higher education',
        'Public and State controlled institutions of higher education',
        'Native American tribal organizations (other than Federally recognized tribal governments)',
      ]),
    ).toEqual({ eligible_applicants: ['nonprofit', 'tribal', 'academic'], requires_501c3: true });
    expect(eligibilityFrom(['nonprofits_non_higher_education_without_501c3', 'small_businesses', 'state_governments'])).toEqual({
      eligible_applicants: ['nonprofit', 'for_profit', 'municipality'],
      requires_501c3: false,
    });
    expect(
      eligibilityFrom([
        'Unrestricted (i.e., open to any type of entity above), subject to any clarification in text field entitled "Additional Information on Eligibility"',
      ]),
    ).toEqual({ eligible_applicants: ['nonprofit', 'for_profit', 'municipality', 'tribal', 'individual', 'academic'], requires_501c3: false });
    expect(eligibilityFrom(['unrestricted']).requires_501c3).toBe(false);
    expect(eligibilityFrom(['0', '1']).eligible_applicants).toEqual(['municipality']);
  });
});

describe('funding categories', () => {
  it('turns codes and label variants into the names of categories.ts', () => {
    expect(categoryNamesFrom(['HL', 'st', 'O'])).toEqual(['Health', SCIENCE, 'Other']);
    expect(
      categoryNamesFrom([
        'Infrastructure Investment and Jobs Act (IIJA)',
        'Other (see text field entitled "Explanation of Other Category of Funding Activity" for clarification)',
        'science_technology_and_other_research_and_development',
        'employment_labor_and_training',
        'law, justice and legal services',
      ]),
    ).toEqual(['Infrastructure Investment and Jobs Act', 'Other', SCIENCE, 'Employment, Labor and Training', 'Law, Justice and Legal Services']);
  });

  it('keeps unknown readable labels (tidied), drops unknown codes and duplicates', () => {
    expect(categoryNamesFrom(['Energy Infrastructure and Critical Mineral and Materials (EICMM)', 'XQ', 'HL', 'Health'])).toEqual([
      'Energy Infrastructure and Critical Mineral and Materials',
      'Health',
    ]);
    expect(categoryNamesFrom(['space_weather'])).toEqual(['Space weather']);
  });
});

describe('agency codes', () => {
  it('names the department of a Grants.gov agency code', () => {
    expect(departmentNameOfAgencyCode('HHS-NIH11')).toBe('Department of Health and Human Services');
    expect(departmentNameOfAgencyCode('NSF')).toBe('National Science Foundation');
    expect(departmentNameOfAgencyCode('USDOJ-OJP-BJA')).toBe('Department of Justice');
    expect(departmentNameOfAgencyCode('DOT-FAA-FAA COE-FAA JAMS')).toBe('Department of Transportation');
    expect(departmentNameOfAgencyCode('USDOT-GCR')).toBe('Department of the Treasury');
    expect(departmentNameOfAgencyCode('ZZZ-1')).toBeUndefined();
  });

  it('keeps a code as an upper-case identifier without spaces, and drops what is not one', () => {
    expect(agencyCodeOf(' hhs-nih11 ')).toBe('HHS-NIH11');
    expect(agencyCodeOf('DOT-FAA-FAA COE')).toBe('DOT-FAA-FAACOE');
    expect(agencyCodeOf('Department of Health')).toBe('DEPARTMENTOFHEALTH');
    expect(agencyCodeOf('HHS/NIH')).toBeNull();
    expect(agencyCodeOf('-HHS')).toBeNull();
    expect(agencyCodeOf('')).toBeNull();
    expect(agencyCodeOf(null)).toBeNull();
    expect(agencyCodeOf('A'.repeat(41))).toBeNull();
  });
});

describe('assistance listings', () => {
  it('reads every shape a feed gives: "number|title" entries, bare numbers, lists, a list\'s repr, and objects', () => {
    expect(assistanceListingsOf('12.005|Conservation Research; 12.300|Basic Research')).toEqual([
      { number: '12.005', program_title: 'Conservation Research' },
      { number: '12.300', program_title: 'Basic Research' },
    ]);
    expect(assistanceListingsOf(['93.242', 93.855])).toEqual([
      { number: '93.242', program_title: null },
      { number: '93.855', program_title: null },
    ]);
    expect(assistanceListingsOf("['19.033', '19.040']")).toEqual([
      { number: '19.033', program_title: null },
      { number: '19.040', program_title: null },
    ]);
    expect(
      assistanceListingsOf([
        { assistance_listing_number: '47.041', program_title: ' Engineering ' },
        { cfdaNumber: '10.31x', programTitle: 'Crop <b>Protection</b>' },
      ]),
    ).toEqual([
      { number: '47.041', program_title: 'Engineering' },
      { number: '10.31X', program_title: 'Crop Protection' },
    ]);
  });

  it('drops values that are not a listing number, and keeps a number named twice once, with its title', () => {
    expect(assistanceListingsOf('NA')).toEqual([]);
    expect(assistanceListingsOf(['Not Available', null, true, { cfdaNumber: null }])).toEqual([]);
    expect(assistanceListingsOf(undefined)).toEqual([]);
    expect(assistanceListingsOf(['93.242', '93.242|Mental Health Research Grants'])).toEqual([
      { number: '93.242', program_title: 'Mental Health Research Grants' },
    ]);
    expect(assistanceListingsOf('1234.5678; 93.2')).toEqual([]);
  });
});

describe('grants-gov-xml: GrantsDBExtract v2 records', () => {
  const synopsis = {
    _record_type: 'OpportunitySynopsisDetail_1_0',
    OpportunityID: '358123',
    OpportunityTitle: 'Pilot Effectiveness Trials for Suicide Prevention Interventions in Youth (R34 Clinical Trial Required)',
    OpportunityNumber: 'RFA-MH-26-110',
    OpportunityCategory: 'D',
    FundingInstrumentType: 'G',
    CategoryOfFundingActivity: ['HL', 'ST'],
    CFDANumbers: '93.242',
    EligibleApplicants: ['06', '20', '12', '07', '25'],
    AdditionalInformationOnEligibility: 'Non-domestic (non-U.S.) Entities (Foreign Organizations) are not eligible to apply.',
    AgencyCode: 'HHS-NIH11',
    AgencyName: 'National Institutes of Health',
    PostDate: '02122026',
    CloseDate: '10152026',
    AwardCeiling: '450000',
    AwardFloor: '0',
    Description:
      '<p>This Notice of Funding Opportunity (NOFO) invites applications for pilot trials of suicide prevention interventions for youth aged 10&ndash;24.</p><p>Applicants &amp; partners should describe how the intervention will be tested in <b>real-world</b> settings.</p>',
    ArchiveDate: '11142026',
    AdditionalInformationURL: 'https://grants.nih.gov/grants/guide/rfa-files/RFA-MH-26-110.html',
  };

  it('maps a synopsis field by field', () => {
    const mapped = mapGrant('grants-gov-xml', synopsis);
    expect(mapped.record).toEqual({
      title: 'Pilot Effectiveness Trials for Suicide Prevention Interventions in Youth (R34 Clinical Trial Required)',
      description:
        'This Notice of Funding Opportunity (NOFO) invites applications for pilot trials of suicide prevention interventions for youth aged 10–24.\n\nApplicants & partners should describe how the intervention will be tested in real-world settings.',
      amount_min: 0,
      amount_max: 450000,
      deadline_date: '2026-10-15',
      archive_date: '2026-11-14',
      states: [],
      geography: 'National',
      listing_url: 'https://www.grants.gov/search-results-detail/358123',
      created_at: '2026-02-12T00:00:00Z',
      categories: ['Health', SCIENCE],
      opportunity_type: 'open',
      project_end_date: null,
      source: 'grants.gov',
      source_id: 'RFA-MH-26-110',
      status: 'posted',
      eligible_applicants: ['nonprofit', 'tribal', 'academic'],
      requires_501c3: true,
      assistance_listings: [{ number: '93.242', program_title: null }],
      agency_code: 'HHS-NIH11',
    });
    expect(mapped.names).toEqual(['National Institutes of Health', 'Department of Health and Human Services']);
    expectValidGrant(mapped);
  });

  it('closes a synopsis whose deadline has passed, and reads ceiling/floor 0 as unpublished', () => {
    const mapped = mapGrant('grants-gov-xml', {
      _record_type: 'OpportunitySynopsisDetail_1_0',
      OpportunityID: '341877',
      OpportunityTitle: 'Residential Building Retrofit Research and Validation',
      OpportunityNumber: 'DE-FOA-0003120',
      CategoryOfFundingActivity: ['EN', 'ST'],
      EligibleApplicants: '99',
      AgencyCode: 'DOE-GFO',
      AgencyName: 'Golden Field Office',
      PostDate: '09032024',
      CloseDate: '01152025',
      AwardCeiling: '0',
      AwardFloor: '0',
      Description: 'The Building Technologies Office funds research.',
    });
    expect(mapped.record.status).toBe('closed');
    expect(mapped.record.deadline_date).toBe('2025-01-15');
    expect([mapped.record.amount_min, mapped.record.amount_max]).toEqual([null, null]);
    expect(mapped.record.categories).toEqual(['Energy', SCIENCE]);
    expect(mapped.record.eligible_applicants).toEqual(['nonprofit', 'for_profit', 'municipality', 'tribal', 'individual', 'academic']);
    expect(mapped.record.requires_501c3).toBe(false);
    expect(mapped.names).toEqual(['Golden Field Office', 'Department of Energy']);
    expectValidGrant(mapped);
  });

  it('maps a forecast with its estimated deadline', () => {
    const mapped = mapGrant('grants-gov-xml', {
      _record_type: 'OpportunityForecastDetail_1_0',
      OpportunityID: '359410',
      OpportunityTitle: 'AFRI Sustainable Agricultural Systems: Rural Food Hubs',
      OpportunityNumber: 'USDA-NIFA-AFRI-011870',
      CategoryOfFundingActivity: 'AG',
      EligibleApplicants: ['00', '12'],
      AgencyCode: 'USDA-NIFA',
      AgencyName: 'National Institute of Food and Agriculture',
      PostDate: '03022026',
      EstimatedSynopsisPostDate: '07012026',
      EstimatedSynopsisCloseDate: '09302026',
      AwardCeiling: '500000',
      AwardFloor: '50000',
      Description: 'Forecast: grants for regional food hub networks.',
    });
    expect(mapped.record).toMatchObject({
      status: 'forecasted',
      deadline_date: '2026-09-30',
      amount_min: 50000,
      amount_max: 500000,
      categories: ['Agriculture'],
      eligible_applicants: ['nonprofit', 'municipality'],
      requires_501c3: true,
      listing_url: 'https://www.grants.gov/search-results-detail/359410',
      created_at: '2026-03-02T00:00:00Z',
    });
    expect(mapped.names).toEqual(['National Institute of Food and Agriculture', 'Department of Agriculture']);
  });

  it('accepts namespaced element names and normalises the opportunity number', () => {
    const mapped = mapGrant('grants-gov-xml', { ...synopsis, _record_type: 'ns0:OpportunitySynopsisDetail_1_0', OpportunityNumber: ' rfa-mh-26-110 ' });
    expect(mapped.record.source_id).toBe('RFA-MH-26-110');
  });

  it('rejects missing title or number, impossible dates and negative amounts', () => {
    expect(rejectionOf('grants-gov-xml', { ...synopsis, OpportunityTitle: '' })).toBe('missing title');
    expect(rejectionOf('grants-gov-xml', { ...synopsis, OpportunityNumber: undefined })).toBe('missing opportunity number');
    expect(rejectionOf('grants-gov-xml', { ...synopsis, CloseDate: '02302024' })).toMatch(/CloseDate: "02302024" is an impossible date/);
    expect(rejectionOf('grants-gov-xml', { ...synopsis, AwardCeiling: '-5' })).toMatch(/award ceiling: negative amount -5/);
    expect(rejectionOf('grants-gov-xml', { ...synopsis, AwardFloor: '900000' })).toMatch(/award floor 900000 is above the award ceiling 450000/);
  });
});

describe('grants-gov-xml: XMLExtract.dtd records', () => {
  const v1 = {
    _record_type: 'FundingOppSynopsis',
    PostDate: '04142010',
    UserID: 'None',
    Password: 'None',
    FundingInstrumentType: 'G',
    FundingActivityCategory: ['ENV', 'NR'],
    AwardCeiling: '250000',
    AwardFloor: '25000',
    FundingOppTitle: 'Great Lakes Shoreline Habitat Restoration Grants',
    FundingOppNumber: 'EPA-R5-GL2010-01',
    ApplicationsDueDate: '06182010',
    ArchiveDate: '07182010',
    Office: 'Region 5',
    Agency: 'Environmental Protection Agency',
    FundingOppDescription:
      'The Great Lakes National Program Office requests proposals to restore <i>coastal wetlands</i> and shoreline habitat &amp; control invasive species.',
    EligibilityCategory: ['00', '01', '07', '12', '13', '06'],
    AdditionalEligibilityInfo: 'Not Available',
    ObtainFundingOppText: 'http://www.epa.gov/glnpo/fund/2010rfp01.html',
  };

  it('maps a FundingOppSynopsis field by field', () => {
    const mapped = mapGrant('grants-gov-xml', v1);
    expect(mapped.record).toEqual({
      title: 'Great Lakes Shoreline Habitat Restoration Grants',
      description: 'The Great Lakes National Program Office requests proposals to restore coastal wetlands and shoreline habitat & control invasive species.',
      amount_min: 25000,
      amount_max: 250000,
      deadline_date: '2010-06-18',
      archive_date: '2010-07-18',
      states: [],
      geography: 'National',
      listing_url: 'http://www.epa.gov/glnpo/fund/2010rfp01.html',
      created_at: '2010-04-14T00:00:00Z',
      categories: ['Environment', 'Natural Resources'],
      opportunity_type: 'open',
      project_end_date: null,
      source: 'grants.gov',
      source_id: 'EPA-R5-GL2010-01',
      status: 'closed',
      eligible_applicants: ['nonprofit', 'municipality', 'tribal', 'academic'],
      requires_501c3: false,
      assistance_listings: [],
      agency_code: null,
    });
    // "Region 5" names no agency on its own, so the department is the only funder name.
    expect(mapped.names).toEqual(['Environmental Protection Agency']);
  });

  it('reads "None" amounts as unpublished, a home-page link as no listing, and "Others" as unknown eligibility', () => {
    const mapped = mapGrant('grants-gov-xml', {
      ...v1,
      _record_type: 'FundingOppModSynopsis',
      AwardCeiling: 'None',
      AwardFloor: 'None',
      EligibilityCategory: '25',
      AdditionalEligibilityInfo: 'Individuals are not eligible to apply.',
      ObtainFundingOppText: 'www.grants.gov',
      Office: 'None',
      Agency: 'National Endowment for the Humanities',
    });
    expect([mapped.record.amount_min, mapped.record.amount_max]).toEqual([null, null]);
    expect(mapped.record.listing_url).toBeNull();
    expect(mapped.record.eligible_applicants).toEqual([]);
    expect(mapped.record.requires_501c3).toBeNull();
    expect(mapped.names).toEqual(['National Endowment for the Humanities']);
  });

  it('is a posted record while the deadline is ahead', () => {
    const mapped = mapGrant('grants-gov-xml', { ...v1, ApplicationsDueDate: '12312026', ArchiveDate: '01302027' });
    expect(mapped.record.status).toBe('posted');
    expect(mapped.record.archive_date).toBe('2027-01-30');
  });

  it('is closed once archived even without a deadline', () => {
    const mapped = mapGrant('grants-gov-xml', { ...v1, ApplicationsDueDate: undefined, ArchiveDate: '01302026' });
    expect(mapped.record.deadline_date).toBeNull();
    expect(mapped.record.archive_date).toBe('2026-01-30');
    expect(mapped.record.status).toBe('closed');
  });

  it('rejects a missing number and an unknown record type', () => {
    expect(rejectionOf('grants-gov-xml', { ...v1, FundingOppNumber: '' })).toBe('missing opportunity number');
    expect(rejectionOf('grants-gov-xml', { ...v1, _record_type: 'Grants' })).toMatch(/unknown Grants.gov XML record type "Grants"/);
  });
});

describe('grants-gov-search2', () => {
  const response = JSON.parse(readFileSync(fixture('grants-gov-search2.json'), 'utf8')) as { data: { oppHits: SourceRecord[] } };

  it('maps the fixture hits (MM/DD/YYYY dates, entities in titles, no description)', () => {
    const [posted, forecast] = response.data.oppHits.map((hit) => mapGrant('grants-gov-search2', hit));
    expect(posted!.record).toEqual({
      title: 'Rural Community Development Program & Technical Assistance',
      description: '',
      amount_min: null,
      amount_max: null,
      deadline_date: '2026-06-22',
      archive_date: null,
      states: [],
      geography: 'National',
      listing_url: 'https://www.grants.gov/search-results-detail/360512',
      created_at: '2026-03-20T00:00:00Z',
      categories: [],
      opportunity_type: 'open',
      project_end_date: null,
      source: 'grants.gov',
      source_id: 'HHS-2026-ACF-OCS-EE-0077',
      status: 'posted',
      eligible_applicants: [],
      requires_501c3: null,
      assistance_listings: [{ number: '93.570', program_title: null }],
      agency_code: 'HHS-ACF-OCS',
    });
    expect(posted!.names).toEqual(['Administration for Children and Families - OCS', 'Department of Health and Human Services']);
    expect(forecast!.record).toMatchObject({ source_id: 'NPS-26-NERO-0042', status: 'forecasted', deadline_date: null });
    expect(forecast!.names).toEqual(['National Park Service', 'Department of the Interior']);
  });

  it('treats an old hit without status as posted, closed once past its deadline', () => {
    const hit = {
      id: '278371',
      number: 'ISN-ISNCTR-15-007',
      title: 'Chemical Security Study',
      agency: 'Bureau of International Security',
      openDate: '08/14/2015',
      closeDate: '09/21/2015',
      cfdaList: ['19.033'],
    };
    expect(mapGrant('grants-gov-search2', hit).record.status).toBe('closed');
    expect(mapGrant('grants-gov-search2', { ...hit, closeDate: '09/21/2026' }).record.status).toBe('posted');
  });

  it('rejects impossible dates, test opportunities and hits without an agency', () => {
    const hit = { id: '1', number: 'X-1', title: 'A grant', agency: 'Forest Service', openDate: '01/02/2024', closeDate: '02/30/2024' };
    expect(rejectionOf('grants-gov-search2', hit)).toMatch(/closeDate: "02\/30\/2024" is an impossible date/);
    expect(rejectionOf('grants-gov-search2', { ...hit, closeDate: '', agency: 'IV&V Test Agency' })).toMatch(/Grants.gov test opportunity/);
    expect(rejectionOf('grants-gov-search2', { ...hit, closeDate: '', agency: '' })).toMatch(/missing agency/);
    expect(rejectionOf('grants-gov-search2', { ...hit, closeDate: '', agency: 'Headquarters' })).toMatch(/"Headquarters" does not say which agency/);
    expect(rejectionOf('grants-gov-search2', { ...hit, closeDate: '', title: '  ' })).toBe('missing title');
  });
});

describe('grants-gov-fetch-opportunity', () => {
  const response = JSON.parse(readFileSync(fixture('grants-gov-fetch-opportunity.json'), 'utf8')) as { data: SourceRecord };

  it('maps the fixture (whole response or data) field by field', () => {
    for (const source of [response, response.data] as SourceRecord[]) {
      expect(format('grants-gov-fetch-opportunity').matches(source)).toBe(true);
      const mapped = mapGrant('grants-gov-fetch-opportunity', source);
      expect(mapped.record).toEqual({
        title: 'Grants to Reduce Domestic Violence, Dating Violence, Sexual Assault, and Stalking on Campus',
        description:
          'The Campus Program encourages a comprehensive, coordinated response to domestic violence, dating violence, sexual assault, and stalking on campus.\n\nInstitutions of higher education may apply.',
        amount_min: null,
        amount_max: 1000000,
        deadline_date: '2026-02-24',
        archive_date: '2026-03-26',
        states: [],
        geography: 'National',
        listing_url: 'https://www.grants.gov/search-results-detail/355870',
        created_at: '2025-12-16T00:00:00Z',
        categories: ['Law, Justice and Legal Services'],
        opportunity_type: 'open',
        project_end_date: null,
        source: 'grants.gov',
        source_id: 'DOJ-OVW-2026-17',
        status: 'closed',
        eligible_applicants: ['academic'],
        requires_501c3: null,
        assistance_listings: [
          { number: '16.525', program_title: 'Grants to Reduce Domestic Violence, Dating Violence, Sexual Assault, and Stalking on Campus' },
        ],
        agency_code: 'USDOJ-OJP-OVW',
      });
      expect(mapped.names).toEqual(['Office on Violence Against Women', 'Department of Justice']);
      expectValidGrant(mapped);
    }
  });

  it('reads "Mon DD, YYYY" dates and top-level lists of older responses, and forecasts', () => {
    const older = {
      id: 282065,
      opportunityNumber: 'ED-GRANTS-030816-006',
      opportunityTitle: 'Research Networks',
      owningAgencyCode: 'ED',
      applicantTypes: [{ id: '12', description: 'Nonprofits having a 501(c)(3) status with the IRS, other than institutions of higher education' }],
      fundingActivityCategories: [{ id: 'ED', description: 'Education' }],
      synopsis: {
        synopsisDesc: 'Research.',
        postingDate: 'Mar 08, 2016 12:00:00 AM EST',
        responseDate: 'Aug 04, 2026 12:00:00 AM EDT',
        awardCeiling: 'none',
        awardFloor: 'none',
        agencyName: 'Department of Education',
      },
    };
    const mapped = mapGrant('grants-gov-fetch-opportunity', older);
    expect(mapped.record).toMatchObject({
      deadline_date: '2026-08-04',
      created_at: '2016-03-08T00:00:00Z',
      status: 'posted',
      categories: ['Education'],
      eligible_applicants: ['nonprofit'],
      requires_501c3: true,
      amount_max: null,
    });
    expect(mapped.names).toEqual(['Department of Education']);

    const forecast = mapGrant('grants-gov-fetch-opportunity', {
      id: 1,
      opportunityNumber: 'F-1',
      opportunityTitle: 'Forecast',
      owningAgencyCode: 'NSF',
      forecast: { forecastDesc: 'Soon.', estApplicationResponseDateStr: '2026-09-01-00-00-00', postingDateStr: '2026-04-01-00-00-00' },
    });
    expect(forecast.record).toMatchObject({ status: 'forecasted', deadline_date: '2026-09-01', description: 'Soon.' });
    expect(forecast.names).toEqual(['National Science Foundation']);
  });

  it('rejects a response with neither synopsis nor forecast, and impossible dates', () => {
    expect(rejectionOf('grants-gov-fetch-opportunity', { id: 1, opportunityNumber: 'X', opportunityTitle: 'T', owningAgencyCode: 'NSF' })).toMatch(
      /neither a synopsis nor a forecast/,
    );
    expect(
      rejectionOf('grants-gov-fetch-opportunity', {
        ...response.data,
        synopsis: { ...(response.data.synopsis as object), responseDateStr: undefined, responseDate: 'Feb 30, 2024 12:00:00 AM EST' },
      }),
    ).toMatch(/impossible date/);
  });
});

describe('grants-gov-scraped (search2 + fetchOpportunity items)', () => {
  const item = {
    title: 'AHRQ Small Health Services Research Grant Program (R03)',
    url: 'https://www.grants.gov/search-results-detail/352221',
    source: 'grants.gov',
    description: 'purpose of this&nbsp;Notice &amp; more',
    posted_date: '2024-02-06',
    deadline_date: '2029-07-17',
    opportunity_number: 'PA-24-155',
    agency_code: 'HHS-AHRQ',
    agency_name: 'Agency for Health Care Research and Quality',
    opp_status: 'synopsis',
    doc_type: 'synopsis',
    funding_categories: ['Health', 'Infrastructure Investment and Jobs Act (IIJA)'],
    eligibilities: ['Small businesses', 'Nonprofits having a 501(c)(3) status with the IRS, other than institutions of higher education', 'State governments'],
  };

  it('maps an item field by field', () => {
    const mapped = mapGrant('grants-gov-scraped', item);
    expect(mapped.record).toEqual({
      title: 'AHRQ Small Health Services Research Grant Program (R03)',
      description: 'purpose of this Notice & more',
      amount_min: null,
      amount_max: null,
      deadline_date: '2029-07-17',
      archive_date: null,
      states: [],
      geography: 'National',
      listing_url: 'https://www.grants.gov/search-results-detail/352221',
      created_at: '2024-02-06T00:00:00Z',
      categories: ['Health', 'Infrastructure Investment and Jobs Act'],
      opportunity_type: 'open',
      project_end_date: null,
      source: 'grants.gov',
      source_id: 'PA-24-155',
      status: 'posted',
      eligible_applicants: ['nonprofit', 'for_profit', 'municipality'],
      requires_501c3: true,
      assistance_listings: [],
      agency_code: 'HHS-AHRQ',
    });
    expect(mapped.names).toEqual(['Agency for Health Care Research and Quality', 'Department of Health and Human Services']);
  });

  it('ignores a contact card stored as agency_name and uses the agency code', () => {
    const mapped = mapGrant('grants-gov-scraped', { ...item, agency_name: 'Lajos Szabo\nGrantor', agency_code: 'DOS-SVK' });
    expect(mapped.names).toEqual(['Department of State']);
  });

  it('maps forecasts and rejects an unknown status', () => {
    expect(mapGrant('grants-gov-scraped', { ...item, opp_status: 'forecast', deadline_date: null }).record.status).toBe('forecasted');
    expect(rejectionOf('grants-gov-scraped', { ...item, opp_status: 'pending', doc_type: 'pending' })).toMatch(/unknown status "pending"/);
  });
});

describe('simpler-grants', () => {
  const csvRow = {
    'Opportunity ID': 'PD-23-1417',
    Title: 'Interfacial Engineering',
    'Post Date': '2023-04-05',
    'Est. # of Awards': '113.0',
    'Est. Total Funding': '3200000.0',
    'Award Ceiling': '',
    'Assistance Listings': '47.041|Engineering',
    'Funding Instrument Type': 'grant',
    Deadline: '',
    'Est. Application Deadline': '',
    URL: 'https://simpler.grants.gov/opportunity/454a2d4c-82e7-4159-a8b3-b666bc1347e6',
    Description: 'Proposals should follow the Proposal &amp; Award Policies &amp; Procedures Guide.\n\r\n\nLinks: &ldquo;What Has Been Funded&rdquo;',
    Agency: 'NSF',
    Status: 'Posted',
    'Additional Information on Eligibility': '',
  };

  it('maps a tracker CSV row (display headers) field by field', () => {
    const mapped = mapGrant('simpler-grants', csvRow);
    expect(mapped.record).toEqual({
      title: 'Interfacial Engineering',
      description: 'Proposals should follow the Proposal & Award Policies & Procedures Guide.\n\nLinks: “What Has Been Funded”',
      amount_min: null,
      amount_max: null,
      deadline_date: null,
      archive_date: null,
      states: [],
      geography: 'National',
      listing_url: 'https://simpler.grants.gov/opportunity/454a2d4c-82e7-4159-a8b3-b666bc1347e6',
      created_at: '2023-04-05T00:00:00Z',
      categories: [],
      opportunity_type: 'open',
      project_end_date: null,
      source: 'grants.gov',
      source_id: 'PD-23-1417',
      status: 'posted',
      eligible_applicants: [],
      requires_501c3: null,
      assistance_listings: [{ number: '47.041', program_title: 'Engineering' }],
      agency_code: 'NSF',
    });
    expect(mapped.names).toEqual(['National Science Foundation']);
    expect(mapGrant('simpler-grants', { ...csvRow, 'Award Ceiling': '3125629.0', Deadline: '2026-05-28', Status: 'Forecast' }).record).toMatchObject({
      amount_max: 3125629,
      deadline_date: '2026-05-28',
      status: 'forecasted',
    });
  });

  it('maps the API search fixture', () => {
    const response = JSON.parse(readFileSync(fixture('simpler-grants-search.json'), 'utf8')) as { data: SourceRecord[] };
    const [posted, forecast] = response.data.map((record) => mapGrant('simpler-grants', record));
    expect(posted!.record).toEqual({
      title: 'Cyber-Physical Systems: Foundations and Connected Communities',
      description: 'The Cyber-Physical Systems (CPS) program supports research on engineered systems that are built from computation & physical components.',
      amount_min: 100000,
      amount_max: 1200000,
      deadline_date: '2026-11-19',
      archive_date: '2026-12-19',
      states: [],
      geography: 'National',
      listing_url: 'https://simpler.grants.gov/opportunity/6f0a8e3c-1b2d-4c5e-8f90-a1b2c3d4e5f6',
      created_at: '2026-01-08T00:00:00Z',
      categories: [SCIENCE],
      opportunity_type: 'open',
      project_end_date: null,
      source: 'grants.gov',
      source_id: 'NSF-26-5117',
      status: 'posted',
      eligible_applicants: ['nonprofit', 'academic'],
      requires_501c3: false,
      assistance_listings: [{ number: '47.070', program_title: 'Computer and Information Science and Engineering' }],
      agency_code: 'NSF',
    });
    expect(posted!.names).toEqual(['U.S. National Science Foundation', 'National Science Foundation']);
    expect(forecast!.record).toMatchObject({
      source_id: 'FR-6100-N-44',
      status: 'forecasted',
      deadline_date: '2026-10-30',
      archive_date: null,
      amount_min: null,
      amount_max: 500000,
      categories: ['Housing', 'Community Development'],
      eligible_applicants: ['municipality', 'tribal'],
      requires_501c3: null,
    });
    expect(forecast!.names).toEqual(['Department of Housing and Urban Development']);
  });

  it('maps a CSV export row (flattened summary, ";"-joined lists, archived)', () => {
    const exportRow = {
      opportunity_id: 'c4b2d3e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e',
      opportunity_number: 'HHS-2026-IHS-TSGP-0002',
      opportunity_title: 'Tribal Self-Governance Planning Cooperative Agreement',
      opportunity_status: 'archived',
      agency: 'HHS-IHS',
      post_date: '2025-06-02',
      close_date: '2025-08-04',
      archive_date: '2025-09-03',
      award_floor: '',
      award_ceiling: '120000',
      funding_categories: 'health',
      applicant_types: 'federally_recognized_native_american_tribal_governments;other_native_american_tribal_organizations',
      agency_code: 'HHS-IHS',
      agency_name: 'Indian Health Service',
      top_level_agency_name: 'Department of Health and Human Services',
      is_forecast: 'False',
      summary_description: 'Planning cooperative agreements for tribes.',
    };
    const mapped = mapGrant('simpler-grants', exportRow);
    expect(mapped.record).toMatchObject({
      status: 'closed',
      deadline_date: '2025-08-04',
      archive_date: '2025-09-03',
      amount_min: null,
      amount_max: 120000,
      categories: ['Health'],
      eligible_applicants: ['tribal'],
      requires_501c3: null,
      listing_url: 'https://simpler.grants.gov/opportunity/c4b2d3e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e',
      created_at: '2025-06-02T00:00:00Z',
    });
    expect(mapped.names).toEqual(['Indian Health Service', 'Department of Health and Human Services']);
    expect(rejectionOf('simpler-grants', { ...exportRow, award_ceiling: '-5' })).toMatch(/negative amount/);
    expect(rejectionOf('simpler-grants', { ...exportRow, opportunity_number: '' })).toBe('missing opportunity number');
  });
});

describe('fbopen-grants', () => {
  const document = {
    _id: 'grants.gov:s14as00004',
    _type: 'opp',
    close_dt: '2014-09-30T00:00:00Z',
    ext: {
      ObtainFundingOppText: 'http://www.grants.gov',
      AwardCeiling: '200000',
      AwardFloor: '150000',
      EligibilityCategory: ['12'],
      FundingActivityCategory: ['ED', 'ENV', 'NR', 'ST'],
      ArchiveDate: '2014-10-01T00:00:00Z',
    },
    description: 'The OSM/VISTA AmeriCorps Program&apos;s partners.',
    office: 'Health Resources &amp; Services Administration',
    listing_url: 'http://www.grants.gov/web/grants/view-opportunity.html?oppId=243215',
    posted_dt: '2013-09-20T00:00:00Z',
    solnbr: 'S14AS00004',
    title: 'OSM/VISTA AmeriCorps Program',
    data_source: 'grants.gov',
    agency: 'Department of Health and Human Services',
  };

  it('maps a document field by field', () => {
    const mapped = mapGrant('fbopen-grants', document);
    expect(mapped.record).toEqual({
      title: 'OSM/VISTA AmeriCorps Program',
      description: "The OSM/VISTA AmeriCorps Program's partners.",
      amount_min: 150000,
      amount_max: 200000,
      deadline_date: '2014-09-30',
      archive_date: '2014-10-01',
      states: [],
      geography: 'National',
      listing_url: 'http://www.grants.gov/web/grants/view-opportunity.html?oppId=243215',
      created_at: '2013-09-20T00:00:00Z',
      categories: ['Education', 'Environment', 'Natural Resources', SCIENCE],
      opportunity_type: 'open',
      project_end_date: null,
      source: 'grants.gov',
      source_id: 'S14AS00004',
      status: 'closed',
      eligible_applicants: ['nonprofit'],
      requires_501c3: true,
      assistance_listings: [],
      agency_code: null,
    });
    expect(mapped.names).toEqual(['Health Resources & Services Administration', 'Department of Health and Human Services']);
  });

  it('only matches grants.gov documents, not fbo.gov contract notices from the same file', () => {
    const fbopen = format('fbopen-grants');
    expect(fbopen.matches(document)).toBe(true);
    expect(fbopen.matches({ ...document, data_source: 'fbo.gov', _id: 'fbo.gov:abc' })).toBe(false);
    expect(fbopen.matches({ solnbr: 'X', _id: 'fbo.gov:x', title: 'Contract' })).toBe(false);
    expect(fbopen.matches({ solnbr: 'X', _id: 'grants.gov:x', title: 'Grant' })).toBe(true);
  });
});

describe('format detection', () => {
  it('picks exactly one format per shape', () => {
    const shapes: Record<string, SourceRecord> = {
      'grants-gov-xml': { _record_type: 'FundingOppSynopsis', FundingOppNumber: 'A', FundingOppTitle: 'T' },
      'grants-gov-search2': { id: '1', number: 'A', title: 'T', agency: 'X', openDate: '01/01/2020', closeDate: '' },
      'grants-gov-fetch-opportunity': { id: 1, opportunityNumber: 'A', opportunityTitle: 'T', synopsis: {} },
      'grants-gov-scraped': { title: 'T', opportunity_number: 'A', agency_code: 'NSF', opp_status: 'synopsis', eligibilities: [] },
      'simpler-grants': { opportunity_id: 'x', opportunity_number: 'A', opportunity_title: 'T', summary: {} },
      'fbopen-grants': { _id: 'grants.gov:a', solnbr: 'A', title: 'T', data_source: 'grants.gov' },
    };
    for (const [id, source] of Object.entries(shapes)) {
      expect(
        GRANT_FORMATS.filter((candidate) => candidate.matches(source)).map((candidate) => candidate.id),
        id,
      ).toEqual([id]);
    }
    expect(GRANT_FORMATS.filter((candidate) => candidate.matches({ 'Opportunity ID': 'A', Title: 'T' })).map((candidate) => candidate.id)).toEqual([
      'simpler-grants',
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Every line of ../shared/data/grants.jsonl

const SHARED_DATA = fileURLToPath(new URL('../../../shared/data/', import.meta.url));
const GRANTS_FILE = `${SHARED_DATA}grants.jsonl`;
const sharedDataMessage = `skipped: ${GRANTS_FILE} is absent (the shared data corpus is not checked out next to the project)`;

describe.skipIf(!existsSync(GRANTS_FILE))(`../shared/data/grants.jsonl ${existsSync(GRANTS_FILE) ? '' : sharedDataMessage}`, () => {
  const lines = existsSync(GRANTS_FILE)
    ? readFileSync(GRANTS_FILE, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
    : [];
  const sources = lines.map((line) => JSON.parse(line) as SourceRecord);
  const formatOf = (line: SourceRecord) =>
    GRANT_FORMATS.find(
      (candidate) => candidate.provenance.some((p) => p.repo === line._source_repo && p.path.test(String(line._source_path))) && candidate.matches(line),
    );

  interface Outcome {
    source: SourceRecord;
    key: string;
    mapped?: { record: GrantDraft; names: readonly string[] };
    rejection?: string;
  }
  const outcomes: Outcome[] = sources.map((source) => {
    const key = `${String(source._source_repo)} ${String(source._source_path)}`;
    const chosen = formatOf(source);
    if (!chosen) return { source, key, rejection: 'no format' };
    try {
      const mapped = chosen.map(source, context);
      if (mapped.kind !== 'grant') return { source, key, rejection: `mapped to ${mapped.kind}` };
      return { source, key, mapped: { record: mapped.record, names: mapped.funder.names } };
    } catch (error) {
      if (error instanceof RecordRejected) return { source, key, rejection: error.reason };
      throw error;
    }
  });

  const byNumber = (number: string) => {
    const found = outcomes.find((outcome) => outcome.mapped?.record.source_id === number);
    if (!found?.mapped) throw new Error(`${number} was not mapped`);
    return { ...found.mapped, source: found.source };
  };

  it('maps or rejects every line, with rare and explained rejections (counts printed)', () => {
    expect(sources).toHaveLength(4050);
    const summary: Record<string, { mapped: number; rejected: Record<string, number> }> = {};
    for (const outcome of outcomes) {
      const entry = (summary[outcome.key] ??= { mapped: 0, rejected: {} });
      if (outcome.mapped) entry.mapped += 1;
      else entry.rejected[outcome.rejection!] = (entry.rejected[outcome.rejection!] ?? 0) + 1;
    }
    console.info('grants.jsonl by source:', JSON.stringify(summary, null, 2));
    expect(summary['UM-MIDAS/grant-tracker data/opportunities.csv']).toEqual({ mapped: 214, rejected: {} });
    expect(summary['hDanford/grant-finding-tool data/grants.json']).toEqual({ mapped: 1676, rejected: {} });
    expect(summary['18F/fbopen api/test/data/test_data.json']).toEqual({ mapped: 184, rejected: {} });
    expect(summary['18F/fbopen loaders/test/sample/grants.xml']).toEqual({ mapped: 32, rejected: {} });
    // G5: Grants.gov's own test postings, and five hits whose only agency is an office name such as "Headquarters".
    const g5 = summary['18F/fbopen loaders/test/sample/grants-ids-20150813.json']!;
    expect(g5.mapped).toBe(1913);
    expect(g5.rejected['Grants.gov test opportunity (agency "IV&V Test Agency"), not a real funding opportunity']).toBe(26);
    expect(
      Object.entries(g5.rejected)
        .filter(([reason]) => /does not say which agency/.test(reason))
        .reduce((sum, [, n]) => sum + n, 0),
    ).toBe(5);
  });

  it('gives every mapped line a record that passes GrantSchema, and a unique source_id', () => {
    const mapped = outcomes.flatMap((outcome) => (outcome.mapped ? [outcome.mapped] : []));
    const invalid = mapped.filter((one) => !GrantSchema.safeParse(asStoredGrant(one)).success).map((one) => one.record.source_id);
    expect(invalid).toEqual([]);
    expect(mapped.every((one) => one.names.length > 0 && one.names.every((name) => name.trim() !== '' && !/\n/.test(name)))).toBe(true);
    // The corpus is deduplicated by normalised opportunity number, which is our source_id.
    expect(new Set(mapped.map((one) => one.record.source_id)).size).toBe(mapped.length);
  });

  it('G2 PA-24-155 (scraped search2/fetchOpportunity item)', () => {
    const { record, names, source } = byNumber('PA-24-155');
    expect(source.title).toBe(record.title);
    expect(record).toMatchObject({
      title: 'AHRQ Small Health Services Research Grant Program (R03)',
      deadline_date: '2029-07-17',
      created_at: '2024-02-06T00:00:00Z',
      status: 'posted',
      categories: ['Health'],
      eligible_applicants: ['nonprofit', 'for_profit', 'municipality', 'tribal', 'academic'],
      requires_501c3: false,
      listing_url: 'https://www.grants.gov/search-results-detail/352221',
      amount_min: null,
      amount_max: null,
      states: [],
      geography: 'National',
    });
    expect(record.description.startsWith('purpose of this Notice of Funding Opportunity (NOFO)')).toBe(true);
    expect(names).toEqual(['Agency for Health Care Research and Quality', 'Department of Health and Human Services']);
  });

  it('G2 PAS-SVK-FY2026-01: a contact card in agency_name is not the funder', () => {
    const { record, names, source } = byNumber('PAS-SVK-FY2026-01');
    expect(source.agency_name).toBe('Lajos Szabo\nGrantor');
    expect(names).toEqual(['Department of State']);
    expect(record.eligible_applicants).toEqual([]);
    expect(record.description).toContain('to submit applications to the 2026 Alumni Engagement Innovation Fund (AEIF 2026)');
  });

  it('G3 S14AS00004 (FBOpen normalised extract)', () => {
    const { record, names } = byNumber('S14AS00004');
    expect(record).toMatchObject({
      title: 'OSM/VISTA AmeriCorps Program',
      amount_min: 150000,
      amount_max: 200000,
      deadline_date: '2014-09-30',
      created_at: '2013-09-20T00:00:00Z',
      status: 'closed',
      listing_url: 'http://www.grants.gov/web/grants/view-opportunity.html?oppId=243215',
      // The description limits it to ten states ("… in the following States are eligible to participate: …").
      states: ['AL', 'CO', 'KY', 'MD', 'NM', 'OH', 'PA', 'TN', 'VA', 'WV'],
      geography: 'Multi-state: AL, CO, KY, MD, NM, OH, PA, TN, VA, WV',
    });
    const [evidence] = (record as Grant).eligibility_evidence!;
    expect(evidence).toMatchObject({
      field: 'states',
      effect: 'only',
      source: 'description',
      values: ['AL', 'CO', 'KY', 'MD', 'NM', 'OH', 'PA', 'TN', 'VA', 'WV'],
    });
    expect(record.description.replace(/\s+/g, ' ')).toContain(evidence!.quote.replace(/…/g, ''));
    expect(names).toEqual(['Office of Surface Mining', 'Department of the Interior']);
  });

  it('G4 OJJDP-2008-1900 (XMLExtract.dtd FundingOppSynopsis)', () => {
    const { record, names, source } = byNumber('OJJDP-2008-1900');
    expect(source._record_type).toBe('FundingOppSynopsis');
    expect(record.title).toBe('OJJDP FY 08 Brief Interventions and Referrals to Treatment (BIRT) for Juvenile Courts and Juvenile Drug Courts');
    expect(record.deadline_date).toBe(parseCompact(String(source.ApplicationsDueDate)));
    expect(record.created_at).toBe(`${parseCompact(String(source.PostDate))}T00:00:00Z`);
    expect(record.status).toBe('closed');
    expect(record.categories).toEqual(['Law, Justice and Legal Services']);
    expect(names[names.length - 1]).toBe('Department of Justice');
    expect(record.description).not.toMatch(/<[a-z]/i);
  });

  it('G5 GCC-GRANT-SEP-15-001 (search hit, no description)', () => {
    const { record, names } = byNumber('GCC-GRANT-SEP-15-001');
    expect(record).toMatchObject({
      title: 'Spill Impact Component Planning Grants',
      description: '',
      deadline_date: '2015-12-31',
      created_at: '2014-12-31T00:00:00Z',
      status: 'closed',
      listing_url: 'https://www.grants.gov/search-results-detail/270977',
      categories: [],
      eligible_applicants: [],
      requires_501c3: null,
    });
    expect(names).toEqual(['Gulf Coast Ecosystem Restoration Council']);
  });

  it('G1 PD-23-1417 (simpler.grants.gov tracker CSV)', () => {
    const { record, names } = byNumber('PD-23-1417');
    expect(record).toMatchObject({
      title: 'Interfacial Engineering',
      deadline_date: null,
      amount_max: null,
      created_at: '2023-04-05T00:00:00Z',
      status: 'posted',
      listing_url: 'https://simpler.grants.gov/opportunity/454a2d4c-82e7-4159-a8b3-b666bc1347e6',
      eligible_applicants: [],
      requires_501c3: null,
    });
    expect(record.description).toContain('“What Has Been Funded (Recent Awards Made Through This Program, with Abstracts)”');
    expect(record.description).toContain('Proposal & Award Policies & Procedures Guide');
    expect(names).toEqual(['National Science Foundation']);
  });
});

function parseCompact(mmddyyyy: string): string {
  return `${mmddyyyy.slice(4)}-${mmddyyyy.slice(0, 2)}-${mmddyyyy.slice(2, 4)}`;
}
