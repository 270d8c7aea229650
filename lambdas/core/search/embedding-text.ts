import { createHash } from 'node:crypto';
import type { Funder, Grant, RecordByKind, ResourceKind } from '../records';
import type { VectorSpace } from '../../ports/embedder';

/**
 * A description's gist is in its opening; past it, long notices are mostly boilerplate (eligibility
 * rules, submission steps) that would drown the title in a mean of word vectors.
 */
const MAX_DESCRIPTION_CHARS = 1500;
/** The title counts three times, as the keyword search weighs it (chosen on `npm run eval:search`). */
const TITLE_WEIGHT = 3;

/**
 * What a record's vector is made from: title, funder, categories and the opening of the
 * description (funders: name and summary). Dates, amounts and statuses are filters, not meaning,
 * so changing them never costs a new embedding.
 */
export function embeddingTextOf<K extends ResourceKind>(kind: K, record: RecordByKind[K]): string {
  if (kind === 'funder') {
    const funder = record as Funder;
    return [funder.name, (funder.summary ?? '').slice(0, MAX_DESCRIPTION_CHARS)].join('\n');
  }
  const opportunity = record as Grant;
  const titles = Array.from({ length: TITLE_WEIGHT }, () => opportunity.title);
  return [...titles, opportunity.funder_name, opportunity.categories.join(', '), opportunity.description.slice(0, MAX_DESCRIPTION_CHARS)]
    .filter((part) => part.length > 0)
    .join('\n');
}

/** The embedding cache key: the vector space (model and length) and a hash of exactly the text embedded. */
export function embeddingKeyOf(space: VectorSpace, text: string): string {
  return `${space.embedder}/${space.dimensions}#${createHash('sha256').update(text).digest('base64url')}`;
}
