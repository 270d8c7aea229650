import { searchUnavailable } from '../../core/errors';
import { RESOURCE_KINDS, type RecordByKind, type ResourceKind } from '../../core/records';
import { fuseHybrid } from '../../core/search/fusion';
import { keywordTermsOf } from '../../core/search/keyword-query';
import { cosineOfOpenSearchScore, roundedRelevance, type SimilarityScale } from '../../core/search/relevance';
import { sameSpace, VectorSpaceMismatch } from '../../core/search/vector-space';
import type { ListQuery } from '../../core/query/list-query';
import type { VectorSpace } from '../../ports/embedder';
import type { IndexedResult, IndexPage, SearchIndex, SemanticQuery } from '../../ports/search-index';
import type { OpenSearchApi } from './opensearch-client';
import { createIndexBody, documentOf, INDEX_ALIASES, INTERNAL_FIELDS, vectorSpaceOfMapping } from './opensearch-mappings';
import { hybridPageRequest, msearchLines, planQuery, relevanceOfScore, type Dsl } from './opensearch-query';
import { termCountBodies, type TermStatistics } from './opensearch-text-clauses';
import { answeredItem, errorTypeOf, queryFailure, QueryTimeoutError, statusOf, totalOf, type MsearchItem, type SearchHit, type SearchResponse } from './opensearch-responses';
import { TermStatisticsCache } from './opensearch-term-statistics';

export { INDEX_ALIASES } from './opensearch-mappings';

/**
 * The search index on OpenSearch. Each kind has a versioned index behind an alias (`gcf-grants` ->
 * `gcf-grants-v1`); the index's mapping records the vector space its vectors come from
 * (`_meta.vector_space`), and a service configured with another embedder refuses to use it
 * (VectorSpaceMismatch) instead of comparing vectors of two models. Queries are built by
 * opensearch-query.ts; the indexer keeps the documents current from the records table's stream.
 * It talks to the domain through OpenSearchApi (opensearch-client.ts): the thin SigV4 client in
 * the Lambdas and the admin CLI, or @opensearch-project/opensearch's Client.
 */

/** What an operator runs when the index holds vectors of another embedder (or none). */
export const REBUILD_REMEDY = 'Rebuild it with the configured embedder: npm run admin -- reindex --target aws --rebuild';
/** The index a fresh deployment creates; rebuilds create `<alias>-v<timestamp>`. */
const FIRST_INDEX_VERSION = 'v1';
/** Reported as the space of an index whose mapping records none (made before vector search). */
const NO_SPACE: VectorSpace = { embedder: 'no embedder (the index predates vector search)', dimensions: 0 };
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
}

/** What ensureIndices found or did for one kind. */
export interface IndexCheck {
  kind: ResourceKind;
  alias: string;
  status: 'created' | 'found' | 'mismatch';
  /** The concrete indices behind the alias. */
  indices: string[];
  /** With `mismatch`: the space the index records, and the message an operator needs. */
  found?: VectorSpace;
  message?: string;
}

/** Writes records (and their vectors, in the same order) into the index being rebuilt. */
export type RebuildWrite<K extends ResourceKind> = (records: readonly RecordByKind[K][], vectors?: readonly (Float32Array | null)[]) => Promise<void>;

export interface RebuildResult {
  /** The new index, now behind the alias. */
  index: string;
  /** The indices the alias pointed to before; deleted. */
  replaced: string[];
  documents: number;
}

interface BulkItemResult { status: number; _id?: string; error?: { type?: string; reason?: string } }
type Inspection = { status: 'missing' } | { status: 'found'; indices: string[] } | { status: 'mismatch'; indices: string[]; found: VectorSpace };

function timestampVersion(now: Date): string {
  return `v${now.toISOString().replace(/\D/g, '').slice(0, 17)}`;
}

export class OpenSearchIndex implements SearchIndex {
  /** What each kind's alias was last found to hold, and when. */
  private readonly inspections = new Map<ResourceKind, { at: number; result: Promise<Inspection> }>();
  private readonly recheckAfterMs: number;
  private readonly queryTimeoutMs: number;
  readonly space: VectorSpace;
  readonly endpoint: string | undefined;
  private readonly replicas: number | undefined;
  private readonly aliases: Readonly<Record<ResourceKind, string>>;
  private readonly termCounts = new TermStatisticsCache();

