import type { StateCode } from '../../geo';
import type { AssistanceListing } from '../../records';
import type { GrantDraft, MappedRecord } from '../mapped-record';

/** One funded assistance award, its fields already read from whichever feed it came in. */
export interface AssistanceAward {
  source: string;
  sourceId: string;
  title: string;
  description: string;
  amount: number | null;
  startedAt: string | null;
  endDate: string | null;
  place: { states: StateCode[]; geography: string };
  categories: string[];
  listingUrl: string | null;
  funderNames: string[];
  /** The Assistance Listing the award was made under, when the feed says. */
  assistanceListings: AssistanceListing[];
}

/**
 * The grant record of an award: an awarded project (research mode), not an opportunity anyone can
 * apply to, so it has no deadline and no eligibility, and its stored status is closed. The awarded
 * amount is both the smallest and the largest award, and `states` is where the work is done.
 */
export function grantOfAward(award: AssistanceAward): MappedRecord {
  const record: GrantDraft = {
    title: award.title,
    description: award.description,
    amount_min: award.amount,
    amount_max: award.amount,
    deadline_date: null,
    archive_date: null,
    status: 'closed',
    ...award.place,
    listing_url: award.listingUrl,
    created_at: award.startedAt,
    categories: award.categories,
    opportunity_type: 'awarded',
    project_end_date: award.endDate,
    eligible_applicants: [],
    requires_501c3: null,
    source: award.source,
    source_id: award.sourceId,
    assistance_listings: award.assistanceListings,
    // Award feeds name agencies, not Grants.gov agency codes.
    agency_code: null,
  };
  return { kind: 'grant', record, funder: { names: award.funderNames } };
}
