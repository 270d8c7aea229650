import { parseListQuery } from '../query/list-query';
import type { SemanticSearchRequest } from '../query/semantic-search-request';
import type { Contract, Grant } from '../records';
import { semanticQueryOf, type SearchPorts } from './list-records';

export type SemanticHit = ({ type: 'grant' } & Grant | { type: 'contract' } & Contract) & { relevance: number };

export interface SemanticSearchResponse {
  results: SemanticHit[];
  count: number;
  meta: { response_time_ms: number; types: ('grant' | 'contract')[]; limit: number; min_relevance: number };
}

/**
 * POST /semantic-search: the best semantic matches among open opportunities (awarded records are
 * left out, as in the list endpoints' default), across both kinds unless one is asked for. The
 * query is embedded once; each kind's matches come from the same index query the list endpoints
 * use, then merge by relevance (ties by id).
 */
export async function semanticSearch(ports: SearchPorts, request: SemanticSearchRequest, today: string): Promise<SemanticHit[]> {
  const semantic = await semanticQueryOf(ports, request.query);
  const pages = await Promise.all(request.kinds.map(async (kind) => {
    const query = parseListQuery(kind, { search: [request.query], search_mode: ['semantic'], limit: [String(request.limit)] }, today);
    const page = await ports.index.query(kind, query, semantic);
    return page.results.map((record) => ({ type: kind, ...record }) as SemanticHit);
  }));
  return pages
    .flat()
    .sort((a, b) => b.relevance - a.relevance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, request.limit);
}
