import { describe, expect, it } from 'vitest';
import { US_STATE_CODES } from '../../lambdas/core/geo';
import { EDA_REGIONAL_OFFICES, EPA_REGIONS, REGIONAL_SERVICE_AREAS } from '../../lambdas/core/ingest/grants/regional-service-areas';
import { restrictionsInText } from '../../lambdas/core/ingest/grants/text-restrictions';

/*
 * Texts are real Grants.gov listings from ../shared/data/grants.jsonl (opportunity number in each
 * test name), cut to the sentences that matter; the synthetic ones say so.
 */
const listing = (fields: { title?: string; description?: string; eligibilityText?: string }) =>
  restrictionsInText({ title: fields.title ?? '', description: fields.description ?? '', eligibilityText: fields.eligibilityText ?? null });

describe('restrictionsInText: states', () => {
  it('reads "in the following States are eligible: …" (S14AS00004), New Mexico and West Virginia included', () => {
    const description =
      'Each project must clearly enhance the sustainability of the watershed organizations, and must contribute directly to the remediation of acid mine drainage. Private nonprofit institutions/organizations, public nonprofit institutions/organizations, established watershed organizations in the following States are eligible to participate: Alabama, Colorado, Kentucky, Maryland, New Mexico, Ohio, Pennsylvania, Tennessee, Virginia and West Virginia.';
    expect(listing({ title: 'OSM/VISTA AmeriCorps Program', description })).toEqual([
      {
        field: 'states',
        states: ['AL', 'CO', 'KY', 'MD', 'NM', 'OH', 'PA', 'TN', 'VA', 'WV'],
        source: 'description',
        quote:
          '…organizations in the following States are eligible to participate: Alabama, Colorado, Kentucky, Maryland, New Mexico, Ohio, Pennsylvania, Tennessee, Virginia and West Virginia.',
      },
    ]);
  });

  it('reads a state competition: "to operate a MEP Center in the States of …" (2026-NIST-MEP-01) and "in the state of Idaho" (DOD2026APEXACCELERATORIDAHO)', () => {
    expect(
      listing({
        title: 'MEP Center State Competition',
        description:
          'The NIST Hollings Manufacturing Extension Partnership (MEP) is seeking competitive applications from eligible applicants to enter into a cooperative agreement with NIST to operate a MEP Center in the States of Idaho, Illinois, Minnesota, New Jersey, New York, Washington, West Virginia, and Wisconsin.',
      }),
    ).toEqual([
      {
        field: 'states',
        states: ['ID', 'IL', 'MN', 'NJ', 'NY', 'WA', 'WV', 'WI'],
        source: 'description',
        quote:
          '…to enter into a cooperative agreement with NIST to operate a MEP Center in the States of Idaho, Illinois, Minnesota, New Jersey, New York, Washington, West Virginia, and Wisconsin.',
      },
    ]);
    const apex = listing({
      title: 'APEX Accelerator-Open Announcement for Idaho',
      description:
        'This funding opportunity is for eligible entities to operate an APEX Accelerator in the state of Idaho to serve as a resource for large and small businesses.',
    });
    expect(apex.map((r) => [r.field, r.field === 'states' && r.states])).toEqual([['states', ['ID']]]);
  });

  it('reads an "ONLY in …" title as both a state and an applicant limit (F15AS00048)', () => {
    const title = 'Region 2 - Sport Fish Restoration Grant Program (TO STATE FISH AND GAME AGENCIES ONLY in Arizona, New Mexico, Oklahoma, and Texas)';
    expect(listing({ title })).toEqual([
      { field: 'states', states: ['AZ', 'NM', 'OK', 'TX'], source: 'title', quote: title },
      { field: 'eligible_applicants', only: ['municipality'], detail: 'state governments', source: 'title', quote: title },
    ]);
  });

  it('reads "Open to Alaska Department of Fish and Game only" (F15AS00172)', () => {
    const title = 'Region 7 - State Wildlife Grant Program- Open to Alaska Department of Fish and Game only';
    expect(listing({ title })).toEqual([
      { field: 'states', states: ['AK'], source: 'title', quote: title },
      { field: 'eligible_applicants', only: ['municipality'], detail: 'state governments', source: 'title', quote: title },
    ]);
  });

  it('reads a regional body that runs the competition (26-DC-MG-SOI-TRX) and "only Great Lakes states … are eligible" (F25AS00216)', () => {
    expect(
      listing({
        description:
          'The Denali Commission is inviting statements of interest for rural Alaska transportation projects in need of local match or gap funding assistance. Many Alaskan communities lack the tax base or resources necessary to meet cost share requirements.',
      }),
    ).toEqual([
      {
        field: 'states',
        states: ['AK'],
        source: 'description',
        quote:
          'The Denali Commission is inviting statements of interest for rural Alaska transportation projects in need of local match or gap funding assistance.',
      },
    ]);
    expect(
      listing({
        description: 'All state grants will be awarded based on a competitive process for which only Great Lakes states or their designee are eligible.Fun',
      }),
    ).toEqual([
      {
        field: 'states',
        states: ['IL', 'IN', 'MI', 'MN', 'NY', 'OH', 'PA', 'WI'],
        source: 'description',
        quote: 'All state grants will be awarded based on a competitive process for which only Great Lakes states or their designee are eligible.',
      },
    ]);
  });

  it('reads "must: (1) Be located in … the EPA Region I States of …" (EPA-R1-HC-2008)', () => {
    const description =
      'Proposed projects must: (1) Be located in and/or directly benefit one or more of the four Target Investment Areas which include: Environmental Justice Areas of Potential Concern, Places with High Risks from Toxic Air Pollution, Sensitive Populations, and/or Urban Areas in one or more of the EPA Region I States of Connecticut, Maine, Massachusetts, New Hampshire, Rhode Island, and/or Vermont;';
    expect(listing({ description }).map((r) => r.field === 'states' && r.states)).toEqual([['CT', 'ME', 'MA', 'NH', 'RI', 'VT']]);
  });

  it('reads an EDA regional-office title (EDA-DEN-TA-DRO-2021-2006850, EDA-PHI-TA-PRO-2021-2006851), but not a city elsewhere', () => {
    const denver = 'Denver FY 2021 – FY 2023 EDA Planning and Local Technical Assistance';
    expect(listing({ title: denver })).toEqual([
      { field: 'states', states: ['CO', 'IA', 'KS', 'MO', 'MT', 'NE', 'ND', 'SD', 'UT', 'WY'], source: 'title', quote: denver },
    ]);
    const philadelphia = listing({ title: 'Philadelphia FY 2021 – FY 2023 EDA Planning and Local Technical Assistance' });
    expect(philadelphia[0]?.field === 'states' && philadelphia[0].states).toEqual([
      'CT',
      'DE',
      'ME',
      'MD',
      'MA',
      'NH',
      'NJ',
      'NY',
      'PA',
      'RI',
      'VT',
      'VA',
      'WV',
      'DC',
      'PR',
      'VI',
    ]);
    expect(listing({ title: 'Seattle Urban Forestry Partnership' })).toEqual([]);
    // Synthetic: the phrasing EDA uses inside a NOFO.
    const states = listing({ description: 'EDA is soliciting applications for projects in the states served by the Denver Regional Office.' });
    expect(states[0]?.field === 'states' && states[0].states).toEqual(['CO', 'IA', 'KS', 'MO', 'MT', 'NE', 'ND', 'SD', 'UT', 'WY']);
  });

  it('reads a program for ANCSA lands as Alaska (EPA-OLEM-R10-NC-24-01), though "Alaska Native" alone is no place', () => {
    const title = 'CONTAMINATED ALASKA NATIVE CLAIMS SETTLEMENT ACT LANDS ASSISTANCE PROGRAM';
    const description =
      'The Alaska Native Claims Settlement Act (ANCSA) of 1971 included the transfer of 44 million acres to Alaska Native regional and village corporations. These contaminants can pose health concerns to Alaska Native communities, impact subsistence resources, and impair economic activity.';
    expect(listing({ title, description })).toEqual([{ field: 'states', states: ['AK'], source: 'title', quote: title }]);
    expect(listing({ title: 'Community Development Block Grant Program for Indian Tribes and Alaska Native Villages' })).toEqual([]);
  });

  it('tells Washington, DC from Washington state and New Mexico from Mexico (synthetic)', () => {
    const states = (description: string) => listing({ description }).flatMap((r) => (r.field === 'states' ? r.states : []));
    expect(states('Applicants must be located in Washington, DC.')).toEqual(['DC']);
    expect(states('Applicants must be located in Washington, D.C. or Maryland.')).toEqual(['MD', 'DC']);
    expect(states('Applicants must be located in Washington State or Oregon.')).toEqual(['OR', 'WA']);
    expect(states('Applicants must be located in Mexico or Canada.')).toEqual([]);
    expect(states('This program is open only to entities in New Mexico.')).toEqual(['NM']);
    expect(states('Tribal colleges (Alaska only) and community colleges may partner on projects.')).toEqual([]);
    expect(listing({ title: 'Rural Energy Grants - Alaska only' }).map((r) => r.field === 'states' && r.states)).toEqual([['AK']]);
    expect(states('Applicants must be located in Hawaii or the U.S.-Affiliated Pacific Islands.')).toEqual(['HI', 'GU', 'AS', 'MP']);
  });

  it('does not read mentions, partners, sites or region numbers as limits', () => {
    const none = [
      // Synthetic topics and partners.
      { description: 'This project supports research on Alaska glaciers and sea ice.' },
      { description: 'Applicants are encouraged to work with partners in Texas and Ohio.' },
      { description: 'The program serves tribes in Alaska and the lower 48.' },
      { description: 'Processes are studied at regional, national and global scales.' },
      { description: 'Projects must be located on tribal lands or reservations.' },
      { description: 'Applicants from Alaska and Hawaii are encouraged to apply.' },
      // L14AS00125: where the work is, with no word that limits who applies.
      {
        description:
          'The objective for this agreement is to provide youth the opportunity to connect with the natural world through completion of natural resource projects on Federal lands within Oregon and Washington.',
      },
      // W9126G262SOI9201: a site in the title; the "ONLY" limits CESU membership, not a state.
      {
        title: 'Cultural Resources Technical Guidance Support for Joint Base San Antonio, Texas',
        description:
          'Project Title: Cultural Resources Technical Guidance Support for Joint Base San Antonio, TexasA cooperative agreement is being offered ONLY to members of the Cooperative Ecosystem Studies Units (CESU) Program Region(s) identified above.',
      },
      // P23AS00132: a list of CESU regions.
      {
        description:
          'The National Park Service (NPS) are seeking applications for Master Cooperative Agreements from CESU network participants in the following CESU network regions: North and West Alaska Californian Chesapeake Watershed Colorado Plateau Desert Southwest Great Basin Great Lakes Northern Forest Great Plains Great Rivers Gulf Coast Hawaii/Pacific Islands North Atlantic Coast',
      },
      // MSHA-2025-1: territories as an inclusion, not a limit.
      {
        description:
          'The Secretary of Labor, through MSHA, may award grants to state, tribal, and territorial governments (including the District of Columbia, the Commonwealth of Puerto Rico, the Virgin Islands, American Samoa, Guam, and the Commonwealth of the Northern Mariana Islands) to assist them in developing and enforcing state mining laws.',
      },
      // EPA-REG1-WPDG-25, F25AS00285: a bare region number names no states.
      {
        title: 'Region 1 Fiscal Year 2025 Wetland Program Development Grants',
        description: 'The goals of the EPA’s wetland program include increasing the quantity and quality of wetlands in the U.S.',
      },
      { title: 'F25AS00285 FY 2025 Cooperative Endangered Species Conservation Fund Traditional Conservation Grants Program Region 1' },
      // 25-DC-style mention of a commission that does not run the competition (synthetic).
      { description: 'Applicants may partner with the Appalachian Regional Commission.' },
    ];
    for (const fields of none) expect(listing(fields), JSON.stringify(fields).slice(0, 80)).toEqual([]);
  });

  it('honours negation, exceptions and preferences (synthetic)', () => {
    for (const description of [
      'Eligible applicants include, but are not limited to, organizations in Texas.',
      'Eligibility is not limited to organizations in Texas.',
      'Applicants need not be located in Texas.',
      'Applicants must be located in a state other than Alaska.',
      'Eligible applicants must be located in the United States, and projects located in Alaska will receive priority.',
      'Applicants must describe partnerships with organizations located in Alaska.',
      'Applicants must be located in the United States and may serve communities anywhere, including Alaska.',
    ]) {
      expect(listing({ description }), description).toEqual([]);
    }
  });
});

