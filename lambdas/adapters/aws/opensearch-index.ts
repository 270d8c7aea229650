import type { Facets } from '../../core/query/facets';
import { pageBeyondWindow } from '../../core/query/list-cursor';
import type { ListQuery, PagePosition } from '../../core/query/list-query';
import { RESOURCE_KINDS, type RecordByKind, type ResourceKind } from '../../core/records';
import { fuseHybrid } from '../../core/search/fusion';
import { identifierQueryOf } from '../../core/search/identifiers';
import { keywordTermsOf } from '../../core/search/keyword-query';
import { type EmptyAnswer, emptySearchAnswer } from '../../core/search/no-results';
import { fixedQueryFloor, type QueryFloor, queryFloorOf } from '../../core/search/query-floor';
import { cosineOfOpenSearchScore, roundedRelevance, type SimilarityScale } from '../../core/search/relevance';
import type { VectorSpace } from '../../ports/embedder';
import type { IndexedResult, IndexPage, SearchIndex, SemanticQuery, TotalRelation } from '../../ports/search-index';
import type { OpenSearchApi } from './opensearch-client';
import { facetsOfAggregations, noFacets } from './opensearch-facets';
import { type Dsl, filterClauses } from './opensearch-filters';
import { type BulkItemResult, bulkWrite, type IndexCheck, OpenSearchIndices, type RebuildResult, type RebuildWrite } from './opensearch-indices';
import { fusedPosition, positionOfHit } from './opensearch-keyset';
import { DEFAULT_SHED_MS, isOverload, QUERY_RETRY_BUDGET, VectorLoadShedder, withRetryBudget } from './opensearch-load-shedding';
import { documentOf, INDEX_ALIASES, INTERNAL_FIELDS } from './opensearch-mappings';
import {
  floorEvidenceBodies,
  fusedFacetsBody,
  hybridPageRequest,
  msearchLines,
  planQuery,
  type QueryPlan,
  rankedIdOf,
  relevanceOfScore,
  unfilteredCountBody,
} from './opensearch-query';
import { QueryFloorCache } from './opensearch-query-floors';
import { answeredItem, type MsearchItem, QueryTimeoutError, queryFailure, type SearchHit, type SearchResponse, totalOf } from './opensearch-responses';
import { TermStatisticsCache } from './opensearch-term-statistics';
import { type TermStatistics, termCountBodies, usableVector } from './opensearch-text-clauses';
import { type VectorSearchSettings, vectorSearchSettingsOf } from './opensearch-vector-search';

type HybridPlan = Extract<QueryPlan, { type: 'hybrid' }>;

/** Whether a keyword search of a text can match anything: it has a word to search, or may be an identifier. */
const canMatch = (text: string) => keywordTermsOf(text).length > 0 || identifierQueryOf(text) !== null;

/**
 * A sorted page's hits and the position after the last when more follow: after a position the
 * request asked for one hit more than the page; at an offset, the total says.
 */
function pageOfHits(query: ListQuery, hits: SearchHit[], total: number): { hits: SearchHit[]; next?: PagePosition } {
  if (query.countOnly || hits.length === 0) return { hits: [] };
  if (query.after) {
    if (hits.length <= query.limit) return { hits };
    const page = hits.slice(0, query.limit);
    return { hits: page, next: positionOfHit(page[page.length - 1]!) };
  }
  return { hits, ...(query.offset + hits.length < total ? { next: positionOfHit(hits[hits.length - 1]!) } : {}) };
}

/** A page's totalRelation: `gte` when the window of nearest candidates filled above the floor (absent: exact). */
const relationOf = (bounded: boolean): { totalRelation?: TotalRelation } => (bounded ? { totalRelation: 'gte' } : {});

export { type IndexCheck, REBUILD_REMEDY, type RebuildResult, type RebuildWrite } from './opensearch-indices';
export { INDEX_ALIASES } from './opensearch-mappings';

