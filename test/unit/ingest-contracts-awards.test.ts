import { existsSync, readFileSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { agencyKeyOf } from '../../lambdas/core/ingest/agency-names';
import { agencyOfAssistanceListing } from '../../lambdas/core/ingest/awards/assistance-listing-agencies';
import { AWARD_FORMATS } from '../../lambdas/core/ingest/awards/index';
import { nsfAwardsCsv } from '../../lambdas/core/ingest/awards/nsf-awards-csv';
import { usaspendingAssistanceAwards } from '../../lambdas/core/ingest/awards/usaspending-assistance-awards';
import { usaspendingContractAwards } from '../../lambdas/core/ingest/awards/usaspending-contract-awards';
import { fboNotices, stateOfAddress } from '../../lambdas/core/ingest/contracts/fbo-notices';
import { govConRadarNotices } from '../../lambdas/core/ingest/contracts/govconradar-notices';
import { CONTRACT_FORMATS } from '../../lambdas/core/ingest/contracts/index';
import { contractCategoryOfNaics } from '../../lambdas/core/ingest/contracts/naics-categories';
import { samCsvExport } from '../../lambdas/core/ingest/contracts/sam-csv-export';
import { samNoticesCsv } from '../../lambdas/core/ingest/contracts/sam-notices-csv';
import { samOpportunitiesV2 } from '../../lambdas/core/ingest/contracts/sam-opportunities-v2';
import { setAsideCodeOf } from '../../lambdas/core/ingest/contracts/set-aside';
import type { MappedRecord, SourceFormat, SourceRecord } from '../../lambdas/core/ingest/mapped-record';
import { RecordRejected } from '../../lambdas/core/ingest/rejection';
import { ContractSchema, GrantSchema } from '../../lambdas/core/records';

/*
 * Fixtures (test/fixtures/ingest/), mapped with today = 2026-08-15. Expected values, for the
 * end-to-end reader tests:
 *
 * sam-opportunities-v2.json (format sam-opportunities-v2; 3 contracts, source "sam.gov")
 *   a1b2c3d4e5f60718293a4b5c6d7e8f90  "Enterprise Help Desk Support Services": open / status open,
 *     deadline 2026-09-15, created_at 2026-08-03T00:00:00Z, states [MD] (Maryland), naics 541512,
 *     categories [Information Technology], set_aside SBA, email jane.doe.civ@army.mil (primary, not
 *     the secondary), listing_url = uiLink, document_url = first resourceLinks entry, amounts null,
 *     funder names [DEPT OF THE ARMY, DEPT OF DEFENSE].
 *   0f9e8d7c6b5a49382716f5e4d3c2b1a0  Sources Sought in Japan (state JP-14, country JPN): states [],
 *     geography International, deadline 2026-08-12 (as written, +09:00) so status closed, naics 561210
 *     [Facilities Support], set_aside null, document_url = additionalInfoLink, composed description
 *     naming the industry, then "Sources Sought notice N40084-26-R-0100 from DEPT OF DEFENSE, DEPT OF THE NAVY, ...".
 *   5c4b3a29180716f5e4d3c2b1a0f9e8d7  Award Notice: opportunity_type awarded, status closed,
 *     deadline null, amount_min = amount_max = 1250000, set_aside 8A, states [DC], funder names
 *     [US CUSTOMS AND BORDER PROTECTION, "HOMELAND SECURITY, DEPARTMENT OF"]; description mentions
 *     "Contract 70B06C26C00000123 awarded to Example Cloud Solutions LLC on 2026-07-25 for $1,250,000".
 *
 * sam-contract-opportunities.csv (format sam-csv-export; 3 contracts, source "sam.gov")
 *   7e1f2a3b4c5d6e7f8091a2b3c4d5e6f7  "Janitorial Services, Fort Hood": open, deadline 2026-09-04,
 *     created_at 2026-08-05T14:22:10Z, states [TX], naics 561720 [Facilities Support], set_aside
 *     SDVOSBC, email maria.lopez.civ@army.mil, description = the quoted three-line Description (with
 *     its commas and line breaks), document_url null, funder [DEPT OF THE ARMY, DEPT OF DEFENSE].
 *   b7c8d9e0f1a2435465768798a9b0c1d2  Award Notice: awarded, closed, amounts 48250, naics 562910
 *     [Environmental Services], set_aside SBA, states [MD], funder [ENVIRONMENTAL PROTECTION AGENCY].
 *   c0ffee00112233445566778899aabbcc  Presolicitation, Active "No": closed; PopState DE-RP / DEU so
 *     states [] and International; naics 236220 [Construction]; set_aside null; email null; empty
 *     Description so a composed one; document_url = AdditionalInfoLink.
 *
 * nsf-awards.csv (format nsf-awards-csv; 2 grants, source "nsf", opportunity_type awarded, closed)
 *   AwardNumber ="2400123" -> source_id 2400123, amounts 1499876, created_at 2024-08-14T00:00:00Z
 *     (amendment date before the start), project_end_date 2029-08-31, states [FL], categories
 *     [Science and Technology and other Research and Development, Education] (EDU), description
 *     "This award trains graduate students in water & climate data science.\nTrainees work ..."
 *     listing_url https://www.nsf.gov/awardsearch/showAward?AWD_ID=2400123.
 *   2311456 -> amounts 245000, created_at 2023-06-20T00:00:00Z, project_end_date 2026-06-30,
 *     states [CA], categories [Science and Technology and other Research and Development].
 *   Both: funder names [National Science Foundation], eligible_applicants [], requires_501c3 null.
 *
 * usaspending-spending-by-award.json (format usaspending-assistance-awards; 2 grants, source
 * "usaspending", awarded, closed, project_end_date null, categories [])
 *   ASST_NON_R01AG099999_7529: title "AGING BRAIN RESILIENCE & SLEEP: A LONGITUDINAL STUDY",
 *     amounts 612345.5, created_at 2022-09-15T00:00:00Z, states [MA], funder [Department of Health
 *     and Human Services] (CFDA 93.866), listing_url https://www.usaspending.gov/award/ASST_NON_R01AG099999_7529.
 *   ASST_NON_SGE50022GR0042_1900: amounts 150000, country GEO so states [] and International,
 *     funder [Department of State] (CFDA 19.345).
 */

const TODAY = '2026-08-15';
const FIXTURES = new URL('../fixtures/ingest/', import.meta.url);
const SHARED = new URL('../../../shared/data/', import.meta.url);
const FORMATS: readonly SourceFormat[] = [...CONTRACT_FORMATS, ...AWARD_FORMATS];

const FIXED_ID = '00000000-0000-4000-8000-000000000001';
const FIXED_FUNDER_ID = '00000000-0000-4000-8000-000000000002';

/** The record as the pipeline stores it: our id, the funder link and, when missing, created_at filled in. */
function stored(mapped: MappedRecord) {
  if (mapped.kind === 'funder') throw new Error('contract and award formats map no funders');
  const record = {
    ...mapped.record,
    id: FIXED_ID,
    funder_id: FIXED_FUNDER_ID,
    funder_name: mapped.funder.names[0] ?? 'Unknown',
    created_at: mapped.record.created_at ?? '2026-01-01T00:00:00Z',
  };
  const result = (mapped.kind === 'grant' ? GrantSchema : ContractSchema).safeParse(record);
  if (!result.success) throw new Error(`schema: ${JSON.stringify(result.error.issues)} in ${JSON.stringify(record)}`);
  return record;
}

function mapOne(format: SourceFormat, source: SourceRecord, today = TODAY) {
  const mapped = format.map(source, { today });
  return { mapped, record: stored(mapped) };
}

function rejectionOf(format: SourceFormat, source: SourceRecord): string {
  try {
    format.map(source, { today: TODAY });
  } catch (error) {
    if (error instanceof RecordRejected) return error.reason;
    throw error;
  }
  throw new Error('expected a rejection');
}

const funderNames = (mapped: MappedRecord) => (mapped.kind === 'funder' ? [] : mapped.funder.names);

function fixtureJson(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as Record<string, unknown>;
}
function fixtureCsv(name: string): SourceRecord[] {
  return parseCsv(readFileSync(new URL(name, FIXTURES), 'utf8'), { columns: true, bom: true }) as SourceRecord[];
}

describe('sam-opportunities-v2', () => {
  const [solicitation, sourcesSought, award] = fixtureJson('sam-opportunities-v2.json').opportunitiesData as SourceRecord[];

  it('maps a solicitation field by field', () => {
    const { mapped, record } = mapOne(samOpportunitiesV2, solicitation!);
    expect(samOpportunitiesV2.matches(solicitation!)).toBe(true);
    expect(record).toMatchObject({
      title: 'Enterprise Help Desk Support Services',
      amount_min: null,
      amount_max: null,
      deadline_date: '2026-09-15',
      archive_date: '2026-09-30',
      status: 'open',
      opportunity_type: 'open',
      project_end_date: null,
      states: ['MD'],
      geography: 'Maryland',
      naics: '541512',
      categories: ['Information Technology'],
      set_aside_code: 'SBA',
      primary_contact_email: 'jane.doe.civ@army.mil',
      listing_url: 'https://sam.gov/workspace/contract/opp/a1b2c3d4e5f60718293a4b5c6d7e8f90/view',
      document_url: 'https://sam.gov/api/prod/opps/v3/opportunities/resources/files/0123456789abcdef0123456789abcdef/download',
      created_at: '2026-08-03T00:00:00Z',
      source: 'sam.gov',
      source_id: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
    });
    expect(record.description).toContain('Solicitation notice W56KGU-26-R-0042 from DEPT OF DEFENSE, DEPT OF THE ARMY');
    expect(record.description).toContain('Set-aside: Total Small Business Set-Aside (FAR 19.5).');
    expect(record.description).not.toContain('api.sam.gov');
    expect(funderNames(mapped)).toEqual(['DEPT OF THE ARMY', 'DEPT OF DEFENSE']);
    // After the deadline the same notice is closed.
    expect(mapOne(samOpportunitiesV2, solicitation!, '2026-09-16').record.status).toBe('closed');
  });

  it('maps a non-US place of performance to International', () => {
    const { record } = mapOne(samOpportunitiesV2, sourcesSought!);
    expect(record).toMatchObject({
      states: [],
      geography: 'International',
      deadline_date: '2026-08-12',
      archive_date: '2026-08-27',
      status: 'closed',
      naics: '561210',
      categories: ['Facilities Support'],
      set_aside_code: null,
      document_url: 'https://www.navfac.navy.mil/far-east',
      primary_contact_email: 'navfac.fe.contracts@us.navy.mil',
    });
    expect(record.description).toMatch(
      /^Industry: Facilities Support Services \(NAICS 561210\)\. .*Sources Sought notice N40084-26-R-0100 from DEPT OF DEFENSE, DEPT OF THE NAVY/,
    );
    expect(record.description).toContain('Place of performance: Yokosuka, JP-14, JPN.');
  });

  it('maps an award notice to an awarded, closed contract with the award amount', () => {
    const { mapped, record } = mapOne(samOpportunitiesV2, award!);
    expect(record).toMatchObject({
      opportunity_type: 'awarded',
      status: 'closed',
      deadline_date: null,
      archive_date: null,
      amount_min: 1_250_000,
      amount_max: 1_250_000,
      set_aside_code: '8A',
      states: ['DC'],
    });
    expect(record.description).toContain('Contract 70B06C26C00000123 awarded to Example Cloud Solutions LLC on 2026-07-25 for $1,250,000.');
    expect(funderNames(mapped)).toEqual(['US CUSTOMS AND BORDER PROTECTION', 'HOMELAND SECURITY, DEPARTMENT OF']);
  });

  it('reads a state given only by name and an inactive notice', () => {
    const { record } = mapOne(samOpportunitiesV2, {
      ...solicitation!,
      active: 'No',
      placeOfPerformance: { city: { name: 'Aurora' }, state: { name: 'CO' }, zip: '80045', country: {} },
    });
    expect(record).toMatchObject({ states: ['CO'], status: 'closed' });
  });

  it('rejects a missing notice id, an impossible date and a negative award amount', () => {
    expect(rejectionOf(samOpportunitiesV2, { ...solicitation!, noticeId: '' })).toBe('missing required field noticeId');
    expect(rejectionOf(samOpportunitiesV2, { ...solicitation!, responseDeadLine: '2026-02-30' })).toBe('responseDeadLine: "2026-02-30" is an impossible date');
    expect(rejectionOf(samOpportunitiesV2, { ...award!, award: { amount: '-500.00' } })).toBe('award.amount: negative amount -500.00');
    expect(rejectionOf(samOpportunitiesV2, { ...solicitation!, title: '  ' })).toBe('missing required field title');
  });
});

describe('sam-csv-export', () => {
  const rows = fixtureCsv('sam-contract-opportunities.csv');

  it('has the official 47 columns', () => {
    expect(Object.keys(rows[0]!)).toHaveLength(47);
    expect(rows.every((row) => samCsvExport.matches(row) && !samOpportunitiesV2.matches(row))).toBe(true);
  });

  it('maps an open notice with its multi-line description', () => {
    const { mapped, record } = mapOne(samCsvExport, rows[0]!);
    expect(record).toMatchObject({
      title: 'Janitorial Services, Fort Hood',
      status: 'open',
      opportunity_type: 'open',
      deadline_date: '2026-09-04',
      archive_date: '2026-09-19',
      created_at: '2026-08-05T14:22:10Z',
      states: ['TX'],
      geography: 'Texas',
      naics: '561720',
      categories: ['Facilities Support'],
      set_aside_code: 'SDVOSBC',
      primary_contact_email: 'maria.lopez.civ@army.mil',
      document_url: null,
      listing_url: 'https://sam.gov/workspace/contract/opp/7e1f2a3b4c5d6e7f8091a2b3c4d5e6f7/view',
      source: 'sam.gov',
      source_id: '7e1f2a3b4c5d6e7f8091a2b3c4d5e6f7',
    });
    expect(record.description).toBe(
      [
        'The Mission and Installation Contracting Command, Fort Hood, intends to award a firm-fixed-price contract for janitorial services.',
        'Services include cleaning, waste removal, and floor care in Buildings 1001, 1002, and 1003.',
        'Offers are due by 4 September 2026.',
      ].join('\n'),
    );
    expect(funderNames(mapped)).toEqual(['DEPT OF THE ARMY', 'DEPT OF DEFENSE']);
  });

  it('maps an award row and an inactive foreign row', () => {
    const awarded = mapOne(samCsvExport, rows[1]!);
    expect(awarded.record).toMatchObject({
      opportunity_type: 'awarded',
      status: 'closed',
      amount_min: 48250,
      amount_max: 48250,
      deadline_date: null,
      archive_date: null,
      naics: '562910',
      categories: ['Environmental Services'],
      set_aside_code: 'SBA',
      states: ['MD'],
    });
    expect(funderNames(awarded.mapped)).toEqual(['ENVIRONMENTAL PROTECTION AGENCY']);
    const foreign = mapOne(samCsvExport, rows[2]!);
    expect(foreign.record).toMatchObject({
      status: 'closed',
      archive_date: '2026-12-31',
      states: [],
      geography: 'International',
      naics: '236220',
      categories: ['Construction'],
      set_aside_code: null,
      primary_contact_email: null,
      document_url: 'https://www.ramstein.af.mil/contracting',
    });
    expect(foreign.record.description).toMatch(
      /^Industry: .* \(NAICS 236220\)\. .*Presolicitation notice FA5613-26-R-0003 from DEPT OF DEFENSE, DEPT OF THE AIR FORCE, FA5613 700 CONS LGC\./,
    );
  });

  it('rejects Excel-style bad values with the column name', () => {
    expect(rejectionOf(samCsvExport, { ...rows[1]!, Award$: '-48250.00' })).toBe('Award$: negative amount -48250.00');
    expect(rejectionOf(samCsvExport, { ...rows[0]!, PostedDate: '2026-02-30 10:00:00' })).toBe('PostedDate: "2026-02-30 10:00:00" is an impossible date');
    expect(rejectionOf(samCsvExport, { ...rows[0]!, NoticeId: '' })).toBe('missing required field NoticeId');
  });
});

describe('sam-notices-csv, govconradar-notices and fbo-notices', () => {
  const midas: SourceRecord = {
    'Notice ID': '0a0b0c0d0e0f40718293a4b5c6d7e8f9',
    Title: 'Biological Technologies Office Broad Agency Announcement',
    'Solicitation Number': 'HR001126S0001',
    Agency: 'DEF ADVANCED RESEARCH PROJECTS AGCY',
    'Department Path': 'DEPT OF DEFENSE.DEFENSE ADVANCED RESEARCH PROJECTS AGENCY  (DARPA).DEF ADVANCED RESEARCH PROJECTS AGCY',
    Type: 'Solicitation',
    'Base Type': 'Solicitation',
    'Posted Date': '2026-07-01',
    'Response Deadline': '2026-09-30T16:00:00',
    'Archive Date': '2026-10-15',
    Active: 'Yes',
    'Set Aside': '',
    'NAICS Code': '541715',
    'Classification Code': 'AC11',
    Contact: 'BTO-BAA@darpa.mil',
    'Description URL': 'https://api.sam.gov/opportunities/v2/search?api_key=SECRET&noticeid=x',
    'UI Link': 'https://sam.gov/workspace/contract/opp/0a0b0c0d0e0f40718293a4b5c6d7e8f9/view',
    'Resource Links':
      'https://sam.gov/api/prod/opps/v3/opportunities/resources/files/aaa/download | https://sam.gov/api/prod/opps/v3/opportunities/resources/files/bbb/download',
  };

  it('maps a UM-MIDAS notice row', () => {
    const { mapped, record } = mapOne(samNoticesCsv, midas);
    expect(record).toMatchObject({
      status: 'open',
      deadline_date: '2026-09-30',
      archive_date: '2026-10-15',
      naics: '541715',
      categories: ['Research and Development'],
      set_aside_code: null,
      primary_contact_email: 'BTO-BAA@darpa.mil',
      states: [],
      geography: 'National',
      document_url: 'https://sam.gov/api/prod/opps/v3/opportunities/resources/files/aaa/download',
      created_at: '2026-07-01T00:00:00Z',
      source: 'sam.gov',
      source_id: '0a0b0c0d0e0f40718293a4b5c6d7e8f9',
    });
    expect(record.description).not.toContain('SECRET');
    expect(funderNames(mapped)).toEqual(['DEFENSE ADVANCED RESEARCH PROJECTS AGENCY (DARPA)', 'DEPT OF DEFENSE']);
    expect(mapOne(samNoticesCsv, { ...midas, Contact: 'do_not_use_this_email_address@arpa-h.gov' }).record).toMatchObject({ primary_contact_email: null });
    expect(mapOne(samNoticesCsv, { ...midas, Type: 'Award Notice' }).record).toMatchObject({
      opportunity_type: 'awarded',
      status: 'closed',
      deadline_date: null,
      archive_date: null,
    });
  });

  const radar: SourceRecord = {
    notice_id: '1f2e3d4c5b6a49382716f5e4d3c2b1a0',
    solicitation_number: 'N00178-26-R-0001',
    title: 'CYBER RANGE ENGINEERING SUPPORT',
    notice_type: 'Combined Synopsis/Solicitation',
    posted_date: '2026-06-30',
    response_deadline: '2026-08-20',
    archive_date: '',
    agency: 'DEPT OF DEFENSE',
    subagency: 'DEPT OF THE NAVY',
    office: 'NSWC DAHLGREN',
    naics: '541330',
    psc: 'R425',
    set_aside: 'Total Small Business Set-Aside (FAR 19.5)',
    set_aside_code: 'SBA',
    place_of_performance_state: 'VA',
    source_url: 'https://sam.gov/workspace/contract/opp/1f2e3d4c5b6a49382716f5e4d3c2b1a0/view',
    pull_timestamp_utc: '2026-07-15T12:31:17.044134+00:00',
  };

  it('maps a GovConRadar notice row', () => {
    const { mapped, record } = mapOne(govConRadarNotices, radar);
    expect(record).toMatchObject({
      status: 'open',
      deadline_date: '2026-08-20',
      archive_date: null,
      states: ['VA'],
      naics: '541330',
      categories: ['Professional Services'],
      set_aside_code: 'SBA',
      primary_contact_email: null,
      listing_url: radar.source_url,
      document_url: null,
    });
    expect(funderNames(mapped)).toEqual(['DEPT OF THE NAVY', 'DEPT OF DEFENSE']);
    expect(mapOne(govConRadarNotices, { ...radar, archive_date: '2026-08-01' }).record).toMatchObject({ archive_date: '2026-08-01', status: 'closed' });
    expect(mapOne(govConRadarNotices, { ...radar, place_of_performance_state: 'JP-14' }).record.geography).toBe('International');
    expect(rejectionOf(govConRadarNotices, { ...radar, response_deadline: '2026-02-30' })).toBe('response_deadline: "2026-02-30" is an impossible date');
  });

  const fbo: SourceRecord = {
    _id: 'fbo.gov:COMBINE:w912dy-14-t-0100',
    _type: 'opp',
    data_source: 'fbo.gov',
    notice_type: 'COMBINE',
    solnbr: 'w912dy-14-t-0100',
    posted_dt: '2014-06-17',
    close_dt: '2014-07-01',
    agency: 'Department of the Army',
    office: 'U.S. Army Corps of Engineers',
    location: 'USACE HNC, Huntsville',
    zipcode: '35807',
    title: 'Z--Roof Repair, Building 4488',
    description: 'Roof repair at Redstone Arsenal &amp; related work.<br/>See the attached SOW.',
    listing_url: 'https://www.fbo.gov/notices/0123456789abcdef0123456789abcdef',
    ext: {
      NAICS: '238160',
      SETASIDE: 'Total Small Business',
      CLASSCOD: 'Z',
      POPCOUNTRY: 'US',
      POPZIP: '35898',
      POPADDRESS: 'Building 4488\nRedstone Arsenal, AL',
      CONTACT: 'Pat Jones, 256-555-0100',
      email_address: 'pat.jones@usace.army.mil',
    },
  };

  it('maps an FBOpen FedBizOpps notice and leaves FBOpen grants alone', () => {
    const { mapped, record } = mapOne(fboNotices, fbo);
    expect(fboNotices.matches(fbo)).toBe(true);
    expect(fboNotices.matches({ ...fbo, _id: 'grants.gov:x', data_source: 'grants.gov' })).toBe(false);
    expect(record).toMatchObject({
      source: 'fbo.gov',
      source_id: 'COMBINE:w912dy-14-t-0100',
      title: 'Z--Roof Repair, Building 4488',
      description: 'Roof repair at Redstone Arsenal & related work.\nSee the attached SOW.',
      // No archive date of its own: archived when FedBizOpps was retired.
      deadline_date: '2014-07-01',
      archive_date: '2019-11-08',
      status: 'closed',
      states: ['AL'],
      naics: '238160',
      categories: ['Construction'],
      set_aside_code: 'SBA',
      primary_contact_email: 'pat.jones@usace.army.mil',
      created_at: '2014-06-17T00:00:00Z',
    });
    expect(funderNames(mapped)).toEqual(['Department of the Army']);
    // FedBizOpps is retired: even a notice without dates is closed.
    expect(mapOne(fboNotices, { ...fbo, close_dt: undefined }).record.status).toBe('closed');
  });

  it('reads the top-level FBO_ fields of the nightly files', () => {
    const { record } = mapOne(fboNotices, {
      _id: 'FBO:PRESOL:spe4a514r9999',
      _type: 'opp',
      data_source: 'FBO',
      notice_type: 'PRESOL',
      solnbr: 'spe4a514r9999',
      posted_dt: '2014-04-01T00:00:00Z',
      agency: 'Defense Logistics Agency',
      title: 'Valve, Gate',
      FBO_NAICS: '332911',
      FBO_SETASIDE: 'Service-Disabled Veteran-Owned Small Business',
      FBO_POPCOUNTRY: 'TU',
      FBO_CONTACT: 'A. Buyer, Phone 804, Email a.buyer@dla.mil - B. Officer, Email b.officer@dla.mil',
    });
    expect(record).toMatchObject({
      set_aside_code: 'SDVOSBC',
      primary_contact_email: 'a.buyer@dla.mil',
      states: [],
      geography: 'International',
      categories: ['Logistics and Supplies'],
      created_at: '2014-04-01T00:00:00Z',
    });
  });

  it('finds the state at the end of a free-text address', () => {
    expect(stateOfAddress('REDSTONE ARSENAL, AL 5298 REDSTONE ARSENAL HUNTSVILLE AL')).toBe('AL');
    expect(stateOfAddress('U.S. ARMY CONTRACTING COMMAND, WARREN, MICHIGAN 48397-5000')).toBe('MI');
    expect(stateOfAddress('DLA LAND WARREN, WARREN, MI 48397-5000\n48397-5000\nUSA')).toBe('MI');
    expect(stateOfAddress('3801 Miranda Ave.;Palo Alto, CA')).toBe('CA');
    expect(stateOfAddress('Multiple Countries')).toBeNull();
    expect(stateOfAddress('TBD')).toBeNull();
  });
});

describe('contract field rules', () => {
  it('maps set-aside codes and descriptions from every feed', () => {
    expect(setAsideCodeOf('BICiv')).toBe('BICIV');
    expect(setAsideCodeOf('NONE', 'No Set aside used')).toBeNull();
    expect(setAsideCodeOf(null, 'Total Small Business Set-Aside (FAR 19.5)')).toBe('SBA');
    expect(setAsideCodeOf(null, 'Total Small Business')).toBe('SBA');
    expect(setAsideCodeOf(null, 'Partial Small Business Set-Aside (FAR 19.5)')).toBe('SBP');
    expect(setAsideCodeOf(null, '8(a) Set-Aside (FAR 19.8)')).toBe('8A');
    expect(setAsideCodeOf(null, '8(A) SOLE SOURCE')).toBe('8AN');
    expect(setAsideCodeOf(null, 'Competitive 8(a)')).toBe('8A');
    expect(setAsideCodeOf(null, 'HUBZone')).toBe('HZC');
    expect(setAsideCodeOf(null, 'HUBZONE SOLE SOURCE')).toBe('HZS');
    expect(setAsideCodeOf(null, 'Service-Disabled Veteran-Owned Small Business (SDVOSB) Set-Aside (FAR 19.14)')).toBe('SDVOSBC');
    expect(setAsideCodeOf(null, 'SDVOSB SOLE SOURCE')).toBe('SDVOSBS');
    expect(setAsideCodeOf(null, 'Woman Owned Small Business')).toBe('WOSB');
    expect(setAsideCodeOf(null, 'Economically Disadvantaged Woman Owned Small Business')).toBe('EDWOSB');
    expect(setAsideCodeOf(null, 'Veteran-Owned Small Business Set-Aside (specific to Department of Veterans Affairs)')).toBe('VSA');
    expect(setAsideCodeOf(null, 'Indian Small Business Economic Enterprise')).toBe('ISBEE');
    expect(setAsideCodeOf(null, 'N/A')).toBeNull();
    expect(setAsideCodeOf('XYZ', 'Something new')).toBeNull();
  });

  it('categorises NAICS codes by their longest rule', () => {
    expect(contractCategoryOfNaics('541512')).toBe('Information Technology');
    expect(contractCategoryOfNaics('541330')).toBe('Professional Services');
    expect(contractCategoryOfNaics('541611')).toBe('Professional Services');
    expect(contractCategoryOfNaics('541715')).toBe('Research and Development');
    expect(contractCategoryOfNaics('236220')).toBe('Construction');
    expect(contractCategoryOfNaics('621111')).toBe('Medical');
    expect(contractCategoryOfNaics('561210')).toBe('Facilities Support');
    expect(contractCategoryOfNaics('562910')).toBe('Environmental Services');
    expect(contractCategoryOfNaics('423430')).toBe('Logistics and Supplies');
    expect(contractCategoryOfNaics('336413')).toBe('Security and Defense');
    expect(contractCategoryOfNaics('928110')).toBe('Security and Defense');
    expect(contractCategoryOfNaics('611430')).toBe('Training and Education');
    expect(contractCategoryOfNaics('111110')).toBeNull();
    expect(contractCategoryOfNaics(null)).toBeNull();
  });
});

describe('nsf-awards-csv', () => {
  const rows = fixtureCsv('nsf-awards.csv');

  it('maps an Excel-quoted EDU award field by field', () => {
    const { mapped, record } = mapOne(nsfAwardsCsv, rows[0]!);
    expect(rows[0]!.AwardNumber).toBe('="2400123"');
    expect(record).toMatchObject({
      source: 'nsf',
      source_id: '2400123',
      title: 'NRT: Data-Driven Water Resilience Training for Coastal Communities',
      amount_min: 1_499_876,
      amount_max: 1_499_876,
      deadline_date: null,
      archive_date: null,
      status: 'closed',
      opportunity_type: 'awarded',
      project_end_date: '2029-08-31',
      created_at: '2024-08-14T00:00:00Z',
      states: ['FL'],
      geography: 'Florida',
      categories: ['Science and Technology and other Research and Development', 'Education'],
      eligible_applicants: [],
      requires_501c3: null,
      listing_url: 'https://www.nsf.gov/awardsearch/showAward?AWD_ID=2400123',
    });
    expect(record.description).toBe(
      "This award trains graduate students in water & climate data science.\nTrainees work with coastal communities.\n\nThis award reflects NSF's statutory mission.",
    );
    expect(funderNames(mapped)).toEqual(['National Science Foundation']);
  });

  it('maps a plain award and rejects bad ones', () => {
    expect(mapOne(nsfAwardsCsv, rows[1]!).record).toMatchObject({
      source_id: '2311456',
      amount_max: 245000,
      created_at: '2023-06-20T00:00:00Z',
      project_end_date: '2026-06-30',
      states: ['CA'],
      categories: ['Science and Technology and other Research and Development'],
    });
    expect(rejectionOf(nsfAwardsCsv, { ...rows[1]!, AwardNumber: '="  "' })).toBe('missing required field AwardNumber');
    expect(rejectionOf(nsfAwardsCsv, { ...rows[1]!, EndDate: '02/30/2026' })).toBe('EndDate: "02/30/2026" is an impossible date');
    expect(rejectionOf(nsfAwardsCsv, { ...rows[1]!, AwardedAmountToDate: '-$1,000.00' })).toBe('AwardedAmountToDate: negative amount -$1,000.00');
    expect(rejectionOf(nsfAwardsCsv, { ...rows[1]!, AwardedAmountToDate: '-1000' })).toBe('AwardedAmountToDate: negative amount -1000');
  });
});

describe('usaspending-contract-awards', () => {
  const award: SourceRecord = {
    award_id: 'CONT_AWD_W52P1J26C0001_9700_-NONE-_-NONE-',
    piid: 'W52P1J26C0001',
    referenced_idv_piid: '',
    award_type: 'DEFINITIVE CONTRACT',
    awardee_name_raw: 'EXAMPLE SYSTEMS LLC',
    awardee_name_clean: 'EXAMPLE SYSTEMS LLC',
    awarding_agency_raw: 'Department of Defense',
    awarding_agency_clean: 'DEPARTMENT OF DEFENSE',
    awarding_subagency_raw: 'Department of the Army',
    awarding_subagency_clean: 'DEPARTMENT OF THE ARMY',
    date_signed: '2026-01-15',
    total_obligated_amount: '1234567.89',
    potential_value: '2500000.0',
    pop_start_date: '2026-02-01',
    pop_current_end_date: '2027-01-31',
    pop_potential_end_date: '2030-01-31',
    naics: '541512',
    psc: 'DA01',
    extent_competed: 'FULL AND OPEN COMPETITION',
    type_of_contract_pricing: 'FIRM FIXED PRICE',
    type_of_set_aside: '8(A) SOLE SOURCE',
    type_of_set_aside_code: '8AN',
    number_of_offers_received: '1',
    place_of_performance_state: 'IL',
  };

  it('maps a contract award to an awarded contract', () => {
    const { mapped, record } = mapOne(usaspendingContractAwards, award);
    expect(record).toMatchObject({
      title: 'Definitive contract W52P1J26C0001 to EXAMPLE SYSTEMS LLC',
      amount_min: 1234567.89,
      amount_max: 1234567.89,
      deadline_date: null,
      archive_date: null,
      status: 'closed',
      opportunity_type: 'awarded',
      project_end_date: '2027-01-31',
      created_at: '2026-01-15T00:00:00Z',
      states: ['IL'],
      naics: '541512',
      categories: ['Information Technology'],
      set_aside_code: '8AN',
      primary_contact_email: null,
      document_url: null,
      source: 'usaspending',
      source_id: 'CONT_AWD_W52P1J26C0001_9700_-NONE-_-NONE-',
      listing_url: 'https://www.usaspending.gov/award/CONT_AWD_W52P1J26C0001_9700_-NONE-_-NONE-',
    });
    expect(record.description).toContain('awarded by Department of the Army (Department of Defense) to EXAMPLE SYSTEMS LLC on 2026-01-15.');
    expect(record.description).toContain('Obligated $1,234,567.89; potential value $2,500,000.');
    expect(funderNames(mapped)).toEqual(['Department of the Army', 'Department of Defense']);
    expect(rejectionOf(usaspendingContractAwards, { ...award, total_obligated_amount: '-10.5' })).toBe('total_obligated_amount: negative amount -10.5');
    expect(rejectionOf(usaspendingContractAwards, { ...award, award_id: '' })).toBe('missing required field award_id');
  });
});

describe('usaspending-assistance-awards', () => {
  const [grant, foreign] = fixtureJson('usaspending-spending-by-award.json').results as SourceRecord[];

  it('maps spending_by_award results to awarded grants', () => {
    const first = mapOne(usaspendingAssistanceAwards, grant!);
    expect(first.record).toMatchObject({
      title: 'AGING BRAIN RESILIENCE & SLEEP: A LONGITUDINAL STUDY',
      description: 'AGING BRAIN RESILIENCE & SLEEP: A LONGITUDINAL STUDY',
      amount_min: 612345.5,
      amount_max: 612345.5,
      created_at: '2022-09-15T00:00:00Z',
      project_end_date: null,
      states: ['MA'],
      categories: [],
      deadline_date: null,
      archive_date: null,
      status: 'closed',
      opportunity_type: 'awarded',
      source: 'usaspending',
      source_id: 'ASST_NON_R01AG099999_7529',
      listing_url: 'https://www.usaspending.gov/award/ASST_NON_R01AG099999_7529',
    });
    expect(funderNames(first.mapped)).toEqual(['Department of Health and Human Services']);
    const second = mapOne(usaspendingAssistanceAwards, foreign!);
    expect(second.record).toMatchObject({ states: [], geography: 'International', amount_max: 150000 });
    expect(funderNames(second.mapped)).toEqual(['Department of State']);
  });

  it('rejects negative amounts, entitlements and records without a description', () => {
    expect(rejectionOf(usaspendingAssistanceAwards, { ...grant!, 'Award Amount': -66 })).toBe('Award Amount: negative amount -66');
    expect(rejectionOf(usaspendingAssistanceAwards, { ...grant!, 'Award Type': 'INSURANCE (G)' })).toMatch(
      /^Award Type "INSURANCE \(G\)" is not a funded project/,
    );
    expect(rejectionOf(usaspendingAssistanceAwards, { ...grant!, Description: '' })).toBe('missing required field Description');
    expect(rejectionOf(usaspendingAssistanceAwards, { ...grant!, 'CFDA Number': '99.999' })).toBe('CFDA Number "99.999" names no known agency');
    // A loan has no Award Amount in spending_by_award: kept, with no amount.
    expect(mapOne(usaspendingAssistanceAwards, { ...grant!, 'Award Amount': null, 'Award Type': null }).record.amount_max).toBeNull();
  });

  it('names the agency of an Assistance Listing', () => {
    expect(agencyOfAssistanceListing('10.030')).toBe('Department of Agriculture');
    expect(agencyOfAssistanceListing('45.160')).toBe('National Endowment for the Humanities');
    expect(agencyOfAssistanceListing('45.301')).toBe('Institute of Museum and Library Services');
    expect(agencyOfAssistanceListing('90.404')).toBe('U.S. Election Assistance Commission');
    expect(agencyOfAssistanceListing('70.002')).toBe('United States International Development Finance Corporation');
    expect(agencyOfAssistanceListing('1O.030')).toBeNull();
  });
});

/** The format of a shared-data line: by provenance, confirmed by the format's own recogniser. */
function formatOfLine(line: SourceRecord): SourceFormat | undefined {
  return FORMATS.find(
    (format) => format.provenance.some((p) => p.repo === line._source_repo && p.path.test(String(line._source_path))) && format.matches(line),
  );
}

function readLines(name: string): SourceRecord[] {
  return readFileSync(new URL(name, SHARED), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as SourceRecord);
}

interface Outcome {
  line: SourceRecord;
  mapped?: MappedRecord;
  reason?: string;
}

function mapAll(name: string, today: string): Outcome[] {
  return readLines(name).map((line) => {
    const format = formatOfLine(line);
    if (!format) return { line, reason: 'no format' };
    try {
      const mapped = format.map(line, { today });
      stored(mapped);
      return { line, mapped };
    } catch (error) {
      if (error instanceof RecordRejected) return { line, reason: error.reason };
      throw error;
    }
  });
}

/** Counts by source and rejection reason (amounts and quoted values folded), printed for the docs. */
function summary(outcomes: Outcome[]): Record<string, Record<string, number>> {
  const counts: Record<string, Record<string, number>> = {};
  for (const { line, reason } of outcomes) {
    const source = `${String(line._source_repo)} ${String(line._source_path)
      .replace(/^[^/]+\/Awards-.*$/, '<Program>/Awards-*.csv')
      .replace(/awards\/[^/]+\.json$/, 'awards/<CFDA>.json')}`;
    const key = reason === undefined ? 'mapped' : `rejected: ${reason.replace(/"[^"]*"/g, '"…"').replace(/-?\$?[\d,.]+$/, '<n>')}`;
    const bySource = (counts[source] ??= {});
    bySource[key] = (bySource[key] ?? 0) + 1;
  }
  return counts;
}

const contractsPath = new URL('contracts.jsonl', SHARED);
const awardsPath = new URL('awards.jsonl', SHARED);
const programsPath = new URL('programs.jsonl', SHARED);
const DATA_TODAY = '2026-11-22';

function outcomeOf(outcomes: Outcome[], predicate: (line: SourceRecord) => boolean): Outcome {
  const found = outcomes.find((outcome) => predicate(outcome.line));
  if (!found) throw new Error('named record not found in the shared data');
  return found;
}
const recordOf = (outcome: Outcome) => stored(outcome.mapped!);

describe.skipIf(!existsSync(contractsPath))('all of ../shared/data/contracts.jsonl (skipped when ../shared/data is absent)', () => {
  const outcomes = existsSync(contractsPath) ? mapAll('contracts.jsonl', DATA_TODAY) : [];

  it('maps or rejects every line, rarely rejecting', () => {
    const counts = summary(outcomes);
    console.log('contracts.jsonl', JSON.stringify(counts, null, 2));
    expect(outcomes).toHaveLength(880);
    expect(outcomes.filter((o) => o.reason === 'no format')).toEqual([]);
    // One FBOpen notice has no title at all (w912qr-14-r-0038).
    expect(outcomes.filter((o) => o.reason !== undefined).map((o) => `${String(o.line._id)}: ${o.reason}`)).toEqual([
      'fbo.gov:PRESOL:w912qr-14-r-0038: missing required field title',
    ]);
  });

  it('spot-checks C1 notice f03a69ff98c04d77a27c0c1c6267bc8a against its line', () => {
    const outcome = outcomeOf(outcomes, (line) => line.noticeId === 'f03a69ff98c04d77a27c0c1c6267bc8a');
    expect(recordOf(outcome)).toMatchObject({
      title: 'TACLANE On-Site Training',
      source: 'sam.gov',
      source_id: 'f03a69ff98c04d77a27c0c1c6267bc8a',
      deadline_date: '2026-08-19',
      status: 'closed',
      opportunity_type: 'open',
      created_at: '2026-08-13T00:00:00Z',
      states: ['IL'],
      geography: 'Illinois',
      naics: '611420',
      categories: ['Training and Education'],
      set_aside_code: null,
      primary_contact_email: 'margret.west@us.af.mil',
      amount_min: null,
      amount_max: null,
      listing_url: 'https://sam.gov/workspace/contract/opp/f03a69ff98c04d77a27c0c1c6267bc8a/view',
      document_url: 'https://sam.gov/api/prod/opps/v3/opportunities/resources/files/99bd4f3813204ae48afc51fe24afff07/download',
    });
    expect(funderNames(outcome.mapped!)).toEqual(['DEPT OF THE AIR FORCE', 'DEPT OF DEFENSE']);
    // Open while the deadline was ahead.
    expect(mapOne(samOpportunitiesV2, outcome.line, '2026-08-15').record.status).toBe('open');
  });

  it('spot-checks C2 notice 676f389d5af74d138c1e3b9e49b9b6a2 against its line', () => {
    const outcome = outcomeOf(outcomes, (line) => line['Notice ID'] === '676f389d5af74d138c1e3b9e49b9b6a2');
    expect(recordOf(outcome)).toMatchObject({
      title: 'Critical Illness Immunological Reprogramming and Control Point Learning Engine (CIRCLE) Innovative Solutions Opening (ISO)',
      deadline_date: '2026-05-28',
      created_at: '2026-04-28T00:00:00Z',
      status: 'closed',
      naics: '541715',
      categories: ['Research and Development'],
      primary_contact_email: 'CIRCLE@ARPA-H.gov',
      states: [],
      document_url: 'https://sam.gov/api/prod/opps/v3/opportunities/resources/files/235fa9a800d748ffb69f4b11e8df9058/download',
    });
    expect(funderNames(outcome.mapped!)).toEqual(['NATIONAL INSTITUTES OF HEALTH', 'HEALTH AND HUMAN SERVICES, DEPARTMENT OF']);
  });

  it('spot-checks C3 notice 29d94ab494514c96bf2500d8e7e731ca against its line', () => {
    const outcome = outcomeOf(outcomes, (line) => line.notice_id === '29d94ab494514c96bf2500d8e7e731ca');
    expect(recordOf(outcome)).toMatchObject({
      title: 'RADIAC AND RADCON PROGRAM PROFESSIONAL SUPPORT SERVICES',
      deadline_date: '2026-07-15',
      status: 'closed',
      naics: '541330',
      categories: ['Professional Services'],
      set_aside_code: null,
      states: [],
      geography: 'National',
      listing_url: 'https://sam.gov/workspace/contract/opp/29d94ab494514c96bf2500d8e7e731ca/view',
    });
    expect(funderNames(outcome.mapped!)).toEqual(['DEPT OF THE NAVY', 'DEPT OF DEFENSE']);
  });

  it('spot-checks C4 notices in both FBOpen files against their lines', () => {
    const test = outcomeOf(outcomes, (line) => line._id === 'fbo.gov:PRESOL:w25g1v-14-r-0006');
    expect(recordOf(test)).toMatchObject({
      source: 'fbo.gov',
      source_id: 'PRESOL:w25g1v-14-r-0006',
      title: '70--Firestorm Digital Targeting Software',
      deadline_date: '2014-07-01',
      created_at: '2014-06-16T00:00:00Z',
      status: 'closed',
      states: ['PA'],
      naics: '541511',
      categories: ['Information Technology'],
      set_aside_code: null,
      primary_contact_email: 'matthew.a.chase.civ@mail.mil',
      listing_url: 'https://www.fbo.gov/notices/f858aa74e1a4f76a544d6c297dd68dd6',
    });
    expect(recordOf(test).description).toMatch(/^This is published as sole source announcement/);
    expect(funderNames(test.mapped!)).toEqual(['Department of the Army']);
    const nightly = outcomeOf(outcomes, (line) => line._id === 'FBO:PRESOL:spe4a514r0243');
    expect(recordOf(nightly)).toMatchObject({
      source_id: 'PRESOL:spe4a514r0243',
      title: '61A Link Assembly, Universal',
      deadline_date: '2013-12-12',
      created_at: '2013-11-13T00:00:00Z',
      naics: '336413',
      categories: ['Security and Defense'],
      primary_contact_email: 'cincella.mccoy@dla.mil',
      states: [],
      geography: 'National',
    });
  });
});

describe.skipIf(!existsSync(awardsPath))('all of ../shared/data/awards.jsonl (skipped when ../shared/data is absent)', () => {
  const outcomes = existsSync(awardsPath) ? mapAll('awards.jsonl', DATA_TODAY) : [];

  it('maps or rejects every line; rejections are A4 negative amounts and non-project award types', () => {
    const counts = summary(outcomes);
    console.log('awards.jsonl', JSON.stringify(counts, null, 2));
    expect(outcomes).toHaveLength(16266);
    expect(outcomes.filter((o) => o.reason === 'no format')).toEqual([]);
    const rejected = outcomes.filter((o) => o.reason !== undefined);
    expect(rejected.every((o) => o.line._source_repo === 'EOP-OMB/federal-program-inventory')).toBe(true);
    expect(rejected.every((o) => /negative amount|is not a funded project/.test(o.reason!))).toBe(true);
    expect(rejected.length).toBeLessThan(outcomes.length * 0.03);
  });

  it('spot-checks NSF award 2238423 (A1) and 2529847 (A2, Excel-quoted) against their lines', () => {
    const a1 = outcomeOf(outcomes, (line) => line.AwardNumber === '2238423');
    expect(recordOf(a1)).toMatchObject({
      source: 'nsf',
      source_id: '2238423',
      title: 'CAREER: Probability and Mathematical Statistical Mechanics',
      amount_min: 17764,
      amount_max: 17764,
      created_at: '2023-07-07T00:00:00Z',
      project_end_date: '2028-06-30',
      states: ['NY'],
      categories: ['Science and Technology and other Research and Development'],
      opportunity_type: 'awarded',
      status: 'closed',
      deadline_date: null,
      listing_url: 'https://www.nsf.gov/awardsearch/showAward?AWD_ID=2238423',
    });
    expect(recordOf(a1).description).toMatch(/^Probability theory is the mathematical study of random processes\./);
    const a2 = outcomeOf(outcomes, (line) => line.AwardNumber === '="2529847"');
    expect(recordOf(a2)).toMatchObject({
      source_id: '2529847',
      amount_max: 699994,
      states: ['GA'],
      project_end_date: '2030-12-31',
      created_at: '2025-08-07T00:00:00Z',
      categories: ['Science and Technology and other Research and Development', 'Education'],
    });
  });

  it('spot-checks USAspending contract award HC105023F0004 (A3) against its line', () => {
    const a3 = outcomeOf(outcomes, (line) => line.award_id === 'CONT_AWD_HC105023F0004_9700_HQ003423D0020_9700');
    expect(recordOf(a3)).toMatchObject({
      title: 'Delivery order HC105023F0004 to MICROSOFT CORPORATION',
      amount_min: 54977630.07,
      amount_max: 54977630.07,
      created_at: '2026-03-06T00:00:00Z',
      project_end_date: '2026-12-07',
      states: ['WA'],
      naics: '518210',
      categories: ['Information Technology'],
      set_aside_code: null,
      opportunity_type: 'awarded',
      status: 'closed',
      source: 'usaspending',
      source_id: 'CONT_AWD_HC105023F0004_9700_HQ003423D0020_9700',
    });
    expect(funderNames(a3.mapped!)).toEqual(['Defense Information Systems Agency', 'Department of Defense']);
  });

  it('spot-checks USAspending assistance award PR-2019-006 (A4) against its line', () => {
    const a4 = outcomeOf(outcomes, (line) => line['Award ID'] === 'PR-2019-006');
    expect(recordOf(a4)).toMatchObject({
      title: 'EMERGENCY RELIEF FUNDS SECTION 5324 FY 2018 HURRICANE MARIA AND IRMA-OPERATING ASSISTANCE',
      amount_min: 218031,
      amount_max: 218031,
      created_at: '2019-03-21T00:00:00Z',
      project_end_date: null,
      states: ['PR'],
      geography: 'Puerto Rico',
      source: 'usaspending',
      source_id: 'ASST_NON_PR-2019-006_6955',
      listing_url: 'https://www.usaspending.gov/award/ASST_NON_PR-2019-006_6955',
    });
    expect(funderNames(a4.mapped!)).toEqual(['Department of Transportation']);
  });
});

describe.skipIf(!existsSync(programsPath) || !existsSync(awardsPath))('assistance-listing agencies against ../shared/data (skipped when absent)', () => {
  it('agrees with the agency of every program in programs.jsonl', () => {
    const disagreements = readLines('programs.jsonl')
      .filter((program) => /^\d{2}\.\d{3}$/.test(String(program.cfda)))
      .filter((program) => agencyKeyOf(agencyOfAssistanceListing(String(program.cfda)) ?? '') !== agencyKeyOf(String(program.agency)))
      .map((program) => `${String(program.cfda)} ${String(program.agency)}`);
    expect(disagreements).toEqual([]);
  });

  it('knows the agency of every CFDA number in awards.jsonl', () => {
    const unknown = readLines('awards.jsonl')
      .map((line) => line['CFDA Number'])
      .filter((cfda): cfda is string => typeof cfda === 'string' && agencyOfAssistanceListing(cfda) === null);
    expect(unknown).toEqual([]);
  });
});
