import * as z from 'zod/mini';
import { US_STATE_CODES } from './geo';

/**
 * The public record shapes (interface section 2) plus the documented extra fields later issues
 * build on. One source of truth: validation of stored/ingested records and the OpenAPI document.
 */

export const RESOURCE_KINDS = ['grant', 'contract', 'funder'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

export const APPLICANT_TYPES = ['nonprofit', 'for_profit', 'municipality', 'tribal', 'individual', 'academic'] as const;
export type ApplicantType = (typeof APPLICANT_TYPES)[number];

/** Stored statuses. `open`/`upcoming` in the grants filter are derived from these (see query semantics). */
export const GRANT_STORED_STATUSES = ['posted', 'forecasted', 'closed'] as const;
export const CONTRACT_STORED_STATUSES = ['open', 'closed'] as const;
/** `open` is an applyable opportunity; `awarded` a previously funded project (interface: awarded_project). */
export const OPPORTUNITY_KINDS = ['open', 'awarded'] as const;

const isoDate = () => z.iso.date();
const isoDateTime = () => z.iso.datetime({ offset: false });
const nullable = <T extends z.core.SomeType>(schema: T) => z.nullable(schema);
/** A schema with a description, for the OpenAPI document. */
export const described = <T extends z.ZodMiniType>(schema: T, description: string): T => schema.check(z.describe(description)) as T;

const uuid = () => described(z.uuid(), 'UUID');
const money = () => nullable(z.number().check(z.nonnegative()));

const opportunityFields = {
  id: uuid(),
  title: z.string().check(z.minLength(1)),
  description: z.string(),
  amount_min: described(money(), 'Smallest award in USD, or null when not published'),
  amount_max: described(money(), 'Largest award (award ceiling) in USD, or null when not published'),
  deadline_date: described(nullable(isoDate()), 'Application deadline (YYYY-MM-DD); null for awarded records and open-ended opportunities'),
  archive_date: described(
    nullable(isoDate()),
    'The day the source stops listing the opportunity (YYYY-MM-DD; Grants.gov and SAM.gov archive date); null when the source gives none or for awarded records',
  ),
  geography: described(nullable(z.string()), 'Legacy free-text location, e.g. "National" or "Texas"; prefer states'),
  funder_id: uuid(),
  funder_name: z.string(),
  listing_url: nullable(z.url()),
  created_at: described(isoDateTime(), 'When the record was first published (ISO 8601, UTC)'),
  categories: z.array(z.string()),
  // Extra fields, documented in docs/data-model.md.
  opportunity_type: described(z.enum(OPPORTUNITY_KINDS), 'open: applyable; awarded: a previously funded project (research mode)'),
  project_end_date: described(nullable(isoDate()), 'End of the funded project (YYYY-MM-DD); set on awarded records only'),
  states: described(z.array(z.enum(US_STATE_CODES)), 'Postal codes where the opportunity applies; empty means national / all states'),
  source: described(z.string(), 'Origin system, e.g. grants.gov, sam.gov, nsf, usaspending, synthetic'),
  source_id: described(nullable(z.string()), 'Identifier in the origin system (opportunity number, notice id, award id)'),
};

/** The part of a listing's text a restriction was read from (its eligibility codes need no evidence: they are the listing's own fields). */
export const EVIDENCE_SOURCES = ['title', 'description', 'eligibility_text'] as const;
export type EvidenceSource = (typeof EVIDENCE_SOURCES)[number];

export const EligibilityEvidenceSchema = z.object({
  field: described(z.enum(['states', 'eligible_applicants']), 'The field this restriction set'),
  effect: described(z.enum(['only', 'excludes']), 'only: no one else may apply; excludes: these may not apply'),
  values: described(z.array(z.string()), 'State postal codes or applicant types'),
  detail: described(nullable(z.string()), 'A narrower group than the applicant type, when the text names one, e.g. "state governments"'),
  source: described(
    z.enum(EVIDENCE_SOURCES),
    'The part of the listing that says so: title, description or eligibility_text (its additional information on eligibility)',
  ),
  quote: described(z.string(), 'The listing\'s own words, whitespace collapsed, "…" where cut'),
});
export type EligibilityEvidence = z.infer<typeof EligibilityEvidenceSchema>;

/** An Assistance Listing (formerly CFDA) a grant is funded under: its number and, when the source names it, its program title. */
export const AssistanceListingSchema = z.object({
  number: described(z.string().check(z.regex(/^\d{2}\.[0-9A-Z]{3}$/)), 'Assistance Listing number, e.g. "93.242"'),
  program_title: described(nullable(z.string()), "The program's title, when the source gives it"),
});
export type AssistanceListing = z.infer<typeof AssistanceListingSchema>;

export const GrantSchema = z.object({
  ...opportunityFields,
  assistance_listings: described(
    z.array(AssistanceListingSchema),
    'The Assistance Listings (CFDA programs) the grant is funded under; empty when the source does not say. Searchable by number',
  ),
  agency_code: described(nullable(z.string()), 'The Grants.gov agency code, e.g. "HHS-NIH11"; null when the source gives only names. Searchable'),
  status: described(z.enum(GRANT_STORED_STATUSES), 'posted, forecasted or closed; a posted grant past its deadline counts as closed in filters'),
  eligible_applicants: described(z.array(z.enum(APPLICANT_TYPES)), 'Applicant types that may apply; empty when the source does not say'),
  requires_501c3: described(nullable(z.boolean()), 'Whether nonprofit applicants need 501(c)(3) status; null when unknown'),
  eligibility_evidence: z.optional(
    described(
      z.array(EligibilityEvidenceSchema),
      "Restrictions read from the listing's own text, each with the part it came from and its words: they set states, narrow eligible_applicants or exclude types. Absent when the text states none; then states (empty: no place restriction stated) and eligible_applicants (empty: unknown) are the listing's own fields",
    ),
  ),
});

export const ContractSchema = z.object({
  ...opportunityFields,
  status: described(z.enum(CONTRACT_STORED_STATUSES), 'open (active solicitation) or closed'),
  document_url: nullable(z.url()),
  naics: described(nullable(z.string().check(z.regex(/^\d{6}$/))), '6-digit NAICS industry code'),
  primary_contact_email: nullable(z.email()),
  set_aside_code: described(nullable(z.string()), 'SAM.gov set-aside code, e.g. SBA, 8A, WOSB, SDVOSBC'),
  solicitation_number: described(nullable(z.string()), 'The solicitation number the notice gives, e.g. "W912DY-26-R-0012". Searchable in any case or spacing'),
  psc_code: described(nullable(z.string()), 'Product and Service Code (the notice\'s classification code), e.g. "R425" or "59". Searchable'),
  naics_description: described(
    nullable(z.string()),
    'The NAICS industry\'s title, e.g. "Janitorial Services"; null without a code. Searched by keyword search',
  ),
  psc_description: described(
    nullable(z.string()),
    'The name of the product and service group the PSC code belongs to, e.g. "Professional, administrative and management support services"; null without a known code. Shown, not searched: a group name is too broad to match on',
  ),
});

export const FunderSchema = z.object({
  id: uuid(),
  name: z.string().check(z.minLength(1)),
  website: nullable(z.url()),
  summary: nullable(z.string()),
  created_at: isoDateTime(),
  source: z.string(),
  source_id: nullable(z.string()),
});

export type Grant = z.infer<typeof GrantSchema>;
export type Contract = z.infer<typeof ContractSchema>;
export type Funder = z.infer<typeof FunderSchema>;

export interface RecordByKind {
  grant: Grant;
  contract: Contract;
  funder: Funder;
}
export type AnyRecord = RecordByKind[ResourceKind];

export const RECORD_SCHEMAS = { grant: GrantSchema, contract: ContractSchema, funder: FunderSchema } as const;

/**
 * Fields added after records were first stored, with the value a record stored before them has:
 * the stores fill them in on read, so every record has every field whatever its age (a re-import
 * replaces the defaults with what the source says).
 */
const LATER_FIELDS: Readonly<Record<ResourceKind, Readonly<Record<string, unknown>>>> = {
  grant: { assistance_listings: [], agency_code: null },
  contract: { solicitation_number: null, psc_code: null, naics_description: null, psc_description: null },
  funder: {},
};

export function withLaterFields<K extends ResourceKind>(kind: K, record: RecordByKind[K]): RecordByKind[K] {
  const missing = Object.entries(LATER_FIELDS[kind]).filter(([field]) => !(field in record));
  if (missing.length === 0) return record;
  return { ...record, ...Object.fromEntries(missing.map(([field, value]) => [field, Array.isArray(value) ? [] : value])) };
}