/**
 * The search index on OpenSearch. Each kind has a versioned index behind an alias (`gcf-grants` ->
 * `gcf-grants-v1`); the index's mapping records the vector space its vectors come from
 * (`_meta.vector_space`), and a service configured with another embedder refuses to use it
 * (VectorSpaceMismatch) instead of comparing vectors of two models; the indices' life (checks,
 * bootstrap, rebuild) is in opensearch-indices.ts. Queries are built by opensearch-query.ts; the indexer keeps the documents current from the records table's stream.
 * It talks to the domain through OpenSearchApi (opensearch-client.ts): the thin SigV4 client in
 * the Lambdas and the admin CLI, or @opensearch-project/opensearch's Client.
 */

/**
 * How long a query may take, end to end (the index check and every request to the domain, retries
 * included), before it is given up as SEARCH_UNAVAILABLE. A domain that takes connections and
 * never answers would otherwise hold a query for the client's request timeout (30 s), past the
 * API functions' own timeout (15 s, lib/config.ts): the function would be killed and the caller
 * get API Gateway's bare 5xx instead of our 503. This leaves the rest of the function's time for
 * authentication, the quota and the query's embedding.
 */
export const QUERY_TIMEOUT_MS = 8_000;

export interface OpenSearchIndexOptions {
  /** The vector space of the configured embedder: vectors written and queried must be of it. */
  space: VectorSpace;
  /** The domain's address, for messages to operators. */
  endpoint?: string;
  /** Names the aliases `<prefix>-grants` etc. instead of INDEX_ALIASES (a test's own indices on a shared domain). */
  aliasPrefix?: string;
  /** How long a check of an index's vector space holds before it is made again (default one minute). */
  recheckAfterMs?: number;
  /** How long a query may take in all before it is a 503 (default QUERY_TIMEOUT_MS). */
  queryTimeoutMs?: number;
  /** Replicas of each index it creates (one per extra zone of the domain); unset: one once a second node joins. */
  replicas?: number;
  /** The graph new indices are built with and the window semantic and hybrid queries rank (defaults: DEFAULT_VECTOR_SEARCH). */
  vectors?: Partial<VectorSearchSettings>;
  /** How long vector work is shed after the domain answers 429 or 503 (default DEFAULT_SHED_MS). */
  shedMs?: number;
  /** Retries one query may spend over all its calls to the domain (default QUERY_RETRY_BUDGET). */
  retriesPerQuery?: number;
  /** Told of each search whose vector work is shed (for a metric). */
  onShed?: (mode: 'semantic' | 'hybrid') => void;
}

export class OpenSearchIndex implements SearchIndex {
  private readonly queryTimeoutMs: number;
  readonly space: VectorSpace;
  readonly endpoint: string | undefined;
  private readonly aliases: Readonly<Record<ResourceKind, string>>;
  private readonly indices: OpenSearchIndices;
  private readonly termCounts = new TermStatisticsCache();
  private readonly floors = new QueryFloorCache();
  readonly vectors: VectorSearchSettings;
  private readonly shedder: VectorLoadShedder;
  private readonly retriesPerQuery: number;
  private readonly onShed: (mode: 'semantic' | 'hybrid') => void;

  constructor(
    private readonly client: OpenSearchApi,
    options: OpenSearchIndexOptions,
  ) {
    if (!options?.space) throw new Error('OpenSearchIndex needs the vector space of the configured embedder ({ space })');
    this.space = options.space;
    this.endpoint = options.endpoint;
    this.queryTimeoutMs = options.queryTimeoutMs ?? QUERY_TIMEOUT_MS;
    this.vectors = vectorSearchSettingsOf(options.vectors);
    this.shedder = new VectorLoadShedder(options.shedMs ?? DEFAULT_SHED_MS);
    this.retriesPerQuery = options.retriesPerQuery ?? QUERY_RETRY_BUDGET;
    this.onShed = options.onShed ?? (() => undefined);
    const prefix = options.aliasPrefix;
    this.aliases = prefix ? { grant: `${prefix}-grants`, contract: `${prefix}-contracts`, funder: `${prefix}-funders` } : INDEX_ALIASES;
    this.indices = new OpenSearchIndices(client, {
      space: this.space,
      endpoint: this.endpoint,
      aliases: this.aliases,
      replicas: options.replicas,
      recheckAfterMs: options.recheckAfterMs ?? 60_000,
      vectors: this.vectors,
    });
  }

