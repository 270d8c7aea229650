import { parseListQuery } from '../query/list-query';
import type { SemanticSearchRequest } from '../query/semantic-search-request';
import type { Contract, Grant } from '../records';
import { FLOOR_RELEVANCE, relevanceOfCosine, roundedRelevance } from '../search/relevance';
import { type SearchPorts, semanticQueryOf } from './list-records';

export type SemanticHit = (({ type: 'grant' } & Grant) | ({ type: 'contract' } & Contract)) & { relevance: number };

export interface SemanticSearchResponse {
  results: SemanticHit[];
  count: number;
  meta: { response_time_ms: number; types: ('grant' | 'contract')[]; limit: number; min_relevance: number };
}

export interface SemanticAnswer {
  results: SemanticHit[];
  /**
   * The least relevance a result of this query may have: its floor's (query-floor.ts), 0.5 when
   * the model alone answers it and lower when its own words confirm its topic; 0.5 when it has none.
   */
  minRelevance: number;
}

/**
 * POST /semantic-search: the best semantic matches among open opportunities (awarded records are
 * left out, as in the list endpoints' default), across both kinds unless one is asked for. The
 * query is embedded once; each kind's matches come from the same index query the list endpoints
 * use, then merge by relevance (ties by id).
 */
export async function semanticSearch(ports: SearchPorts, request: SemanticSearchRequest, today: string): Promise<SemanticAnswer> {
  const semantic = await semanticQueryOf(ports, request.query);
  const pages = await Promise.all(
    request.kinds.map(async (kind) => {
      const query = parseListQuery(kind, { search: [request.query], search_mode: ['semantic'], limit: [String(request.limit)] }, today);
      return { kind, page: await ports.index.query(kind, query, semantic) };
    }),
  );
  const results = pages
    .flatMap(({ kind, page }) => page.results.map((record) => ({ type: kind, ...record }) as SemanticHit))
    .sort((a, b) => b.relevance - a.relevance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, request.limit);
  const floors = pages.map(({ page }) => page.floor?.semanticFloor).filter((floor): floor is number => typeof floor === 'number');
  const minRelevance = floors.length > 0 ? roundedRelevance(relevanceOfCosine(Math.min(...floors), semantic.scale)) : FLOOR_RELEVANCE;
  return { results, minRelevance };
}
