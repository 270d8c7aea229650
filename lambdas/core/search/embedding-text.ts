import { createHash } from 'node:crypto';
import type { VectorSpace } from '../../ports/embedder';
import { topicsOfComposedDescription } from '../ingest/contracts/notice-description';
import type { Funder, Grant, RecordByKind, ResourceKind } from '../records';

/**
 * A description's gist is in its opening; past it, long notices are mostly boilerplate (eligibility
 * rules, submission steps). Models cut texts further (the local one at 128 tokens).
 */
const MAX_DESCRIPTION_CHARS = 1500;

/**
 * What a record's vector is made from, most telling first, because a model reads only the start
 * of a long text. Dates, amounts and statuses are filters, not meaning, so changing them never
 * costs a new embedding.
 *
 * - Grants: title, funder, categories and the opening of the description (the funder says much
 *   of a grant's field: NIH, NEA).
 * - Contracts: title, categories and the description, or, for a notice without text of its own,
 *   what its composed description says is bought (the NAICS industry and the PSC group): the rest
 *   of that description (notice type, solicitation number, offices, codes, set-aside, place) and
 *   the buying agency read alike for notices about anything, and in the vector they outweighed
 *   the few words on what is bought (docs/benchmarks.md, "Search quality").
 * - Funders: name and summary.
 */
export function embeddingTextOf<K extends ResourceKind>(kind: K, record: RecordByKind[K]): string {
  if (kind === 'funder') {
    const funder = record as Funder;
    return [funder.name, (funder.summary ?? '').slice(0, MAX_DESCRIPTION_CHARS)].join('\n');
  }
  const opportunity = record as Grant;
  const categories = opportunity.categories.join(', ');
  if (kind === 'contract') {
    const topics = topicsOfComposedDescription(opportunity.description);
    const about = topics === undefined ? [opportunity.description.slice(0, MAX_DESCRIPTION_CHARS)] : [topics.industry ?? '', topics.productOrService ?? ''];
    return [opportunity.title, categories, ...about].filter((part) => part.length > 0).join('\n');
  }
  return [opportunity.title, opportunity.funder_name, categories, opportunity.description.slice(0, MAX_DESCRIPTION_CHARS)]
    .filter((part) => part.length > 0)
    .join('\n');
}

/** The embedding cache key: the vector space (model and length) and a hash of exactly the text embedded. */
export function embeddingKeyOf(space: VectorSpace, text: string): string {
  return `${space.embedder}/${space.dimensions}#${createHash('sha256').update(text).digest('base64url')}`;
}
