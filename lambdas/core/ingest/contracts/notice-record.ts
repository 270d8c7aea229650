import type { StateCode } from '../../geo';
import type { ContractDraft, MappedRecord, MappingContext } from '../mapped-record';
import { contractCategoriesOfNaics } from './naics-categories';
import { classificationOf, composedNoticeDescription, isAwardNotice, type NoticeFacts, noticeStatus } from './notice-fields';

/** One contract notice, its fields already read from whichever feed it came in. */
export interface ContractNotice {
  source: string;
  sourceId: string;
  title: string;
  /** The notice text when the feed has it; null means compose one from the facts. */
  text: string | null;
  facts: NoticeFacts;
  postedAt: string | null;
  deadline: string | null;
  archiveDate: string | null;
  active: boolean | null;
  place: { states: StateCode[]; geography: string };
  setAsideCode: string | null;
  contactEmail: string | null;
  listingUrl: string | null;
  documentUrl: string | null;
  awardAmount: number | null;
  funderNames: string[];
}

/** A notice's code as given, without spaces; null when it has none. */
function identifierText(value: string | null): string | null {
  const text = value?.replace(/\s+/g, '') ?? '';
  return text === '' ? null : text;
}

/**
 * The contract record of a notice. An award notice announces a contract already made, so it is an
 * awarded record (closed, no deadline) like the USAspending awards; every other notice type is an
 * open opportunity whose status follows the active flag, deadline and archive date.
 */
export function contractOfNotice(notice: ContractNotice, context: MappingContext): MappedRecord {
  const awarded = isAwardNotice(notice.facts.noticeType);
  const pscCode = identifierText(notice.facts.classificationCode)?.toUpperCase() ?? null;
  const record: ContractDraft = {
    title: notice.title,
    description: notice.text ?? composedNoticeDescription(notice.facts),
    amount_min: notice.awardAmount,
    amount_max: notice.awardAmount,
    deadline_date: awarded ? null : notice.deadline,
    archive_date: awarded ? null : notice.archiveDate,
    status: awarded ? 'closed' : noticeStatus({ active: notice.active, deadline: notice.deadline, archiveDate: notice.archiveDate, today: context.today }),
    ...notice.place,
    listing_url: notice.listingUrl,
    document_url: notice.documentUrl,
    created_at: notice.postedAt,
    categories: contractCategoriesOfNaics(notice.facts.naics),
    opportunity_type: awarded ? 'awarded' : 'open',
    // Notices do not say when the contract's performance ends.
    project_end_date: null,
    naics: notice.facts.naics,
    primary_contact_email: notice.contactEmail,
    set_aside_code: notice.setAsideCode,
    solicitation_number: identifierText(notice.facts.solicitationNumber),
    psc_code: pscCode,
    ...classificationOf(notice.facts.naics, pscCode),
    source: notice.source,
    source_id: notice.sourceId,
  };
  return { kind: 'contract', record, funder: { names: notice.funderNames } };
}
