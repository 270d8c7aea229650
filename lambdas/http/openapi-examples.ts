/**
 * Examples for the OpenAPI document: answers the local server gave for real Grants.gov and SAM.gov
 * records (descriptions shortened). A unit test validates each against the schema it illustrates.
 */

const NIH = { funder_id: '13c1d59c-bcf1-5b4d-8b58-b0656c61ba94', funder_name: 'National Institutes of Health' };

export const GRANT_EXAMPLE = {
  id: '06ac5267-9605-5c94-9f2b-d47a37b0b098',
  title: 'Innovations for Healthy Living - Improving Minority Health and Eliminating Health Disparities (R43/R44 - Clinical Trial Optional)',
  description:
    'This Notice of Funding Opportunity (NOFO) invites eligible United States small business concerns (SBCs) to submit Small Business Innovation Research (SBIR) grant applications that propose to develop a product, process or service for commercialization with the aim of improving health access for all...',
  amount_min: null,
  amount_max: null,
  deadline_date: '2026-12-09',
  archive_date: null,
  states: [],
  geography: 'National',
  listing_url: 'https://www.grants.gov/search-results-detail/352882',
  categories: ['Education', 'Food and Nutrition', 'Health'],
  opportunity_type: 'open',
  project_end_date: null,
  source: 'grants.gov',
  source_id: 'RFA-MD-24-006',
  assistance_listings: [],
  agency_code: 'HHS-NIH11',
  status: 'posted',
  eligible_applicants: ['for_profit'],
  requires_501c3: null,
  eligibility_evidence: [
    {
      field: 'eligible_applicants',
      effect: 'only',
      values: ['for_profit'],
      detail: 'small businesses',
      source: 'description',
      quote:
        'This Notice of Funding Opportunity (NOFO) invites eligible United States small business concerns (SBCs) to submit Small Business Innovation Research (SBIR) grant applications that propose to develop…',
    },
  ],
  created_at: '2024-03-08T00:00:00Z',
  ...NIH,
};

export const CONTRACT_EXAMPLE = {
  id: '21b21bf0-ec54-5309-9d1e-82006357093d',
  title: 'Modernization of Logistics and Finance Business Systems - Open and Continuous Call for Solutions (CFS)',
  description:
    'Industry: Computer Systems Design Services (NAICS 541512). Product or service: Information technology and telecommunications services (PSC DA10). Solicitation notice LOGFIN26 from DEPT OF DEFENSE, DEPT OF THE ARMY, W6QK ACC-RI. Place of performance: VA.',
  amount_min: null,
  amount_max: null,
  deadline_date: '2031-06-02',
  archive_date: '2031-06-17',
  status: 'open',
  states: ['VA'],
  geography: 'Virginia',
  listing_url: 'https://sam.gov/workspace/contract/opp/4c21fb33e5ad4c3aa309281d54aa929b/view',
  document_url: null,
  categories: ['Information Technology'],
  opportunity_type: 'open',
  project_end_date: null,
  naics: '541512',
  primary_contact_email: null,
  set_aside_code: null,
  solicitation_number: 'LOGFIN26',
  psc_code: 'DA10',
  naics_description: 'Computer Systems Design Services',
  psc_description: 'Information technology and telecommunications services',
  source: 'sam.gov',
  source_id: '4c21fb33e5ad4c3aa309281d54aa929b',
  created_at: '2026-06-03T00:00:00Z',
  funder_id: 'cee19b13-3563-513a-aa53-29d55c2c2e43',
  funder_name: 'Department of the Army',
};

export const FUNDER_EXAMPLE = {
  id: '9d838d6f-63a5-5c52-bfb9-fdd47dc382a2',
  name: 'Immediate Office of the Secretary of Agriculture',
  website: null,
  summary: 'IMMEDIATE OFFICE OF THE SECRETARY OF AGRICULTURE',
  source: 'sam.gov',
  source_id: '100151964',
  created_at: '2015-06-04T04:00:00Z',
};

export const RECORD_EXAMPLES = { grant: GRANT_EXAMPLE, contract: CONTRACT_EXAMPLE, funder: FUNDER_EXAMPLE } as const;