describe('restrictionsInText: applicant types', () => {
  it('reads "open only to colleges and universities" (N00178-25-0002) and "available exclusively to federally recognized tribes" (BIA-IHSP-2026-003)', () => {
    expect(listing({ description: 'This BAA is open only to colleges and universities. NSWCDD is soliciting research of interest.' })).toEqual([
      { field: 'eligible_applicants', only: ['academic'], detail: null, source: 'description', quote: 'This BAA is open only to colleges and universities.' },
    ]);
    expect(listing({ description: 'Indian Highway Safety Grants are reimbursable and available exclusively to federally recognized tribes.' })).toEqual([
      {
        field: 'eligible_applicants',
        only: ['tribal'],
        detail: 'federally recognized tribes',
        source: 'description',
        quote: 'Indian Highway Safety Grants are reimbursable and available exclusively to federally recognized tribes.',
      },
    ]);
  });

  it('names state governments when only states may apply (DHS-USCG-STATE-2026, F15AS00040)', () => {
    expect(
      listing({
        description:
          'Only the designated state authority or agency may apply for funding. Applications from organizations that are not approved will be rejected.',
      }),
    ).toEqual([
      {
        field: 'eligible_applicants',
        only: ['municipality'],
        detail: 'state governments',
        source: 'description',
        quote: 'Only the designated state authority or agency may apply for funding.',
      },
    ]);
    const title = 'R6 Firearm and Bow Hunter Safety and Education Program TO STATE F&G AGENCIES ONLY';
    expect(listing({ title })).toEqual([{ field: 'eligible_applicants', only: ['municipality'], detail: 'state governments', source: 'title', quote: title }]);
  });

  it('reads every group of a list, and no narrower group when the list mixes them (DE-FOA-0000013, OJJDP-2008-1900, ELECTRONIC-201412)', () => {
    const types = (eligibilityText: string) => listing({ eligibilityText }).map((r) => r.field === 'eligible_applicants' && [r.only, r.detail]);
    expect(
      types(
        'In accordance with Section 541 of EISA, only the following entities may apply for financial assistance under the EECBG Program: States, U.S. Territories, Indian tribes, and units of local governments (cities and counties and their equivalents).',
      ),
    ).toEqual([[['municipality', 'tribal'], null]]);
    expect(
      types(
        'Applicants are limited to states, state courts, local courts, units of local government, and Indian tribal governments, acting directly or through agreement with other public or private entities.',
      ),
    ).toEqual([[['municipality', 'tribal'], null]]);
    expect(
      types(
        'Eligibility Information - These Electronic Records grants are awarded only to the state archives in each state, or to another state agency or nonprofit organization responsible for or acting on behalf of the state archives.',
      ),
    ).toEqual([[['municipality', 'nonprofit'], null]]);
    // Synthetic: the brief's phrasings.
    expect(types('Eligibility is limited to public and private institutions of higher education.')).toEqual([[['academic'], null]]);
    expect(types('Eligibility is limited to States.')).toEqual([[['municipality'], 'state governments']]);
    expect(types('State governments only.')).toEqual([[['municipality'], 'state governments']]);
    expect(types('Small businesses only.')).toEqual([[['for_profit'], 'small businesses']]);
    expect(types('Only federally recognized tribes are eligible to apply.')).toEqual([[['tribal'], 'federally recognized tribes']]);
  });

  it('reads NSF organization limits whose bullets span sentences (13-606, 14-506)', () => {
    const eligibilityText =
      '*Organization Limit: Proposals may only be submitted by the following: - Universities and colleges: Universities and two- and four-year colleges (including community colleges) accredited in, and having a campus located in the U.S. Non-profit, non-academic organizations: Independent museums,observatories, research laboratories, professional societies and similar organizations located in the U.S. that are directly associated with educational or research activities. *PI Limit: Principal investigators must, at the time of proposal submission: Be a U.S. citizen, national,or permanent resident.';
    expect(listing({ eligibilityText })).toEqual([
      {
        field: 'eligible_applicants',
        only: ['academic', 'nonprofit'],
        detail: null,
        source: 'eligibility_text',
        quote:
          '*Organization Limit: Proposals may only be submitted by the following: - Universities and colleges: Universities and two- and four-year colleges (including community colleges) accredited in, and…',
      },
    ]);
    const academic = listing({
      eligibilityText:
        '*Organization Limit: Proposals may only be submitted by the following: -Universities and Colleges - Universities and two- and four-year colleges (including community colleges) accredited in, and having a campus located in, the US acting on behalf of their faculty members. Such organizations also are referred to as academic institutions. - Proposing organizations are restricted to research and teaching institutions that offer degrees in astronomy, engineering, physical sciences, geosciences, computer sciences, mathematics or related sciences.',
    });
    expect(academic.map((r) => r.field === 'eligible_applicants' && r.only)).toEqual([['academic']]);
  });

  it('reads SBIR/STTR invitations to small business concerns (RFA-MD-24-006, PA-13-388)', () => {
    expect(
      listing({
        title: 'Innovations for Healthy Living - Improving Minority Health and Eliminating Health Disparities (R43/R44 - Clinical Trial Optional)',
        description:
          'This Notice of Funding Opportunity (NOFO) invites eligible United States small business concerns (SBCs) to submit Small Business Innovation Research (SBIR) grant applications that propose to develop a product.',
      }),
    ).toEqual([
      {
        field: 'eligible_applicants',
        only: ['for_profit'],
        detail: 'small businesses',
        source: 'description',
        quote:
          'This Notice of Funding Opportunity (NOFO) invites eligible United States small business concerns (SBCs) to submit Small Business Innovation Research (SBIR) grant applications that propose to develop…',
      },
    ]);
    const sttr = listing({
      title: 'Development of Opioid and Adjuvant Fixed Combination Dosage Forms for the Treatment of Chronic Pain with Reduced Addiction Potential (R41/R42)',
      description:
        'The purpose of this announcement is to fund meritorious applications from small business organizations that aim to develop of opioid and adjuvant drug combinations.',
    });
    expect(sttr.map((r) => r.field === 'eligible_applicants' && r.only)).toEqual([['for_profit']]);
    // PD-23-5342: a pointer to the SBIR program from a listing that is not one.
    expect(
      listing({
        description:
          "Small businesses seeking early stage R&D funding for product development are encouraged to contact the NSF SBIR/STTR program in the America's Seed Fund.",
      }),
    ).toEqual([]);
  });

  it('reads exclusions of bare types only (HHS-2014-ACF-OCS-ET-0829, SCAKAB-14-CA-004-SCA-05142014, USDA-RMA-RME-2008-03)', () => {
    expect(
      listing({
        eligibilityText:
          'Applications from individuals, foreign entities, and sole proprietorship for-profit organizations are not eligible and will be disqualified from competitive review and from funding under this announcement.',
      }),
    ).toEqual([
      {
        field: 'excluded_applicants',
        excluded: ['individual'],
        source: 'eligibility_text',
        quote:
          'Applications from individuals, foreign entities, and sole proprietorship for-profit organizations are not eligible and will be disqualified from competitive review and from funding under this…',
      },
    ]);
    expect(listing({ eligibilityText: 'For-profit entities are not eligible for this opportunity.' })).toEqual([
      {
        field: 'excluded_applicants',
        excluded: ['for_profit'],
        source: 'eligibility_text',
        quote: 'For-profit entities are not eligible for this opportunity.',
      },
    ]);
    expect(listing({ eligibilityText: 'Individuals are not eligible applicants.' }).map((r) => r.field === 'excluded_applicants' && r.excluded)).toEqual([
      ['individual'],
    ]);
    // Synthetic: no type, or only part of one.
    expect(listing({ eligibilityText: 'Foreign entities are not eligible.' })).toEqual([]);
    expect(listing({ eligibilityText: 'Private universities are not eligible.' })).toEqual([]);
    expect(listing({ eligibilityText: 'For-profit organizations are not eligible to apply as lead applicants but may be subrecipients.' })).toEqual([]);
  });

  it('ignores NIH "Other Eligible Applicants" boilerplate, examples, tracks and parts of the listing', () => {
    const none = [
      // PAR-13-257
      {
        eligibilityText:
          'Other Eligible Applicants include the following: Alaska Native and Native Hawaiian Serving Institutions; Asian American Native American Pacific Islander Serving Institutions (AANAPISISs); Eligible Agencies of the Federal Government; Faith-based or Community-based Organizations; Hispanic-serving Institutions; Indian/Native American Tribal Governments (Other than Federally Recognized); Regional Organizations; U.S. Territory or Possession; Non-domestic (non-U.S.) Entities (Foreign Institutions) are not eligible to apply. Non-domestic (non-U.S.) components of U.S. Organizations are not eligible to apply.',
      },
      // ED-GRANTS-041014-004
      {
        eligibilityText:
          'Eligible applicants include, but are not limited to, nonprofit and for-profit organizations and public and private agencies and institutions, such as colleges and universities.',
      },
      // 14-532: PECASE is one award inside the CAREER listing.
      { description: 'Individuals cannot apply for PECASE. These awards are initiated by the participating federal agencies.' },
      // 21-595: "they" is one track of the program.
      {
        description:
          'Preparing for TCUP Implementation (Pre-TI) provides support for activities that prepare an institution for Implementation-level projects.Consequently, they are available only to TCUP-eligible institutions of higher education that have never received TCUP support.',
      },
      // OJJDP-2014-3929: each category has its own limit.
      {
        eligibilityText:
          'This initiative includes two categories, and the eligibility differs for each component: ? Category 1: Local School Justice Collaboration Program. Applicants are limited to local juvenile and family courts (including rural and tribal juvenile and family courts). ? Category 2: School Justice Collaboration Program National Training and Technical Assistance. Applicants are limited to nonprofit and for-profit organizations (including tribal nonprofit and for-profit organizations) and institutions of higher education (including tribal institutions of higher education).',
      },
      // HRSA-14-131: "public or private nonprofit agencies" may include governments; unreadable, so nothing.
      {
        eligibilityText:
          'As cited in 42 CFR Part 51a.3(b), only public or nonprofit institutions of higher learning and public or private nonprofit agencies engaged in research or in programs relating to maternal and child health and/or services for children with special health care needs are eligible.',
      },
      // NOAA-NWS-NWSPO-2025-30488: a named body, not a type.
      {
        description:
          'Per terms of authorizing legislation, these grants have been made available only to agencies and organizations that have membership on the NTHMP Coordinating Committee as defined in the NTHMP Rules of Procedure.',
      },
      // Synthetic: negation and subrecipients.
      { eligibilityText: 'Eligibility is not limited to institutions of higher education.' },
      { eligibilityText: 'Subawards may be made only to nonprofit organizations.' },
    ];
    for (const fields of none) expect(listing(fields), JSON.stringify(fields).slice(0, 80)).toEqual([]);
  });
});