  /** The alias a kind's index is read and written through. */
  aliasOf(kind: ResourceKind): string {
    return this.aliases[kind];
  }

  async query<K extends ResourceKind>(kind: K, query: ListQuery & { kind: K }, given?: SemanticQuery): Promise<IndexPage<K>> {
    try {
      const search = query.search;
      const { semantic, degraded } = this.shedder.vectorOf(search?.mode, given, this.onShed);
      // A keyword search with neither a word nor a code to look for, or a semantic one with no vector, matches nothing: no request.
      if ((search?.mode === 'keyword' && !canMatch(search.text)) || (search?.mode === 'semantic' && !usableVector(semantic))) {
        return { total: 0, results: [], ...noFacets(kind, query), empty: emptySearchAnswer(search, 0, false) };
      }
      const page = await withRetryBudget(this.retriesPerQuery, () =>
        this.withinDeadline(async () => {
          const vectors = search !== undefined && search.mode !== 'keyword';
          const statistics = search ? await this.termStatistics(kind, keywordTermsOf(search.text)) : undefined;
          await this.indices.verify(kind, vectors ? 'vectors' : 'read');
          const floor = vectors && usableVector(semantic) ? await this.queryFloor(kind, search!.text, semantic!, statistics) : null;
          const plan = planQuery(kind, query, this.vectors.window, semantic, statistics, floor);
          const page = await this.answer(kind, query, plan, semantic);
          const withFloor = { ...page, ...(floor ? { floor } : {}) };
          if (page.total > 0 || query.ids) return withFloor;
          return { ...withFloor, empty: await this.emptyAnswer(kind, query, semantic, floor, statistics) };
        }),
      );
      return degraded ? { ...page, degraded } : page;
    } catch (error) {
      if (isOverload(error)) this.shedder.overloaded();
      throw queryFailure(error, kind);
    }
  }

  private async answer<K extends ResourceKind>(kind: K, query: ListQuery, plan: QueryPlan, semantic?: SemanticQuery): Promise<IndexPage<K>> {
    if (plan.type === 'none') return { total: 0, results: [], ...noFacets(kind, query) };
    if (plan.type === 'hybrid') return this.hybrid(kind, query, plan, semantic!.scale);
    const response = await this.search(kind, plan.body);
    const total = totalOf(response);
    // A semantic search ranks the window: when all of it reached the floor, more may match.
    const bounded = plan.scored && total >= this.vectors.window;
    if (bounded && !query.countOnly && !query.after && query.offset >= total) throw pageBeyondWindow('offset', 'semantic', total);
    const { hits, next } = pageOfHits(query, response.hits.hits, total);
    const results = hits.map((hit) => {
      const record = this.recordOf(kind, hit);
      return (
        plan.scored && typeof hit._score === 'number' ? { ...record, relevance: relevanceOfScore(hit._score, semantic!.scale) } : record
      ) as IndexedResult<K>;
    });
    return { total, ...relationOf(bounded), results, ...this.facetsOf(kind, query, response), ...(next ? { next } : {}) };
  }

  /** The query's floor (query-floor.ts), from one `_msearch` over the whole kind; kept a while per text, as term statistics are. */
  private queryFloor(kind: ResourceKind, text: string, semantic: SemanticQuery, statistics?: TermStatistics): Promise<QueryFloor> {
    if (semantic.fixedFloor !== undefined) return Promise.resolve(fixedQueryFloor(semantic.fixedFloor));
    return this.floors.floor(kind, text, semantic, async () => {
      const { bodies, reads } = floorEvidenceBodies(kind, text, semantic, statistics);
      const { body } = (await this.client.msearch({ index: this.aliases[kind], body: msearchLines(bodies) })) as unknown as {
        body: { responses: MsearchItem[] };
      };
      const response = (read: (typeof reads)[number]) => (reads.includes(read) ? answeredItem(body.responses[reads.indexOf(read)]) : null);
      const bestOf = (read: 'best' | 'words') => {
        const top = response(read)?.hits.hits[0]?._score;
        return typeof top === 'number' ? cosineOfOpenSearchScore(top) : Number.NaN;
      };
      const identifiers = response('identifiers');
      return queryFloorOf(
        {
          bestCosine: bestOf('best'),
          bestWordCosine: bestOf('words'),
          identifierMatches: identifiers ? totalOf(identifiers) : 0,
          words: keywordTermsOf(text).length,
        },
        semantic.scale,
      );
    });
  }

