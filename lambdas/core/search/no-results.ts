import type { ListQuery, SearchMode } from '../query/list-query';
import { identifierQueryOf } from './identifiers';
import { keywordTermsOf } from './keyword-query';
import type { QueryFloor } from './query-floor';

/**
 * Why a list or search answered nothing (DESIGN.md section 3), for `meta.no_results`: a client
 * can tell a query with no searchable word from an off-topic one, and one its filters emptied
 * from one nothing matches at all.
 *
 * - no_terms: the search text has nothing to search (stop words, punctuation, symbols).
 * - no_match: nothing matches the text, filters aside (keyword: no record holds the words).
 * - below_floor: no record reaches the minimum-relevance floor (semantic and hybrid): off topic.
 * - filtered_out: records match the text, but none passes the filters.
 */
export const NO_RESULTS_REASONS = ['no_terms', 'no_match', 'below_floor', 'filtered_out'] as const;
export type NoResultsReason = (typeof NO_RESULTS_REASONS)[number];

/** What an index says of an empty answer: the reason, and how many records match the text with no filter. */
export interface EmptyAnswer {
  reason: NoResultsReason;
  matchesWithoutFilters?: number;
  /** In semantic mode: the text matched an identifier field, which only keyword and hybrid search read. */
  identifierOnly?: boolean;
}

export interface NoResults {
  reason: NoResultsReason;
  message: string;
  /** With filtered_out: how many records the search text matches before any filter. */
  matches_without_filters?: number;
}

const plural = (count: number, one: string, many: string) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

/** The default listing hides closed and awarded records; say so when the query did not choose. */
function defaultsHint(query: Pick<ListQuery, 'filters'>): string {
  const filters = query.filters;
  if (filters?.opportunityType !== 'open' || filters.status) return '';
  return ' By default only opportunities open for application are listed: opportunity_type=all (or a status filter) includes closed and awarded ones.';
}

export function noResultsOf(empty: EmptyAnswer, query: Pick<ListQuery, 'filters' | 'search'>): NoResults {
  const mode: SearchMode | null = query.search?.mode ?? null;
  switch (empty.reason) {
    case 'no_terms':
      return { reason: 'no_terms', message: 'The search text has nothing to search for: it holds only stop words, punctuation or symbols.' };
    case 'no_match':
      return {
        reason: 'no_match',
        message:
          mode === null
            ? 'No record passes these filters.'
            : 'No record holds the search words (all of a one- or two-word query, most of a longer one). Try other words, or search_mode=hybrid to search by meaning as well.',
      };
    case 'below_floor':
      return {
        reason: 'below_floor',
        message: empty.identifierOnly
          ? 'The search text matches an identifier (an opportunity, solicitation, listing or NAICS number, say), which semantic search does not read: search_mode=keyword or hybrid finds it.'
          : `No record is close enough in meaning to the search text to reach the minimum-relevance floor: the query looks off-topic for this catalogue.${mode === 'hybrid' ? ' search_mode=keyword returns the records that hold its words, if any.' : ''}`,
      };
    case 'filtered_out': {
      const count = empty.matchesWithoutFilters ?? 0;
      return {
        reason: 'filtered_out',
        message: `${plural(count, 'record matches', 'records match')} the search text, but the filters exclude ${count === 1 ? 'it' : 'all of them'}.${defaultsHint(query)}`,
        matches_without_filters: count,
      };
    }
  }
}

/**
 * Why a search found nothing, as both indices decide it: its filters, when the text matches
 * records without them; its text, when it has nothing to search; its words, in keyword mode (and
 * hybrid answered without the model, whose keyword half it is); otherwise the floor.
 */
export function emptySearchAnswer(
  search: { text: string; mode: SearchMode },
  matchesWithoutFilters: number,
  embedded: boolean,
  floor?: QueryFloor | null,
): EmptyAnswer {
  if (matchesWithoutFilters > 0) return { reason: 'filtered_out', matchesWithoutFilters };
  if (!searchableText(search.text)) return { reason: 'no_terms' };
  if (search.mode === 'keyword' || (search.mode === 'hybrid' && !embedded)) return { reason: 'no_match' };
  return { reason: 'below_floor', ...(floor?.basis === 'identifier' ? { identifierOnly: true } : {}) };
}

/** Whether a search text has anything to search for: a word that is not a stop word, or a code with a digit in it. */
export function searchableText(text: string): boolean {
  if (keywordTermsOf(text).length > 0) return true;
  const identifiers = identifierQueryOf(text);
  return identifiers !== null && [identifiers.whole ?? '', ...identifiers.words].some((key) => /\d/.test(key));
}
