import type { Contract, Funder, Grant, RecordByKind, ResourceKind } from '../records';
import { KEYWORD_FIELD_WEIGHTS } from './keyword-query';

/**
 * The text of a record that keyword search reads, field by field (weighted by
 * KEYWORD_FIELD_WEIGHTS): both indices index exactly these strings, so their fields cannot drift.
 * `programs` holds what a record's codes are called: a grant's Assistance Listing program titles,
 * a contract's NAICS industry (Simpler.Grants.gov searches program titles; a SAM.gov notice often
 * says little more than its codes). A contract's PSC group name is not searched: it names a whole
 * group ("Medical, dental and veterinary equipment and supplies"), and `dental` then matched every
 * medical-equipment notice (docs/benchmarks.md, "Search quality").
 */
export type KeywordField = keyof typeof KEYWORD_FIELD_WEIGHTS;
export const KEYWORD_FIELDS = Object.keys(KEYWORD_FIELD_WEIGHTS) as KeywordField[];

export function keywordFieldsOf<K extends ResourceKind>(kind: K, record: RecordByKind[K]): Record<KeywordField, string> {
  if (kind === 'funder') {
    const funder = record as Funder;
    return { title: funder.name, description: funder.summary ?? '', funder: '', programs: '' };
  }
  const opportunity = record as Grant | Contract;
  const programs =
    kind === 'grant' ? (opportunity as Grant).assistance_listings.map((listing) => listing.program_title) : [(opportunity as Contract).naics_description];
  return {
    title: opportunity.title,
    description: opportunity.description,
    funder: opportunity.funder_name,
    programs: programs.filter((name): name is string => name !== null && name !== '').join('; '),
  };
}