  constructor(private readonly client: OpenSearchApi, options: OpenSearchIndexOptions) {
    if (!options?.space) throw new Error('OpenSearchIndex needs the vector space of the configured embedder ({ space })');
    this.space = options.space;
    this.endpoint = options.endpoint;
    this.recheckAfterMs = options.recheckAfterMs ?? 60_000;
    this.queryTimeoutMs = options.queryTimeoutMs ?? QUERY_TIMEOUT_MS;
    this.replicas = options.replicas;
    const prefix = options.aliasPrefix;
    this.aliases = prefix ? { grant: `${prefix}-grants`, contract: `${prefix}-contracts`, funder: `${prefix}-funders` } : INDEX_ALIASES;
  }

  /** The alias a kind's index is read and written through. */
  aliasOf(kind: ResourceKind): string {
    return this.aliases[kind];
  }

  async query<K extends ResourceKind>(kind: K, query: ListQuery & { kind: K }, semantic?: SemanticQuery): Promise<IndexPage<K>> {
    if (planQuery(kind, query, semantic).type === 'none') return { total: 0, results: [] };
    try {
      return await this.withinDeadline(async () => {
        const usesKeywords = query.search !== undefined && query.search.mode !== 'semantic';
        const statistics = usesKeywords ? await this.termStatistics(kind, keywordTermsOf(query.search!.text)) : undefined;
        const plan = planQuery(kind, query, semantic, statistics);
        if (plan.type === 'none') return { total: 0, results: [] };
        await this.verify(kind, plan.type === 'hybrid' || plan.scored ? 'vectors' : 'read');
        if (plan.type === 'search') {
          const response = await this.search(kind, plan.body);
          const results = response.hits.hits.map((hit) => {
            const record = this.recordOf(kind, hit);
            return (plan.scored && typeof hit._score === 'number' ? { ...record, relevance: relevanceOfScore(hit._score, semantic!.scale) } : record) as IndexedResult<K>;
          });
          return { total: totalOf(response), results };
        }
        return this.hybrid(kind, query, plan.bodies, plan.lists, semantic!.scale);
      });
    } catch (error) {
      throw queryFailure(error, kind);
    }
  }