describe('restrictionsInText: behaviour', () => {
  it('drops limits of one field that cannot all hold, and keeps quotes verbatim and short', () => {
    // Synthetic: two tracks read as two limits share no state.
    expect(listing({ description: 'Track A is open only to entities in Ohio; Track B is open only to entities in Texas.' })).toEqual([]);
    const description = `${'Background sentence about the program. '.repeat(40)}Eligible applicants are nonprofit organizations located in the State of Texas, ${'with a long explanation of the program goals and partners '.repeat(6)}.`;
    const [found] = listing({ description });
    expect(found?.field === 'states' && found.states).toEqual(['TX']);
    expect(found!.quote.length).toBeLessThanOrEqual(202);
    for (const piece of found!.quote.split('…').filter(Boolean)) expect(description).toContain(piece.trim());
  });

  it('is deterministic and fast on long adversarial text', () => {
    const texts = [
      `${'only in Alaska and '.repeat(1000)}x`,
      `Applicants are limited to ${'word '.repeat(4000)}`,
      `${' '.repeat(20_000)}only`,
      `${'Eligible applicants are limited to nonprofit and for-profit organizations located in the State of Texas, only '.repeat(180)}`,
    ];
    for (const text of texts) {
      const started = performance.now();
      const first = listing({ title: text.slice(0, 300), description: text.slice(0, 20_000), eligibilityText: text.slice(0, 20_000) });
      expect(performance.now() - started).toBeLessThan(1000);
      expect(listing({ title: text.slice(0, 300), description: text.slice(0, 20_000), eligibilityText: text.slice(0, 20_000) })).toEqual(first);
    }
  });
});

describe('regional service areas', () => {
  it('lists valid, distinct state codes, and EDA offices and EPA regions cover every state once', () => {
    const lists = [...REGIONAL_SERVICE_AREAS.map((area) => area.states), ...Object.values(EDA_REGIONAL_OFFICES), ...Object.values(EPA_REGIONS)];
    for (const states of lists) {
      expect(states.every((code) => (US_STATE_CODES as readonly string[]).includes(code))).toBe(true);
      expect(new Set(states).size).toBe(states.length);
    }
    for (const table of [EDA_REGIONAL_OFFICES, EPA_REGIONS]) expect(Object.values(table).flat().sort()).toEqual([...US_STATE_CODES].sort());
  });
});