  /** Why a search found nothing (IndexPage.empty): its filters, its text, or the floor. */
  private async emptyAnswer(
    kind: ResourceKind,
    query: ListQuery,
    semantic: SemanticQuery | undefined,
    floor: QueryFloor | null,
    statistics?: TermStatistics,
  ): Promise<EmptyAnswer> {
    const search = query.search;
    if (!search) return { reason: 'no_match' };
    const body = filterClauses(query).length > 0 ? unfilteredCountBody(kind, search.text, search.mode, semantic, floor, this.vectors.window, statistics) : null;
    const unfiltered = body ? totalOf(await this.search(kind, body)) : 0;
    return emptySearchAnswer(search, unfiltered, usableVector(semantic) !== null, floor);
  }

  /** How many of a kind's records hold each term: one `_msearch` of counts for those not cached. */
  private termStatistics(kind: ResourceKind, terms: readonly string[]): Promise<TermStatistics> {
    return this.termCounts.statistics(kind, terms, async (missing) => {
      const { body } = (await this.client.msearch({ index: this.aliases[kind], body: msearchLines(termCountBodies(kind, missing)) })) as unknown as {
        body: { responses: MsearchItem[] };
      };
      return [...missing, ''].map((_, i) => () => totalOf(answeredItem(body.responses[i])));
    });
  }