  /** How many of a kind's records hold each term: one `_msearch` of counts for those not cached. */
  private termStatistics(kind: ResourceKind, terms: readonly string[]): Promise<TermStatistics> {
    return this.termCounts.statistics(kind, terms, async (missing) => {
      const { body } = await this.client.msearch({ index: this.aliases[kind], body: msearchLines(termCountBodies(kind, missing)) }) as unknown as { body: { responses: MsearchItem[] } };
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

  /** The keyword and semantic lists and their union's count in one `_msearch`, fused; then the page of the fused set. */
  private async hybrid<K extends ResourceKind>(kind: K, query: ListQuery, bodies: Dsl[], lists: ('keyword' | 'semantic')[], scale: SimilarityScale): Promise<IndexPage<K>> {
    const { body } = await this.client.msearch({ index: this.aliases[kind], body: msearchLines(bodies) }) as unknown as { body: { responses: MsearchItem[] } };
    const hitsOf = (list: 'keyword' | 'semantic') => {
      const at = lists.indexOf(list);
      // Both lists always take part (an absent one is empty), as in the embedded index.
      return at < 0 ? [] : answeredItem(body.responses[at]).hits.hits.map((hit) => ({ id: hit._id, score: typeof hit._score === 'number' ? hit._score : 0 }));
    };
    const counted = answeredItem(body.responses[lists.length]);
    const fused = fuseHybrid(hitsOf('keyword'), hitsOf('semantic').map((hit) => ({ id: hit.id, cosine: cosineOfOpenSearchScore(hit.score) })), scale);
    const total = Math.max(fused.length, totalOf(counted));
    if (query.countOnly || total <= query.offset) return { total, results: [] };
    const relevance = new Map(fused.map((hit) => [hit.id, roundedRelevance(hit.relevance)]));
    const page = hybridPageRequest(kind, query, fused);
    const response = await this.search(kind, page.body);
    let hits = response.hits.hits;
    if (page.ids) {
      const byId = new Map(hits.map((hit) => [hit._id, hit]));
      hits = page.ids.flatMap((id) => byId.get(id) ?? []);
    }
    const results = hits.map((hit) => ({ ...this.recordOf(kind, hit), relevance: relevance.get(hit._id) ?? 0 }) as IndexedResult<K>);
    return { total, results };
  }

  private async search(kind: ResourceKind, body: Dsl): Promise<SearchResponse> {
    const response = await this.client.search({ index: this.aliases[kind], body }) as unknown as { body: SearchResponse };
    return response.body;
  }

  /** The public record of a hit: its `_source` without the index's own fields. */
  private recordOf<K extends ResourceKind>(kind: K, hit: SearchHit): RecordByKind[K] {
    const record = { ...hit._source };
    for (const field of INTERNAL_FIELDS[kind]) delete record[field];
    return record as unknown as RecordByKind[K];
  }

  /** The vector space recorded by the indices behind a kind's alias, or that there is none. */
  private async inspect(kind: ResourceKind): Promise<Inspection> {
    let mappings: Record<string, { mappings?: unknown }>;
    try {
      ({ body: mappings } = await this.client.indices.getMapping({ index: this.aliases[kind] }) as unknown as { body: Record<string, { mappings?: unknown }> });
    } catch (error) {
      if (statusOf(error) === 404) return { status: 'missing' };
      throw error;
    }
    const indices = Object.keys(mappings).sort();
    for (const index of indices) {
      const found = vectorSpaceOfMapping(mappings[index]?.mappings);
      if (!found || !sameSpace(found, this.space)) return { status: 'mismatch', indices, found: found ?? NO_SPACE };
    }
    return { status: 'found', indices };
  }

  private mismatch(kind: ResourceKind, indices: string[], found: VectorSpace): VectorSpaceMismatch {
    const where = `The OpenSearch index ${this.aliases[kind]} (${indices.join(', ')}${this.endpoint ? ` on ${this.endpoint}` : ''})`;
    return new VectorSpaceMismatch(where, found, this.space, REBUILD_REMEDY);
  }

  /** Creates a kind's first index behind its alias; a racing creator's index is as good. */
  private async create(kind: ResourceKind): Promise<'created' | 'raced'> {
    const alias = this.aliases[kind];
    try {
      await this.client.indices.create({ index: `${alias}-${FIRST_INDEX_VERSION}`, body: createIndexBody(kind, this.space, alias, this.replicas) });
      return 'created';
    } catch (error) {
      if (errorTypeOf(error) === 'resource_already_exists_exception' || /resource_already_exists_exception/.test(String((error as Error).message))) return 'raced';
      throw error;
    }
  }

  /** A kind's inspection, reused for `recheckAfterMs` (so an alias moved by a rebuild is noticed). */
  private inspectCached(kind: ResourceKind): Promise<Inspection> {
    const cached = this.inspections.get(kind);
    if (cached && Date.now() - cached.at < this.recheckAfterMs) return cached.result;
    const result = this.inspect(kind);
    result.catch(() => this.inspections.delete(kind));
    this.inspections.set(kind, { at: Date.now(), result });
    return result;
  }

  /**
   * Before a kind is used: its index must exist and, for anything that touches vectors, record
   * the configured vector space. A writer creates a missing index (so a fresh domain fills from
   * the stream); a reader finds it missing. A listing or keyword search does not read vectors, so
   * it is still served from an index of another space (during a rebuild's rollout, say); semantic
   * and hybrid queries and every write are refused.
   */
  private async verify(kind: ResourceKind, use: 'read' | 'vectors' | 'write'): Promise<void> {
    let inspection = await this.inspectCached(kind);
    if (inspection.status === 'missing' && use === 'write') {
      await this.create(kind);
      this.inspections.delete(kind);
      inspection = await this.inspectCached(kind);
    }
    if (inspection.status === 'missing') {
      if (use !== 'write') throw searchUnavailable(`The ${kind} search index is not available; it is created when the service is deployed`);
      throw new Error(`the index behind ${this.aliases[kind]} could not be created: ${this.aliases[kind]}-${FIRST_INDEX_VERSION} exists without the alias`);
    }
    if (inspection.status === 'mismatch' && use !== 'read') throw this.mismatch(kind, inspection.indices, inspection.found);
  }

  /**
   * Creates each kind's index and alias where missing, and reports what it found: the deploy-time
   * bootstrap. Idempotent. A mismatching vector space is reported, not thrown (the caller decides).
   */
  async ensureIndices(kinds: readonly ResourceKind[] = RESOURCE_KINDS): Promise<IndexCheck[]> {
    const checks: IndexCheck[] = [];
    for (const kind of kinds) {
      const alias = this.aliases[kind];
      let inspection = await this.inspect(kind);
      let created = false;
      if (inspection.status === 'missing') {
        created = (await this.create(kind)) === 'created';
        inspection = await this.inspect(kind);
        if (inspection.status === 'missing') throw new Error(`could not create the index behind ${alias}: ${alias}-${FIRST_INDEX_VERSION} exists without the alias`);
      }
      if (inspection.status === 'mismatch') {
        const error = this.mismatch(kind, inspection.indices, inspection.found);
        checks.push({ kind, alias, status: 'mismatch', indices: inspection.indices, found: inspection.found, message: error.message });
        continue;
      }
      this.inspections.set(kind, { at: Date.now(), result: Promise.resolve(inspection) });
      checks.push({ kind, alias, status: created ? 'created' : 'found', indices: inspection.indices });
    }
    return checks;
  }

  /**
   * Rebuilds a kind's index without a gap: a new versioned index (`<alias>-v<timestamp>`) in the
   * configured vector space, filled by `fill` (from the record store), refreshed, then the alias
   * moved to it in one atomic `_aliases` request, and the old index deleted. Readers see the old
   * index until the move and the new one after. Writes the indexer makes to the alias during the
   * fill go to the old index, so a plain reindex afterwards catches records changed meanwhile.
   */
  async rebuild<K extends ResourceKind>(kind: K, fill: (write: RebuildWrite<K>) => Promise<void>, options: { version?: string; now?: Date } = {}): Promise<RebuildResult> {
    const alias = this.aliases[kind];
    const index = `${alias}-${options.version ?? timestampVersion(options.now ?? new Date())}`;
    await this.client.indices.create({ index, body: createIndexBody(kind, this.space, undefined, this.replicas) });
    let documents = 0;
    let replaced: string[];
    try {
      await fill(async (records, vectors) => {
        if (records.length === 0) return;
        await this.bulkInto(kind, records.flatMap((record, i) => [{ index: { _index: index, _id: record.id } }, documentOf(kind, record, vectors?.[i], this.space)]), () => false);
        documents += records.length;
      });
      await this.client.indices.refresh({ index });
      replaced = await this.indicesBehind(alias);
      await this.client.indices.updateAliases({
        body: { actions: [...replaced.map((old) => ({ remove: { index: old, alias } })), { add: { index, alias } }] },
      });
    } catch (error) {
      // The alias never moved: drop the half-built index and leave the old one serving.
      await this.client.indices.delete({ index }).catch(() => undefined);
      throw error;
    }
    for (const old of replaced) await this.client.indices.delete({ index: old });
    this.inspections.delete(kind);
    return { index, replaced, documents };
  }

  private async indicesBehind(alias: string): Promise<string[]> {
    try {
      const { body } = await this.client.indices.getAlias({ name: alias }) as unknown as { body: Record<string, unknown> };
      return Object.keys(body).sort();
    } catch (error) {
      if (statusOf(error) === 404) return [];
      throw error;
    }
  }

  private async bulk(kind: ResourceKind, operations: Record<string, unknown>[], tolerated: (item: BulkItemResult) => boolean): Promise<void> {
    await this.verify(kind, 'write');
    await this.bulkInto(kind, operations, tolerated);
  }

  private async bulkInto(kind: ResourceKind, operations: Record<string, unknown>[], tolerated: (item: BulkItemResult) => boolean): Promise<void> {
    const { body } = await this.client.bulk({ body: operations }) as unknown as { body: { errors: boolean; items: Record<string, BulkItemResult>[] } };
    if (!body.errors) return;
    const failed = body.items.map((item) => Object.values(item)[0]!).filter((item) => item.status >= 300 && !tolerated(item));
    if (failed.length === 0) return;
    const sample = failed.slice(0, 5).map((item) => `${item._id}: ${item.error?.type ?? item.status} ${item.error?.reason ?? ''}`.trim());
    throw new Error(`OpenSearch refused ${failed.length} of ${body.items.length} ${kind} documents (${sample.join('; ')})`);
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
    await this.bulk(kind, ids.map((id) => ({ delete: { _index: index, _id: id } })), (item) => item.status === 404);
  }
}