/** A first page and a count, per kind: what GET /<kind>s-api returns. */
export function listExamples(kind: keyof typeof RECORD_EXAMPLES, total: number) {
  const sort = kind === 'funder' ? { sort_by: 'name', order: 'asc' } : { sort_by: 'created_at', order: 'desc' };
  return {
    page: {
      summary: 'A page of results',
      value: {
        results: [RECORD_EXAMPLES[kind]],
        pagination: { total, total_relation: 'eq', limit: 1, offset: 0, returned: 1 },
        meta: { response_time_ms: 5.64, ...sort },
      },
    },
    count: {
      summary: 'count_only=true: the total alone',
      value: { pagination: { total, total_relation: 'eq' }, meta: { response_time_ms: 0.42, ...sort } },
    },
  };
}

export const SEMANTIC_SEARCH_EXAMPLE = {
  results: [
    {
      type: 'grant',
      ...GRANT_EXAMPLE,
      relevance: 0.7508,
    },
  ],
  count: 1,
  meta: { response_time_ms: 7.68, types: ['grant', 'contract'], limit: 1, min_relevance: 0.5 },
};

export const MATCH_EXAMPLE = {
  count: 1,
  matches: [
    {
      id: 'a717d9f4-8a0b-5463-bbd6-861cf2427374',
      title: 'Risk and Protective Factors of Family Health and Family Level Interventions (R01 Clinical Trial Optional)',
      funder: NIH.funder_name,
      funder_id: NIH.funder_id,
      match_score: 54,
      why_it_fits:
        'It shares your focus on family. It is open to nonprofits with no place restriction in its listing. Applications close on 2027-05-08 (in 163 days).',
      deadline: '2027-05-08',
      url: 'https://www.grants.gov/search-results-detail/357713',
      amount_min: null,
      amount_max: null,
      confidence: 'high',
      score_components: { topic: 56, eligibility: 90, award_size: 50, deadline: 100 },
    },
  ],
  meta: { response_time_ms: 89.87, limit: 1, profile: { applicant_type: 'nonprofit', location: { resolved_as: 'states', states: ['KS'] } }, candidates: 147 },
};

const REQUEST_ID = '1b0fd05b-66fa-4211-b57f-ae79544d85ef';

/** One error body per code, as the service sends it. */
export const ERROR_EXAMPLES = {
  INVALID_PARAMETER: {
    error: {
      code: 'INVALID_PARAMETER',
      message: 'Invalid parameter: limit',
      details: [{ field: 'limit', issue: 'must be an integer from 1 to 100' }],
      request_id: REQUEST_ID,
    },
  },
  UNAUTHORIZED: { error: { code: 'UNAUTHORIZED', message: 'Missing or invalid API key', request_id: REQUEST_ID } },
  FORBIDDEN: { error: { code: 'FORBIDDEN', message: 'The free tier has no API access; upgrade to basic or above', request_id: REQUEST_ID } },
  NO_API_ACCESS: { error: { code: 'NO_API_ACCESS', message: 'Grant matching needs the pro or developer tier (this key is basic)', request_id: REQUEST_ID } },
  NOT_FOUND: { error: { code: 'NOT_FOUND', message: 'No grant with id 06ac5267-9605-5c94-9f2b-d47a37b0b098', request_id: REQUEST_ID } },
  RATE_LIMITED: { error: { code: 'RATE_LIMITED', message: 'Daily quota of 1000 requests reached; it resets at 00:00 UTC', request_id: REQUEST_ID } },
  INTERNAL: { error: { code: 'INTERNAL', message: 'Internal error; it has been logged', request_id: REQUEST_ID } },
  SEARCH_UNAVAILABLE: {
    error: {
      code: 'SEARCH_UNAVAILABLE',
      message:
        'Semantic search is unavailable: the embedding model (bge-small-en-v1.5, 384 dimensions) did not answer. Keyword search (search_mode=keyword) still works.',
      request_id: REQUEST_ID,
    },
  },
} as const;
