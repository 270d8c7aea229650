import type { Contract, Grant } from '../../lambdas/core/records';

/** A record id of the tests' own: `<prefix>-…-<n>`, lower-case like the service's ids. */
export const fixtureId = (block: string, n: number) => `00000000-0000-4000-${block}-${String(n).padStart(12, '0')}`;

/** A grant with every optional field empty, for tests to fill in what they compare. */
export function fixtureGrant(n: number, fields: Partial<Grant> = {}): Grant {
  return {
    id: fixtureId('8000', n),
    title: `Grant ${n}`,
    description: 'A test listing.',
    amount_min: null,
    amount_max: null,
    deadline_date: null,
    status: 'posted',
    geography: null,
    funder_id: fixtureId('b000', 1),
    funder_name: 'Department of Health',
    listing_url: null,
    created_at: '2026-06-01T00:00:00.000Z',
    categories: [],
    opportunity_type: 'open',
    project_end_date: null,
    archive_date: null,
    states: [],
    source: 'test',
    source_id: String(n),
    eligible_applicants: [],
    requires_501c3: null,
    assistance_listings: [],
    agency_code: null,
    ...fields,
  };
}

/** A contract notice with every optional field empty. */
export function fixtureContract(n: number, fields: Partial<Contract> = {}): Contract {
  return {
    id: fixtureId('9000', n),
    title: `Contract ${n}`,
    description: 'A test notice.',
    amount_min: null,
    amount_max: null,
    deadline_date: null,
    status: 'open',
    geography: null,
    funder_id: fixtureId('b000', 3),
    funder_name: 'Department of Defense',
    listing_url: null,
    created_at: '2026-06-01T00:00:00.000Z',
    categories: [],
    opportunity_type: 'open',
    project_end_date: null,
    archive_date: null,
    states: [],
    source: 'test',
    source_id: `c${n}`,
    document_url: null,
    naics: null,
    primary_contact_email: null,
    set_aside_code: null,
    solicitation_number: null,
    psc_code: null,
    naics_description: null,
    psc_description: null,
    ...fields,
  };
}
