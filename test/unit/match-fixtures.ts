import { parseMatchRequest } from '../../lambdas/core/matching/match-request';
import type { Grant } from '../../lambdas/core/records';

/** Fixtures shared by the matching unit tests (matching.test.ts, match-ranking.test.ts). */

export const TODAY = '2026-11-22';

export function grant(overrides: Partial<Grant> = {}): Grant {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    title: 'Rural Health Outreach Program',
    description: 'Supports telehealth networks and community health workers in rural counties.',
    amount_min: null,
    amount_max: 250_000,
    deadline_date: '2027-01-15',
    geography: 'National',
    funder_id: '00000000-0000-4000-8000-0000000000f1',
    funder_name: 'Health Resources and Services Administration',
    listing_url: 'https://www.grants.gov/search-results-detail/1',
    created_at: '2026-10-01T00:00:00.000Z',
    categories: ['Health'],
    opportunity_type: 'open',
    project_end_date: null,
    archive_date: null,
    states: [],
    source: 'test',
    source_id: 'T-1',
    status: 'posted',
    eligible_applicants: ['nonprofit'],
    requires_501c3: null,
    assistance_listings: [],
    agency_code: null,
    ...overrides,
  };
}

export const body = (value: unknown) => JSON.stringify(value);
export const request = (profile: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  parseMatchRequest(body({ profile: { mission: 'rural health clinics', ...profile }, ...extra }));
