import { createHash } from 'node:crypto';
import type { Funder, Grant, RecordByKind, ResourceKind } from '../records';
import type { VectorSpace } from '../../ports/embedder';

/**
 * A description's gist is in its opening; past it, long notices are mostly boilerplate (eligibility
 * rules, submission steps). Models cut texts further (the local one at 128 tokens).
 */
const MAX_DESCRIPTION_CHARS = 1500;

/**
 * What a record's vector is made from: title, funder, categories and the opening of the
 * description (funders: name and summary), most telling first, because a model reads only the
 * start of a long text. Dates, amounts and statuses are filters, not meaning, so changing them
 * never costs a new embedding.
 */
export function embeddingTextOf<K extends ResourceKind>(kind: K, record: RecordByKind[K]): string {
  if (kind === 'funder') {
    const funder = record as Funder;
    return [funder.name, (funder.summary ?? '').slice(0, MAX_DESCRIPTION_CHARS)].join('\n');
  }
  const opportunity = record as Grant;
  return [opportunity.title, opportunity.funder_name, opportunity.categories.join(', '), opportunity.description.slice(0, MAX_DESCRIPTION_CHARS)]
    .filter((part) => part.length > 0)
    .join('\n');
}

/** The embedding cache key: the vector space (model and length) and a hash of exactly the text embedded. */
export function embeddingKeyOf(space: VectorSpace, text: string): string {
  return `${space.embedder}/${space.dimensions}#${createHash('sha256').update(text).digest('base64url')}`;
}