  /** The query's outcome, or a TimeoutError once queryTimeoutMs has passed (the requests still under way are left to the client's own timeout). */
  private async withinDeadline<T>(work: () => Promise<T>): Promise<T> {
    const running = work();
    running.catch(() => undefined); // an answer that fails after the deadline has no one waiting for it
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new QueryTimeoutError(`no answer from the search domain within ${this.queryTimeoutMs} ms`)), this.queryTimeoutMs);
    });
    try {
      return await Promise.race([running, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The keyword and semantic lists (to the window) in one `_msearch`, fused; then the page of the
   * fused set, read by id (and its facets, counted over the fused set, beside it). The fused set is
   * the result set: its total is a lower bound (`gte`) when either list filled the window, and
   * pages reach as far as it does.
   */
  private async hybrid<K extends ResourceKind>(kind: K, query: ListQuery, { bodies, lists }: HybridPlan, scale: SimilarityScale): Promise<IndexPage<K>> {
    const { body } = (await this.client.msearch({ index: this.aliases[kind], body: msearchLines(bodies) })) as unknown as {
      body: { responses: MsearchItem[] };
    };
    const hitsOf = (list: 'keyword' | 'semantic') => {
      const at = lists.indexOf(list);
      // Both lists always take part (an absent one is empty), as in the embedded index.
      return at < 0
        ? []
        : answeredItem(body.responses[at]).hits.hits.map((hit) => ({ key: rankedIdOf(hit), score: typeof hit._score === 'number' ? hit._score : 0 }));
    };
    const keyword = hitsOf('keyword');
    const similar = hitsOf('semantic');
    const fused = fuseHybrid(
      keyword,
      similar.map((hit) => ({ key: hit.key, cosine: cosineOfOpenSearchScore(hit.score) })),
      scale,
    );
    const total = fused.length;
    const bounded = keyword.length >= this.vectors.window || similar.length >= this.vectors.window;
    // Counted only once the page is known to be served, so no count is left running behind a 400.
    const facetsOf = async () =>
      query.facets && kind !== 'funder'
        ? this.facetsOf(
            kind,
            query,
            await this.search(
              kind,
              fusedFacetsBody(
                kind,
                query,
                fused.map((hit) => hit.key),
              ),
            ),
          )
        : {};
    if (query.countOnly || (!query.after && total <= query.offset)) {
      if (bounded && !query.countOnly) throw pageBeyondWindow('offset', 'hybrid', total);
      return { total, ...relationOf(bounded), results: [], ...(await facetsOf()) };
    }
    const relevance = new Map(fused.map((hit) => [hit.key, roundedRelevance(hit.relevance)]));
    const page = hybridPageRequest(kind, query, fused);
    if (query.after && bounded && page.start !== undefined && page.start >= total) throw pageBeyondWindow('cursor', 'hybrid', total);
    const [response, facets] = await Promise.all([this.search(kind, page.body), facetsOf()]);
    let hits = response.hits.hits;
    let next: PagePosition | undefined;
    if (page.ids) {
      const byId = new Map(hits.map((hit) => [hit._id, hit]));
      hits = page.ids.flatMap((id) => byId.get(id) ?? []);
      const end = page.start! + page.ids.length;
      if (page.ids.length > 0 && end < total) next = fusedPosition(page.ordered![end - 1]!);
    } else {
      ({ hits, next } = pageOfHits(query, hits, total));
    }
    const results = hits.map((hit) => ({ ...this.recordOf(kind, hit), relevance: relevance.get(hit._id) ?? 0 }) as IndexedResult<K>);
    return { total, ...relationOf(bounded), results, ...facets, ...(next ? { next } : {}) };
  }

  /** The facets the query asked for, from the aggregations of the response that counted its whole match set. */
  private facetsOf(kind: ResourceKind, query: ListQuery, response: SearchResponse): { facets?: Facets } {
    if (!query.facets || kind === 'funder') return {};
    return { facets: facetsOfAggregations(kind, query.facets, response.aggregations) };
  }

  private async search(kind: ResourceKind, body: Dsl): Promise<SearchResponse> {
    const response = (await this.client.search({ index: this.aliases[kind], body })) as unknown as { body: SearchResponse };
    return response.body;
  }

  /** The public record of a hit: its `_source` without the index's own fields. */
  private recordOf<K extends ResourceKind>(kind: K, hit: SearchHit): RecordByKind[K] {
    const record = { ...hit._source };
    for (const field of INTERNAL_FIELDS[kind]) delete record[field];
    return record as unknown as RecordByKind[K];
  }

  /** Creates each kind's index and alias where missing, and reports what it found: the deploy-time bootstrap (OpenSearchIndices). */
  ensureIndices(kinds: readonly ResourceKind[] = RESOURCE_KINDS): Promise<IndexCheck[]> {
    return this.indices.ensureIndices(kinds);
  }

  /** Rebuilds a kind's index into a new one and moves the alias to it without a gap (OpenSearchIndices). */
  rebuild<K extends ResourceKind>(
    kind: K,
    fill: (write: RebuildWrite<K>) => Promise<void>,
    options: { version?: string; now?: Date } = {},
  ): Promise<RebuildResult> {
    return this.indices.rebuild(kind, fill, options);
  }

  /** Makes every write so far visible to searches now rather than at the next scheduled refresh (a local seed waits for it). */
  async refresh(kinds: readonly ResourceKind[] = RESOURCE_KINDS): Promise<void> {
    for (const kind of kinds) await this.client.indices.refresh({ index: this.aliases[kind] });
  }

  private async bulk(kind: ResourceKind, operations: Record<string, unknown>[], tolerated: (item: BulkItemResult) => boolean): Promise<void> {
    await this.indices.verify(kind, 'write');
    this.floors.clear();
    await bulkWrite(this.client, kind, operations, tolerated);
  }

  /** Full records by id; each vector goes into the `embedding` field (a null one leaves the record out of semantic matches). */
  async upsert<K extends ResourceKind>(kind: K, records: readonly RecordByKind[K][], vectors?: readonly (Float32Array | null)[]): Promise<void> {
    if (records.length === 0) return;
    const index = this.aliases[kind];
    // Built (and vector lengths checked) before any request.
    const operations = records.flatMap((record, i) => [{ index: { _index: index, _id: record.id } }, documentOf(kind, record, vectors?.[i], this.space)]);
    await this.bulk(kind, operations, () => false);
  }

  async remove(kind: ResourceKind, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const index = this.aliases[kind];
    // Deleting what is not there is the outcome wanted.
    await this.bulk(
      kind,
      ids.map((id) => ({ delete: { _index: index, _id: id } })),
      (item) => item.status === 404,
    );
  }
}
