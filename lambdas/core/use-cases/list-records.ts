import type { Embedder } from '../../ports/embedder';
import type { IndexedResult, IndexPage, SearchIndex, SemanticQuery, TotalRelation } from '../../ports/search-index';
import { ServiceError, searchUnavailable } from '../errors';
import type { Facets } from '../query/facets';
import type { ListQuery, SortField, SortOrder } from '../query/list-query';
import type { ResourceKind } from '../records';
import { type EmptyAnswer, type NoResults, noResultsOf } from '../search/no-results';
import { similarityScaleOf } from '../search/relevance';
import { describeSpace } from '../search/vector-space';

export interface ListMeta {
  response_time_ms: number;
  sort_by: SortField;
  order: SortOrder;
  /** Present (true) only when a hybrid search was answered from its keyword half alone. */
  degraded?: true;
  /** Why the answer is degraded, in words for the caller. */
  degraded_reason?: string;
  /** Present only when nothing was found: why (lambdas/core/search/no-results.ts). */
  no_results?: NoResults;
}

export interface ListEnvelope<K extends ResourceKind> {
  results: IndexedResult<K>[];
  pagination: { total: number; total_relation: TotalRelation; limit: number; offset: number; returned: number; next_cursor?: string };
  /** Only when the query asked for facets (ListQuery.facets). */
  facets?: Facets;
  meta: ListMeta;
}

export interface CountEnvelope {
  pagination: { total: number; total_relation: TotalRelation };
  facets?: Facets;
  meta: ListMeta;
}

export interface ListOutcome<K extends ResourceKind> {
  query: ListQuery & { kind: K };
  total: number;
  /** Whether total is exact or a lower bound (IndexPage.totalRelation). */
  totalRelation: TotalRelation;
  results: IndexedResult<K>[];
  facets?: Facets;
  /** Set when a hybrid search lost its semantic half (the embedding model did not answer, or the index shed vector work). */
  degradedReason?: string;
  /** The index's position after the page's last result, when more follow (IndexPage.next). */
  next?: IndexPage<K>['next'];
  /** Why nothing was found, when nothing was (IndexPage.empty). */
  empty?: EmptyAnswer;
}

/** Where a page stands in a walk (list-cursors.ts): the results before it, and the cursor to the next page. */
export interface PageLinks {
  offset: number;
  nextCursor?: string;
}

export interface SearchPorts {
  index: SearchIndex;
  embedder: Embedder;
  semanticFloor: number;
}

function scaleOf(ports: Omit<SearchPorts, 'index'>) {
  return similarityScaleOf(ports.embedder.space, ports.semanticFloor);
}

/**
 * The query text's vector and the embedder's similarity scale; a SEARCH_UNAVAILABLE error when
 * the model does not answer (keyword and hybrid search catch it and carry on without the vector).
 */
export async function semanticQueryOf(ports: Omit<SearchPorts, 'index'>, text: string): Promise<SemanticQuery> {
  let vector: Float32Array | null | undefined;
  try {
    [vector] = await ports.embedder.embed([text], 'query');
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    // The cause goes to the log through the error chain, not to the caller (it may name internals).
    throw Object.assign(
      searchUnavailable(
        `Semantic search is unavailable: the embedding model (${describeSpace(ports.embedder.space)}) did not answer. Keyword search (search_mode=keyword) still works.`,
      ),
      { cause: error },
    );
  }
  return { vector: vector ?? null, scale: scaleOf(ports) };
}

/**
 * A hybrid search whose query could not be embedded still has its keyword half: it is answered
 * from that half alone (the same fusion with no semantic list) and says so in meta.degraded.
 * Semantic search has no such half and stays a 503, as do errors of the index itself.
 */
async function hybridOrKeywordQuery(ports: SearchPorts, text: string): Promise<{ semantic: SemanticQuery; degradedReason?: string }> {
  try {
    return { semantic: await semanticQueryOf(ports, text) };
  } catch (error) {
    if (!(error instanceof ServiceError) || error.code !== 'SEARCH_UNAVAILABLE') throw error;
    return {
      semantic: { vector: null, scale: scaleOf(ports) },
      degradedReason: `The embedding model (${describeSpace(ports.embedder.space)}) did not answer, so these are the keyword matches alone, ranked as hybrid search ranks them.`,
    };
  }
}

/** Keyword search reads words and identifiers only: it never embeds the query. */
export async function listRecords<K extends ResourceKind>(ports: SearchPorts, query: ListQuery & { kind: K }): Promise<ListOutcome<K>> {
  const mode = query.search?.mode ?? 'keyword';
  let semantic: SemanticQuery | undefined;
  let degradedReason: string | undefined;
  if (query.search && mode === 'semantic') semantic = await semanticQueryOf(ports, query.search.text);
  else if (query.search && mode === 'hybrid') ({ semantic, degradedReason } = await hybridOrKeywordQuery(ports, query.search.text));
  const page = await ports.index.query(query.kind, query, semantic);
  degradedReason ??= page.degraded;
  if (query.facets && !page.facets) throw new Error(`the search index answered a ${query.kind} query without the facets it asked for`);
  return {
    query,
    total: page.total,
    totalRelation: page.totalRelation ?? 'eq',
    results: page.results,
    ...(query.facets ? { facets: page.facets } : {}),
    ...(degradedReason ? { degradedReason } : {}),
    ...(page.next ? { next: page.next } : {}),
    ...(page.total === 0 && page.empty ? { empty: page.empty } : {}),
  };
}

/** The list envelope of interface section 2; count_only drops results (DESIGN.md section 3). */
export function listEnvelope<K extends ResourceKind>(outcome: ListOutcome<K>, elapsedMs: number, links?: PageLinks): ListEnvelope<K> | CountEnvelope {
  const { query, total, totalRelation, results } = outcome;
  const meta: ListMeta = {
    response_time_ms: Math.round(elapsedMs * 100) / 100,
    sort_by: query.sort.field,
    order: query.sort.order,
    ...(outcome.degradedReason ? { degraded: true as const, degraded_reason: outcome.degradedReason } : {}),
    ...(outcome.empty ? { no_results: noResultsOf(outcome.empty, query) } : {}),
  };
  const facets = outcome.facets ? { facets: outcome.facets } : {};
  if (query.countOnly) return { pagination: { total, total_relation: totalRelation }, ...facets, meta };
  return {
    results,
    pagination: {
      total,
      total_relation: totalRelation,
      limit: query.limit,
      offset: links?.offset ?? query.offset,
      returned: results.length,
      ...(links?.nextCursor ? { next_cursor: links.nextCursor } : {}),
    },
    ...facets,
    meta,
  };
}
