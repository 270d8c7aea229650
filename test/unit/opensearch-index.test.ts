import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@opensearch-project/opensearch';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type OpenSearchApi, OpenSearchHttpClient } from '../../lambdas/adapters/aws/opensearch-client';
import { INDEX_ALIASES, OpenSearchIndex, REBUILD_REMEDY } from '../../lambdas/adapters/aws/opensearch-index';
import { createIndexBody, INDEX_PROPERTIES, INTERNAL_FIELDS, indexMappings, MAPPING_VERSION } from '../../lambdas/adapters/aws/opensearch-mappings';
import {
  floorEvidenceBodies,
  hybridRankBodies,
  keywordSearchBody,
  msearchLines,
  semanticSearchBody,
  unfilteredCountBody,
} from '../../lambdas/adapters/aws/opensearch-query';
import type { TermStatistics } from '../../lambdas/adapters/aws/opensearch-text-clauses';
import { DEFAULT_VECTOR_SEARCH } from '../../lambdas/adapters/aws/opensearch-vector-search';
import { ServiceError } from '../../lambdas/core/errors';
import { type ListQuery, parseListQuery } from '../../lambdas/core/query/list-query';
import { type Funder, type Grant, RECORD_SCHEMAS, RESOURCE_KINDS, type ResourceKind } from '../../lambdas/core/records';
import { fuseHybrid } from '../../lambdas/core/search/fusion';
import { FLOOR_SPREAD, queryFloorOf } from '../../lambdas/core/search/query-floor';
import { cosineOfOpenSearchScore } from '../../lambdas/core/search/relevance';
import { VectorSpaceMismatch } from '../../lambdas/core/search/vector-space';
import { bootstrapSearchIndices, PHYSICAL_RESOURCE_ID } from '../../lambdas/handlers/bootstrap-search-index';
import type { VectorSpace } from '../../lambdas/ports/embedder';
import { fixtureGrant } from '../support/record-fixtures';
import { type StandInOpenSearch, type StandInRequest, startStandInOpenSearch } from '../support/stand-in-opensearch';

/**
 * The OpenSearch adapter against a stand-in domain on loopback: a real HTTP exchange, with the
 * stand-in recording what it was sent, answering index, mapping, alias and bulk requests as
 * OpenSearch does, and answering searches with canned responses set per test. Every case runs over
 * both clients the adapter takes: @opensearch-project/opensearch's Client and the thin
 * OpenSearchHttpClient the Lambdas use.
 */

type ClientFactory = (node: string, options?: { maxRetries?: number }) => OpenSearchApi;
const CLIENTS: [string, ClientFactory][] = [
  ['@opensearch-project/opensearch Client', (node, options) => new Client({ node, ...options })],
  ['thin OpenSearchHttpClient', (node, options) => new OpenSearchHttpClient({ node, ...options })],
];
let client: ClientFactory = CLIENTS[0]![1];

const SPACE: VectorSpace = { embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 4 };
const OTHER_SPACE: VectorSpace = { embedder: 'wink-sg-100d', dimensions: 100 };
const TODAY = '2026-11-22';

let openSearch: StandInOpenSearch;
beforeAll(async () => {
  openSearch = await startStandInOpenSearch();
});
afterAll(() => openSearch.close());
beforeEach(() => openSearch.reset());

function adapter(space: VectorSpace = SPACE): OpenSearchIndex {
  return new OpenSearchIndex(client(openSearch.endpoint), { space, endpoint: openSearch.endpoint });
}

/** An index made by this code, in a vector space, behind the kind's alias. */
function existingIndex(kind: ResourceKind, space: VectorSpace = SPACE, version = 'v1'): void {
  openSearch.createIndex(`${INDEX_ALIASES[kind]}-${version}`, createIndexBody(kind, space, INDEX_ALIASES[kind]) as never);
}

const calls = () => openSearch.requests.map((r) => `${r.method} ${r.path}`);
const ndjson = (body: string) =>
  body
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const funder = (id: string, name: string): Funder => ({
  id,
  name,
  website: null,
  summary: 'Supports research.',
  created_at: '2024-01-01T00:00:00Z',
  source: 'sam.gov',
  source_id: id,
});

const grant = (n: number, extra: Partial<Grant> = {}): Grant =>
  fixtureGrant(n, {
    description: 'Police equipment.',
    funder_id: '00000000-0000-4000-8000-999999999999',
    funder_name: 'Department of Justice',
    created_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  });

function q(params: Record<string, string>, kind: ResourceKind = 'grant'): ListQuery & { kind: 'grant' } {
  return parseListQuery(kind, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, [v]])), TODAY) as ListQuery & { kind: 'grant' };
}

/**
 * A search response as OpenSearch gives it: a page's hits carry `_id` and the stored document in
 * `_source`; a hybrid rank list's (no stored fields, the id doc value) carry `fields.id` instead.
 */
function hits(list: { id: string; score?: number | null; source?: Record<string, unknown> }[], total = list.length) {
  return {
    took: 1,
    timed_out: false,
    _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
    hits: {
      total: { value: total, relation: 'eq' },
      max_score: null,
      // A page's hits carry their sort values (here the score, then the id): the position after them.
      hits: list.map((hit) => ({
        _index: 'gcf-grants-v1',
        _score: hit.score ?? null,
        ...(hit.source ? { _id: hit.id, _source: hit.source, sort: [hit.score ?? null, hit.id] } : { fields: { id: [hit.id] } }),
      })),
    },
  };
}

/** Canned answers still to give, by request path (see answer). */
const canned = new Map<string, unknown[]>();
const cannedAnswer = (request: StandInRequest) => {
  const queue = canned.get(request.path);
  return queue && queue.length > 0 ? { json: queue.shift() } : undefined;
};

/**
 * Answers searches on a path with the given responses, in turn, after any already queued for it;
 * other paths keep their queues (the statistics `_msearch`, then the hybrid lists' `_msearch`,
 * then the page's `_search`). A reset stand-in starts with no queue.
 */
function answer(path: string, ...responses: unknown[]): void {
  if (openSearch.respond !== cannedAnswer) {
    canned.clear();
    openSearch.respond = cannedAnswer;
  }
  canned.set(path, [...(canned.get(path) ?? []), ...responses]);
}

/** The answer to a statistics `_msearch`: how many records hold each term asked, then how many records there are. */
function counts(termCounts: readonly number[], documents: number) {
  return { took: 1, responses: [...termCounts, documents].map((count) => ({ ...hits([], count), status: 200 })) };
}

/** The statistics a keyword query is planned with: each term's document frequency and the record count. */
const statistics = (frequency: Record<string, number>, documents: number): TermStatistics => ({ frequency: new Map(Object.entries(frequency)), documents });

const GRANT_KEYWORD_FIELDS = ['title^2', 'description', 'funder_name^0.5', 'search_text.programs^0.5'];
/** How many grants hold a term: a cross_fields match of it alone, no hits, the exact total. */
const termCount = (term: string) => ({
  query: { multi_match: { query: term, type: 'cross_fields', fields: GRANT_KEYWORD_FIELDS, operator: 'or' } },
  size: 0,
  track_total_hits: true,
});
const RECORD_COUNT = { query: { match_all: {} }, size: 0, track_total_hits: true };
/** The NDJSON lines of a statistics `_msearch` of grants: a count per term, then the record count. */
const statisticsLines = (...terms: string[]) => [...terms.map(termCount), RECORD_COUNT].flatMap((body) => [{}, body]);

/** Floor 0.5 and upper reference 1: a semantic match's relevance is its cosine. */
const SCALE = { floor: 0.5, shortFloor: 0.5, lexicalFloor: 0.5, profileFloor: 0.4, upper: 1 };

describe('OpenSearch index mappings', () => {
  it("map every public field of every kind, plus the index's own fields, so no field is silently left unindexed", () => {
    for (const kind of RESOURCE_KINDS) {
      const properties = (indexMappings(kind, SPACE) as { properties: Record<string, unknown> }).properties;
      expect(Object.keys(properties).sort(), kind).toEqual([...Object.keys(RECORD_SCHEMAS[kind].shape), ...INTERNAL_FIELDS[kind]].sort());
      expect(Object.keys(INDEX_PROPERTIES[kind]).sort(), kind).toEqual(
        [...Object.keys(RECORD_SCHEMAS[kind].shape), ...INTERNAL_FIELDS[kind].filter((f) => f !== 'embedding')].sort(),
      );
    }
  });
});

describe.each(CLIENTS)('over the %s', (_name, make) => {
  beforeAll(() => {
    client = make;
  });

  describe('OpenSearchIndex writes', () => {
    it('creates the versioned index behind its alias on first write, with the k-NN mapping and _meta, then bulk-indexes records with their vectors', async () => {
      const index = adapter();
      await index.upsert(
        'funder',
        [funder('f-1', 'National Science Foundation'), funder('f-2', 'Forest Service')],
        [Float32Array.of(0.5, 0.5, 0.5, 0.5), null],
      );
      expect(calls()).toEqual(['GET /gcf-funders/_mapping', 'PUT /gcf-funders-v1', 'GET /gcf-funders/_mapping', 'POST /_bulk']);
      const created = JSON.parse(openSearch.requests[1]!.body);
      expect(created.aliases).toEqual({ 'gcf-funders': {} });
      expect(created.mappings).toEqual(indexMappings('funder', SPACE));
      expect(created.mappings._meta).toEqual({
        vector_space: { embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 4 },
        mapping_version: MAPPING_VERSION,
      });
      expect(created.mappings._source).toEqual({ excludes: ['embedding', 'identifier_keys', 'search_text'] });
      expect(created.mappings.properties.embedding).toEqual({
        type: 'knn_vector',
        dimension: 4,
        method: { name: 'hnsw', engine: 'lucene', space_type: 'cosinesimil', parameters: { m: 16, ef_construction: 128 } },
      });
      expect(created.settings.index).toMatchObject({ knn: true, auto_expand_replicas: '0-1', max_result_window: 10_100 });
      // No replica count given (a single node): one replica once a second node joins.
      expect(created.settings.index).not.toHaveProperty('number_of_replicas');
      // A deployment's count replaces it: a fixed number, which Multi-AZ domains need.
      const zoned = createIndexBody('grant', SPACE, 'gcf-grants', 2) as { settings: { index: Record<string, unknown> } };
      expect(zoned.settings.index).toMatchObject({ number_of_replicas: 2, knn: true });
      expect(zoned.settings.index).not.toHaveProperty('auto_expand_replicas');
      // Slow logs reach CloudWatch only over an index's own thresholds.
      expect(created.settings.index).toMatchObject({ 'search.slowlog.threshold.query.warn': '1s', 'indexing.slowlog.threshold.index.warn': '2s' });
      // The vector goes into `embedding`; a null vector leaves the field out. The keyword search's own fields go beside the record.
      const own = { identifier_keys: {}, search_text: { programs: '' } };
      expect(ndjson(openSearch.requests[3]!.body)).toEqual([
        { index: { _index: 'gcf-funders', _id: 'f-1' } },
        { ...funder('f-1', 'National Science Foundation'), ...own, embedding: [0.5, 0.5, 0.5, 0.5] },
        { index: { _index: 'gcf-funders', _id: 'f-2' } },
        { ...funder('f-2', 'Forest Service'), ...own },
      ]);
      // _source keeps the public record only.
      expect(openSearch.documents.get('gcf-funders/f-1')).toEqual(funder('f-1', 'National Science Foundation'));

      openSearch.requests = [];
      await index.upsert('funder', [funder('f-3', 'Indian Health Service')]);
      expect(calls()).toEqual(['POST /_bulk']);
    });

    it('indexes the legacy geography level of opportunities for the geography filter', async () => {
      existingIndex('grant');
      await adapter().upsert('grant', [
        grant(1, { states: ['TX'], geography: 'Local: Austin, TX' }),
        grant(2),
        grant(3, { states: ['CA', 'NV'], geography: 'Multi-state' }),
      ]);
      const documents = ndjson(openSearch.requests.at(-1)!.body).filter((_, i) => i % 2 === 1);
      expect(documents.map((d) => d.geography_level)).toEqual(['local', 'national', 'state']);
      expect(documents.map((d) => d.open_ended)).toEqual([true, true, true]);
      // Each record's identifier keys, by identifier field (core/search/identifiers.ts).
      expect(documents[0]!.identifier_keys).toEqual({
        agency_code: [],
        opportunity_number: ['1'].filter((key) => key.length >= 2),
        assistance_listing: [],
        title_code: [],
      });
      expect(documents.every((d) => !('embedding' in d))).toBe(true);
      expect(openSearch.documents.get(`gcf-grants/${grant(1).id}`)).toEqual(grant(1, { states: ['TX'], geography: 'Local: Austin, TX' }));
    });

    it('refuses a vector of another length before sending anything', async () => {
      existingIndex('grant');
      await expect(adapter().upsert('grant', [grant(1)], [Float32Array.of(1, 0)])).rejects.toThrow(
        'a 2-dimension vector cannot go into an index of bedrock:amazon.titan-embed-text-v2:0 (4 dimensions)',
      );
      expect(calls()).toEqual([]);
    });

    it('does not recreate an index that exists in the configured space', async () => {
      existingIndex('grant');
      await adapter().remove('grant', ['g-1']);
      expect(calls()).toEqual(['GET /gcf-grants/_mapping', 'POST /_bulk']);
      expect(ndjson(openSearch.requests[1]!.body)).toEqual([{ delete: { _index: 'gcf-grants', _id: 'g-1' } }]);
    });

    it('refuses to write into an index built with another embedder, naming both and the remedy', async () => {
      existingIndex('grant', OTHER_SPACE);
      const failure = adapter().upsert('grant', [grant(1)], [Float32Array.of(1, 0, 0, 0)]);
      await expect(failure).rejects.toBeInstanceOf(VectorSpaceMismatch);
      await expect(failure).rejects.toThrow(
        `The OpenSearch index gcf-grants (gcf-grants-v1 on ${openSearch.endpoint}) holds vectors from wink-sg-100d (100 dimensions), but the service is configured with bedrock:amazon.titan-embed-text-v2:0 (4 dimensions). ${REBUILD_REMEDY}`,
      );
      expect(REBUILD_REMEDY).toContain('npm run admin -- reindex --target aws --rebuild');
      expect(calls()).toEqual(['GET /gcf-grants/_mapping']);
    });

    it('treats an index made before vectors (no _meta) as another space', async () => {
      openSearch.createIndex('gcf-contracts-v1', { mappings: { dynamic: false, properties: {} }, aliases: { 'gcf-contracts': {} } });
      await expect(adapter().remove('contract', ['c-1'])).rejects.toThrow(/holds vectors from no embedder \(the index predates vector search\)/);
    });

    it('fails the write, naming the documents, when OpenSearch refuses some of a bulk', async () => {
      openSearch.bulkStatus.set('f-2', { status: 400, error: { type: 'mapper_parsing_exception', reason: 'failed to parse field [created_at]' } });
      await expect(adapter().upsert('funder', [funder('f-1', 'A'), funder('f-2', 'B')])).rejects.toThrow(
        'OpenSearch refused 1 of 2 funder documents (f-2: mapper_parsing_exception failed to parse field [created_at])',
      );
    });

    it('treats deleting a missing document as done', async () => {
      openSearch.bulkStatus.set('gone', { status: 404 });
      await expect(adapter().remove('contract', ['gone'])).resolves.toBeUndefined();
    });

    it("can use aliases of its own (a test's indices on a shared domain)", async () => {
      const index = new OpenSearchIndex(client(openSearch.endpoint), { space: SPACE, aliasPrefix: 'gcf-contract-1' });
      expect(index.aliasOf('grant')).toBe('gcf-contract-1-grants');
      await index.upsert('grant', [grant(1)]);
      expect(calls()).toEqual(['GET /gcf-contract-1-grants/_mapping', 'PUT /gcf-contract-1-grants-v1', 'GET /gcf-contract-1-grants/_mapping', 'POST /_bulk']);
    });

    it('needs the vector space', () => {
      expect(() => new OpenSearchIndex(client(openSearch.endpoint), 'https://domain' as never)).toThrow('needs the vector space');
    });
  });

  describe('OpenSearchIndex queries', () => {
    const record = (n: number) => ({ ...grant(n) });

    it('keyword: counts the terms, then sends the body built with those counts to the alias and maps hits to records, with no relevance', async () => {
      existingIndex('grant');
      const query = q({ search: 'police equipment', states: 'TX' });
      answer('/gcf-grants/_msearch', counts([40, 25], 1000));
      answer(
        '/gcf-grants/_search',
        hits(
          [
            { id: grant(2).id, score: 3.2, source: record(2) },
            { id: grant(1).id, score: 1.1, source: { ...record(1), geography_level: 'national' } },
          ],
          7,
        ),
      );
      const page = await adapter().query('grant', query);
      expect(calls()).toEqual(['POST /gcf-grants/_msearch', 'GET /gcf-grants/_mapping', 'POST /gcf-grants/_search']);
      expect(ndjson(openSearch.requests[0]!.body)).toEqual(statisticsLines('police', 'equipment'));
      expect(JSON.parse(openSearch.requests[2]!.body)).toEqual(keywordSearchBody('grant', query, statistics({ police: 40, equipment: 25 }, 1000)));
      // Both terms are telling (in at most 5% of the records): a record holding either is a partial match.
      expect(JSON.parse(openSearch.requests[2]!.body)).not.toEqual(keywordSearchBody('grant', query));
      // 5 more follow: the position after the last result.
      expect(page).toEqual({ total: 7, results: [grant(2), grant(1)], next: [1.1, grant(1).id] });
    });

    it('a listing counts no terms', async () => {
      existingIndex('grant');
      answer('/gcf-grants/_search', hits([{ id: grant(1).id, source: record(1) }]));
      await expect(adapter().query('grant', q({ sort_by: 'title' }))).resolves.toEqual({ total: 1, results: [grant(1)] });
      expect(calls()).toEqual(['GET /gcf-grants/_mapping', 'POST /gcf-grants/_search']);
    });

    it('keyword with neither a word nor a code to look for: total 0 (no_terms), no request', async () => {
      await expect(adapter().query('grant', q({ search: 'the grants for a' }))).resolves.toEqual({ total: 0, results: [], empty: { reason: 'no_terms' } });
      expect(calls()).toEqual([]);
    });

    it('count_only: the total, no results', async () => {
      existingIndex('grant');
      answer('/gcf-grants/_search', hits([], 42));
      await expect(adapter().query('grant', q({ count_only: 'true' }))).resolves.toEqual({ total: 42, results: [] });
      expect(JSON.parse(openSearch.requests[1]!.body)).toMatchObject({ size: 0, track_total_hits: true });
    });

    it('an empty keyword answer counts the matches with no filter, to say whether the filters emptied it', async () => {
      existingIndex('grant');
      const query = q({ search: 'police', states: 'TX' });
      answer('/gcf-grants/_msearch', counts([40], 1000));
      answer('/gcf-grants/_search', hits([], 0), hits([], 12));
      await expect(adapter().query('grant', query)).resolves.toEqual({ total: 0, results: [], empty: { reason: 'filtered_out', matchesWithoutFilters: 12 } });
      expect(calls()).toEqual(['POST /gcf-grants/_msearch', 'GET /gcf-grants/_mapping', 'POST /gcf-grants/_search', 'POST /gcf-grants/_search']);
      expect(JSON.parse(openSearch.requests[3]!.body)).toEqual(
        unfilteredCountBody('grant', 'police', 'keyword', undefined, null, DEFAULT_VECTOR_SEARCH.window, statistics({ police: 40 }, 1000)),
      );
      // Nothing without filters either: no record holds the word.
      openSearch.reset();
      existingIndex('grant');
      answer('/gcf-grants/_msearch', counts([40], 1000));
      answer('/gcf-grants/_search', hits([], 0), hits([], 0));
      await expect(adapter().query('grant', query)).resolves.toEqual({ total: 0, results: [], empty: { reason: 'no_match' } });
    });

    it('an identifier is looked up in the identifier fields beside the words', async () => {
      existingIndex('grant');
      const query = q({ search: 'PAR-25-098' });
      answer('/gcf-grants/_msearch', counts([3, 8, 2], 1000));
      answer('/gcf-grants/_search', hits([{ id: grant(1).id, score: 2_200_000, source: record(1) }], 1));
      await expect(adapter().query('grant', query)).resolves.toEqual({ total: 1, results: [grant(1)] });
      const body = JSON.parse(openSearch.requests[2]!.body);
      expect(body).toEqual(keywordSearchBody('grant', query, statistics({ par: 3, 25: 8, '098': 2 }, 1000)));
      expect(JSON.stringify(body)).toContain('"identifier_keys.opportunity_number":["PAR25098"]');
    });

    /** The answer to the query floor's `_msearch`: the best record's score, the best full keyword match's, the identifier matches' count. */
    const floorAnswer = (best: number | null, words: number | null | undefined, identifiers?: number) => ({
      took: 1,
      responses: [
        { ...hits(best === null ? [] : [{ id: grant(9).id, score: best }]), status: 200 },
        ...(words === undefined ? [] : [{ ...hits(words === null ? [] : [{ id: grant(8).id, score: words }]), status: 200 }]),
        ...(identifiers === undefined ? [] : [{ ...hits([], identifiers), status: 200 }]),
      ],
    });
    /** The query floor the adapter sets from a floor answer (query-floor.ts). */
    const floorOf = (bestScore: number, wordScore: number | null, words: number) =>
      queryFloorOf(
        {
          bestCosine: cosineOfOpenSearchScore(bestScore),
          bestWordCosine: wordScore === null ? Number.NaN : cosineOfOpenSearchScore(wordScore),
          identifierMatches: 0,
          words,
        },
        SCALE,
      );

    it('semantic: counts the terms, reads the query floor over the whole kind, then scans at that floor; relevance is the cosine from the score, (2s - 1), on the scale', async () => {
      existingIndex('grant');
      const query = q({ search: 'policing', search_mode: 'semantic', states: 'TX' });
      const semantic = { vector: Float32Array.of(1, 0, 0, 0), scale: SCALE };
      answer('/gcf-grants/_msearch', counts([30], 1000), floorAnswer(0.96, 0.95, 0));
      answer(
        '/gcf-grants/_search',
        hits([
          { id: grant(1).id, score: 0.96, source: record(1) },
          { id: grant(3).id, score: 0.9, source: record(3) },
        ]),
      );
      const page = await adapter().query('grant', query, semantic);
      expect(calls()).toEqual(['POST /gcf-grants/_msearch', 'GET /gcf-grants/_mapping', 'POST /gcf-grants/_msearch', 'POST /gcf-grants/_search']);
      const evidence = floorEvidenceBodies('grant', 'policing', semantic, statistics({ policing: 30 }, 1000));
      expect(evidence.reads).toEqual(['best', 'words', 'identifiers']);
      expect(ndjson(openSearch.requests[2]!.body)).toEqual(JSON.parse(JSON.stringify(msearchLines(evidence.bodies))));
      // The best record at cosine 0.92: the floor reaches FLOOR_SPREAD below it.
      const floor = floorOf(0.96, 0.95, 1);
      expect(floor).toMatchObject({ basis: 'similarity' });
      expect(floor.semanticFloor).toBeCloseTo(0.92 - FLOOR_SPREAD, 6);
      expect(JSON.parse(openSearch.requests[3]!.body)).toEqual(
        JSON.parse(JSON.stringify(semanticSearchBody('grant', query, semantic, floor, DEFAULT_VECTOR_SEARCH.window))),
      );
      expect(page).toEqual({
        total: 2,
        results: [
          { ...grant(1), relevance: 0.92 },
          { ...grant(3), relevance: 0.8 },
        ],
        floor,
      });
    });

    it('semantic off topic: no record reaches the floor, so nothing is scanned; the answer says why', async () => {
      existingIndex('grant');
      const semantic = { vector: Float32Array.of(1, 0, 0, 0), scale: SCALE };
      answer('/gcf-grants/_msearch', counts([30], 1000), floorAnswer(0.7, 0.65, 0));
      const page = await adapter().query('grant', q({ search: 'policing', search_mode: 'semantic' }), semantic);
      expect(calls()).toEqual(['POST /gcf-grants/_msearch', 'GET /gcf-grants/_mapping', 'POST /gcf-grants/_msearch']);
      expect(page).toMatchObject({ total: 0, results: [], empty: { reason: 'below_floor' }, floor: { basis: 'none', semanticFloor: null } });
    });

    it('semantic sorted by a field still carries relevance (track_scores)', async () => {
      existingIndex('grant');
      answer('/gcf-grants/_msearch', counts([30], 1000), floorAnswer(0.95, 0.95, 0));
      answer('/gcf-grants/_search', hits([{ id: grant(3).id, score: 0.95, source: record(3) }]));
      const page = await adapter().query('grant', q({ search: 'policing', search_mode: 'semantic', sort_by: 'title' }), {
        vector: Float32Array.of(1, 0, 0, 0),
        scale: SCALE,
      });
      expect(JSON.parse(openSearch.requests[3]!.body)).toMatchObject({
        track_scores: true,
        sort: [{ 'title.sort': { order: 'desc', missing: '_last' } }, { id: { order: 'desc' } }],
      });
      expect(page.results[0]!.relevance).toBe(0.9);
    });

    it('semantic with a null vector: total 0, no request', async () => {
      await expect(adapter().query('grant', q({ search: 'zzz', search_mode: 'semantic' }), { vector: null, scale: SCALE })).resolves.toEqual({
        total: 0,
        results: [],
        empty: { reason: 'below_floor' },
      });
      expect(calls()).toEqual([]);
    });

    describe('hybrid', () => {
      const [a, b, c, d] = [1, 2, 3, 4].map((n) => grant(n).id) as [string, string, string, string];
      const semantic = { vector: Float32Array.of(1, 0, 0, 0), scale: SCALE };
      /** The keyword list and the semantic list. */
      const lists = () => ({
        took: 2,
        responses: [
          {
            ...hits([
              { id: a, score: 5 },
              { id: b, score: 4 },
              { id: c, score: 3 },
            ]),
            status: 200,
          },
          {
            ...hits([
              { id: c, score: 0.99 },
              { id: d, score: 0.8 },
            ]),
            status: 200,
          },
        ],
      });
      /** An adapter whose window the keyword list (3 hits) fills. */
      const windowOfThree = () => new OpenSearchIndex(client(openSearch.endpoint), { space: SPACE, endpoint: openSearch.endpoint, vectors: { window: 3 } });
      /** The floor: the best record at 0.99 (cosine 0.98), the query answered on similarity. */
      const floor = () => floorAnswer(0.99, 0.99, 0);
      const fused = fuseHybrid(
        [
          { key: a, score: 5 },
          { key: b, score: 4 },
          { key: c, score: 3 },
        ],
        [
          { key: c, cosine: cosineOfOpenSearchScore(0.99) },
          { key: d, cosine: cosineOfOpenSearchScore(0.8) },
        ],
        SCALE,
      );
      const relevanceOf = (id: string) => Math.round(fused.find((hit) => hit.key === id)!.relevance * 10_000) / 10_000;

      it("continues after a position in the fused order; a full window's last page has no next, and pages past it are a 400", async () => {
        existingIndex('grant');
        const ordered = fused.map((hit) => hit.key);
        const record = (id: string) => ({ id, source: { ...grant(1), id } });
        // The keyword list fills the window of 3: the fused set's 4 records are a lower bound.
        answer('/gcf-grants/_msearch', counts([40, 25], 1000), floor(), lists());
        answer('/gcf-grants/_search', hits(ordered.slice(2, 4).map(record)));
        const after = [fused[1]!.score, fused[1]!.key];
        const index = windowOfThree();
        const page = await index.query('grant', { ...q({ search: 'police equipment', search_mode: 'hybrid', limit: '2' }), after }, semantic);
        expect(page.results.map((r) => r.id)).toEqual(ordered.slice(2, 4));
        expect(page).toMatchObject({ total: 4, totalRelation: 'gte' });
        expect(page).not.toHaveProperty('next');
        // The floor of the text is kept: the next query reads the lists alone.
        answer('/gcf-grants/_msearch', lists());
        const past = await index
          .query('grant', { ...q({ search: 'police equipment', search_mode: 'hybrid', limit: '2' }), after: [fused[3]!.score, fused[3]!.key] }, semantic)
          .catch((error: unknown) => error);
        expect(past).toMatchObject({
          status: 400,
          code: 'INVALID_PARAMETER',
          details: [
            {
              field: 'cursor',
              issue: expect.stringMatching(/^goes past the 4 best results hybrid search ranks here .*pages reach result 4\. Narrow the search with filters/),
            },
          ],
        });
        answer('/gcf-grants/_msearch', lists());
        await expect(index.query('grant', q({ search: 'police equipment', search_mode: 'hybrid', offset: '4' }), semantic)).rejects.toMatchObject({
          status: 400,
          details: [{ field: 'offset' }],
        });
      });

      it('counts the terms, reads the floor, issues one _msearch of the two id lists, fuses them, and reads the page by id in fused order', async () => {
        existingIndex('grant');
        const query = q({ search: 'police equipment', search_mode: 'hybrid', limit: '3' });
        answer('/gcf-grants/_msearch', counts([40, 25], 1000), floor(), lists());
        // Returned in another order than asked: the adapter puts them back in fused order.
        answer(
          '/gcf-grants/_search',
          hits([
            { id: a, source: record(1) },
            { id: c, source: record(3) },
            { id: d, source: record(4) },
          ]),
        );
        const page = await adapter().query('grant', query, semantic);
        expect(calls()).toEqual([
          'POST /gcf-grants/_msearch',
          'GET /gcf-grants/_mapping',
          'POST /gcf-grants/_msearch',
          'POST /gcf-grants/_msearch',
          'POST /gcf-grants/_search',
        ]);
        expect(ndjson(openSearch.requests[0]!.body)).toEqual(statisticsLines('police', 'equipment'));
        const queryFloor = floorOf(0.99, 0.99, 2);
        const bodies = hybridRankBodies('grant', query, semantic, queryFloor, DEFAULT_VECTOR_SEARCH.window, statistics({ police: 40, equipment: 25 }, 1000));
        expect(ndjson(openSearch.requests[3]!.body)).toEqual(JSON.parse(JSON.stringify(msearchLines([bodies.keyword!, bodies.semantic!]))));
        // The semantic relevance weighs 0.7, the keyword part 0.3: d (semantic alone, cosine 0.6) passes a (the best keyword match alone).
        expect(JSON.parse(openSearch.requests[4]!.body)).toMatchObject({ query: { ids: { values: [c, d, a] } }, size: 3 });
        expect(page.total).toBe(4);
        expect(page).not.toHaveProperty('totalRelation');
        expect(page.results).toEqual([
          { ...grant(3), relevance: relevanceOf(c) },
          { ...grant(4), relevance: relevanceOf(d) },
          { ...grant(1), relevance: relevanceOf(a) },
        ]);
        // Cosine 0.98 and a BM25 of 3 against the best 5: 0.7 x 0.98 + 0.3 x 0.6.
        expect(page.results[0]!.relevance).toBe(0.866);
      });

      it('off topic: no basis for a floor, so nothing at all, whatever the words match', async () => {
        existingIndex('grant');
        answer('/gcf-grants/_msearch', counts([40, 25], 1000), floorAnswer(0.7, 0.6, 0));
        const page = await adapter().query('grant', q({ search: 'police equipment', search_mode: 'hybrid' }), semantic);
        expect(calls()).toEqual(['POST /gcf-grants/_msearch', 'GET /gcf-grants/_mapping', 'POST /gcf-grants/_msearch']);
        expect(page).toMatchObject({ total: 0, results: [], empty: { reason: 'below_floor' } });
      });

      it('sorted by a field: the index sorts the fused set; relevance is still the fused score', async () => {
        existingIndex('grant');
        const query = q({ search: 'police equipment', search_mode: 'hybrid', sort_by: 'deadline_date', order: 'asc', limit: '2', offset: '1' });
        answer('/gcf-grants/_msearch', counts([40, 25], 1000), floor(), lists());
        answer(
          '/gcf-grants/_search',
          hits([
            { id: d, source: record(4) },
            { id: b, source: record(2) },
          ]),
        );
        const page = await adapter().query('grant', query, semantic);
        expect(JSON.parse(openSearch.requests[4]!.body)).toEqual({
          query: { bool: { filter: [{ ids: { values: fused.map((hit) => hit.key) } }] } },
          sort: [{ deadline_date: { order: 'asc', missing: 253_402_214_400_000 } }, { id: { order: 'asc' } }],
          from: 1,
          size: 2,
          track_total_hits: false,
          _source: { excludes: [...INTERNAL_FIELDS.grant] },
        });
        expect(page).toMatchObject({
          total: 4,
          results: [
            { ...grant(4), relevance: relevanceOf(d) },
            { ...grant(2), relevance: relevanceOf(b) },
          ],
          next: [null, b],
        });
      });

      it('count_only: the fused set size from the _msearch alone', async () => {
        existingIndex('grant');
        answer('/gcf-grants/_msearch', counts([40], 1000), floor(), lists());
        await expect(adapter().query('grant', q({ search: 'police', search_mode: 'hybrid', count_only: 'true' }), semantic)).resolves.toMatchObject({
          total: 4,
          results: [],
        });
        expect(calls()).toEqual(['POST /gcf-grants/_msearch', 'GET /gcf-grants/_mapping', 'POST /gcf-grants/_msearch', 'POST /gcf-grants/_msearch']);
      });

      it('the total is the fused set: exact when neither list filled the window, a lower bound (gte) when one did', async () => {
        existingIndex('grant');
        answer('/gcf-grants/_msearch', counts([40], 1000), floor(), lists());
        const exact = await adapter().query('grant', q({ search: 'police', search_mode: 'hybrid', count_only: 'true' }), semantic);
        expect(exact).toMatchObject({ total: 4, results: [] });
        expect(exact).not.toHaveProperty('totalRelation');
        openSearch.reset();
        existingIndex('grant');
        answer('/gcf-grants/_msearch', counts([40], 1000), floor(), lists());
        await expect(windowOfThree().query('grant', q({ search: 'police', search_mode: 'hybrid', count_only: 'true' }), semantic)).resolves.toMatchObject({
          total: 4,
          totalRelation: 'gte',
          results: [],
        });
      });

      it('facets count the fused set: its ids go to the cluster beside the page', async () => {
        existingIndex('grant');
        answer('/gcf-grants/_msearch', counts([40], 1000), floor(), lists());
        answer('/gcf-grants/_search', { ...hits([], 0), aggregations: { facet_status: { posted: { doc_count: 4 } } } });
        const page = await adapter().query('grant', q({ search: 'police', search_mode: 'hybrid', count_only: 'true', facets: 'status' }), semantic);
        expect(JSON.parse(openSearch.requests[4]!.body)).toMatchObject({
          query: { bool: { filter: [{ ids: { values: fused.map((hit) => hit.key) } }] } },
          size: 0,
        });
        expect(page.facets).toBeDefined();
      });

      it('a null vector (the model did not answer) fuses the keyword list alone, with no floor to read', async () => {
        existingIndex('grant');
        answer('/gcf-grants/_msearch', counts([40], 1000), {
          took: 1,
          responses: [
            {
              ...hits([
                { id: b, score: 2 },
                { id: a, score: 1 },
              ]),
              status: 200,
            },
          ],
        });
        const query = q({ search: 'police', search_mode: 'hybrid', count_only: 'true' });
        const withoutVector = { vector: null, scale: SCALE };
        const page = await adapter().query('grant', query, withoutVector);
        const bodies = hybridRankBodies('grant', query, withoutVector, null, DEFAULT_VECTOR_SEARCH.window, statistics({ police: 40 }, 1000));
        expect(calls()).toEqual(['POST /gcf-grants/_msearch', 'GET /gcf-grants/_mapping', 'POST /gcf-grants/_msearch']);
        expect(ndjson(openSearch.requests[2]!.body)).toEqual(msearchLines([bodies.keyword!]));
        expect(page.total).toBe(2);
      });

      it('a failed or missing list fails the query', async () => {
        existingIndex('grant');
        answer('/gcf-grants/_msearch', counts([40], 1000), floor(), {
          took: 1,
          responses: [lists().responses[0], { error: { type: 'search_phase_execution_exception', reason: 'all shards failed' }, status: 503 }],
        });
        await expect(adapter().query('grant', q({ search: 'police', search_mode: 'hybrid' }), semantic)).rejects.toMatchObject({
          status: 503,
          code: 'SEARCH_UNAVAILABLE',
        } satisfies Partial<ServiceError>);
        openSearch.reset();
        existingIndex('grant');
        answer('/gcf-grants/_msearch', counts([40], 1000), floor(), { took: 1, responses: lists().responses.slice(0, 1) });
        await expect(adapter().query('grant', q({ search: 'police', search_mode: 'hybrid' }), semantic)).rejects.toMatchObject({
          status: 503,
          code: 'SEARCH_UNAVAILABLE',
        } satisfies Partial<ServiceError>);
      });

      it('a failed search inside the _msearch fails the query (503 when the domain failed)', async () => {
        existingIndex('grant');
        answer('/gcf-grants/_msearch', counts([40], 1000), floor(), {
          took: 1,
          responses: [lists().responses[0], { error: { type: 'search_phase_execution_exception', reason: 'all shards failed' }, status: 503 }],
        });
        await expect(adapter().query('grant', q({ search: 'police', search_mode: 'hybrid' }), semantic)).rejects.toMatchObject({
          status: 503,
          code: 'SEARCH_UNAVAILABLE',
        } satisfies Partial<ServiceError>);
        // It was the lists' _msearch that failed, after the statistics and the floor.
        expect(calls()).toEqual(['POST /gcf-grants/_msearch', 'GET /gcf-grants/_mapping', 'POST /gcf-grants/_msearch', 'POST /gcf-grants/_msearch']);
      });
    });

    describe('term statistics', () => {
      afterEach(() => {
        vi.useRealTimers();
      });
      const GRANT_SOURCE = { excludes: [...INTERNAL_FIELDS.grant] };
      const BY_RELEVANCE = [{ _score: { order: 'desc' } }, { id: { order: 'asc' } }];
      const counted = (terms: string) => ({
        multi_match: { query: terms, type: 'cross_fields', fields: GRANT_KEYWORD_FIELDS, operator: 'or', minimum_should_match: '2<-34% 4<-50%' },
      });
      /** Any one of the terms (no minimum-should-match): every term scores, and a telling term is in the record. */
      const oneOf = (terms: string) => ({ multi_match: { query: terms, type: 'cross_fields', fields: GRANT_KEYWORD_FIELDS, operator: 'or' } });
      const phrase = (terms: string) => ({ multi_match: { query: terms, type: 'phrase', slop: 2, fields: ['title^2', 'description'], boost: 2 } });
      /** The word clause of a keyword search body of a text of more than three words (no identifier lookup, no filters: `{ bool: { must: [clause] } }`). */
      const keywordOf = (body: unknown) => (body as { query: { bool: { must: unknown[] } } }).query.bool.must[0];
      const found = () => hits([{ id: grant(1).id, source: record(1) }], 1);

      it('are counted once per term and kind and trusted for ten minutes: a new term is counted alone (with the record count), a stale one again', async () => {
        vi.useFakeTimers({ toFake: ['Date'] });
        const start = Date.parse('2026-11-22T10:00:00.000Z');
        vi.setSystemTime(start);
        existingIndex('grant');
        existingIndex('contract');
        // The index check holds all along: only the statistics and the searches show.
        const index = new OpenSearchIndex(client(openSearch.endpoint), { space: SPACE, recheckAfterMs: 60 * 60_000 });
        answer('/gcf-grants/_search', found(), found(), found(), found());
        const searchBody = () => JSON.parse(openSearch.requests.find((r) => r.path === '/gcf-grants/_search')!.body) as unknown;
        const everywhere = { opportunity_type: 'all' };

        answer('/gcf-grants/_msearch', counts([40, 25], 1000));
        await index.query('grant', q({ search: 'police equipment' }));
        expect(calls()).toEqual(['POST /gcf-grants/_msearch', 'GET /gcf-grants/_mapping', 'POST /gcf-grants/_search']);
        expect(ndjson(openSearch.requests[0]!.body)).toEqual(statisticsLines('police', 'equipment'));

        // Two minutes on, a new term: only it is counted, with the record count.
        openSearch.requests = [];
        vi.setSystemTime(start + 2 * 60_000);
        answer('/gcf-grants/_msearch', counts([3], 1010));
        await index.query('grant', q({ search: 'police radios' }));
        expect(calls()).toEqual(['POST /gcf-grants/_msearch', 'POST /gcf-grants/_search']);
        expect(ndjson(openSearch.requests[0]!.body)).toEqual(statisticsLines('radios'));
        expect(searchBody()).toEqual(keywordSearchBody('grant', q({ search: 'police radios' }), statistics({ police: 40, radios: 3 }, 1010)));

        // The same terms again, in another order, just under ten minutes after they were counted: no statistics request.
        openSearch.requests = [];
        vi.setSystemTime(start + 10 * 60_000 - 1);
        await index.query('grant', q({ search: 'equipment for police' }));
        expect(calls()).toEqual(['POST /gcf-grants/_search']);
        expect(searchBody()).toEqual(keywordSearchBody('grant', q({ search: 'equipment for police' }), statistics({ equipment: 25, police: 40 }, 1010)));

        // Ten minutes after: the stale terms are counted again (radios, counted later, is not), with the record count.
        openSearch.requests = [];
        vi.setSystemTime(start + 10 * 60_000);
        answer('/gcf-grants/_msearch', counts([700, 25], 1020));
        await index.query('grant', q({ search: 'police and equipment and radios', ...everywhere }));
        expect(calls()).toEqual(['POST /gcf-grants/_msearch', 'POST /gcf-grants/_search']);
        expect(ndjson(openSearch.requests[0]!.body)).toEqual(statisticsLines('police', 'equipment'));
        // The new count makes police common (700 of 1020 records): a full match must hold one of the telling terms, and either of them alone is a partial match.
        const full = { bool: { filter: [counted('police equipment radios'), oneOf('equipment radios')] } };
        expect(keywordOf(searchBody())).toEqual({
          bool: {
            must: [oneOf('police equipment radios')],
            filter: [{ bool: { should: [full, oneOf('equipment radios')], minimum_should_match: 1 } }],
            should: [phrase('police equipment radios')],
          },
        });

        // Another kind's counts are its own.
        openSearch.requests = [];
        answer('/gcf-contracts/_msearch', counts([12], 300));
        answer('/gcf-contracts/_search', found());
        await index.query('contract', q({ search: 'police' }, 'contract') as never);
        expect(calls()).toEqual(['POST /gcf-contracts/_msearch', 'GET /gcf-contracts/_mapping', 'POST /gcf-contracts/_search']);
        expect(ndjson(openSearch.requests[0]!.body)).toEqual(
          statisticsLines('police').map((line) => JSON.parse(JSON.stringify(line).replaceAll('search_text.programs^0.5', 'search_text.programs^0.5'))),
        );
      });

      it('with a common term, a full match must hold one of the telling terms', async () => {
        existingIndex('grant');
        const query = q({ search: 'programs to quit the smoking', opportunity_type: 'all' });
        // programs is in 60% of the records; quit in exactly 5% (still telling), smoking in 2%.
        answer('/gcf-grants/_msearch', counts([600, 50, 20], 1000));
        answer('/gcf-grants/_search', found());
        await expect(adapter().query('grant', query)).resolves.toEqual({ total: 1, results: [grant(1)] });
        expect(ndjson(openSearch.requests[0]!.body)).toEqual(statisticsLines('programs', 'quit', 'smoking'));
        const full = { bool: { filter: [counted('programs quit smoking'), oneOf('quit smoking')] } };
        expect(JSON.parse(openSearch.requests[2]!.body)).toEqual({
          query: {
            bool: {
              must: [
                {
                  bool: {
                    must: [oneOf('programs quit smoking')],
                    filter: [{ bool: { should: [full, oneOf('quit smoking')], minimum_should_match: 1 } }],
                    should: [phrase('programs quit smoking')],
                  },
                },
              ],
            },
          },
          sort: BY_RELEVANCE,
          from: 0,
          size: 20,
          track_total_hits: true,
          _source: GRANT_SOURCE,
        });
        // Without the statistics there is no such condition.
        expect(keywordOf(keywordSearchBody('grant', query))).toEqual({
          bool: { must: [oneOf('programs quit smoking')], filter: [counted('programs quit smoking')], should: [phrase('programs quit smoking')] },
        });
      });

      it('a term in no record is not counted; when no term is in any record and the text is no identifier, the answer is nothing and nothing is searched', async () => {
        existingIndex('grant');
        answer('/gcf-grants/_msearch', counts([30, 0], 1000));
        answer('/gcf-grants/_search', found());
        await adapter().query('grant', q({ search: 'to quit the smokng', opportunity_type: 'all' }));
        // quit is the only term counted (and telling, as every counted term is: no separate condition); both are in the phrase.
        expect(keywordOf(JSON.parse(openSearch.requests[2]!.body))).toEqual({
          bool: { must: [oneOf('quit')], filter: [counted('quit')], should: [phrase('quit smokng')] },
        });

        openSearch.reset();
        existingIndex('grant');
        answer('/gcf-grants/_msearch', counts([0, 0], 1000));
        await expect(adapter().query('grant', q({ search: 'the smokng and vapng' }))).resolves.toEqual({
          total: 0,
          results: [],
          empty: { reason: 'no_match' },
        });
        expect(calls()).toEqual(['POST /gcf-grants/_msearch', 'GET /gcf-grants/_mapping']);
        expect(ndjson(openSearch.requests[0]!.body)).toEqual(statisticsLines('smokng', 'vapng'));
      });

      it('a hybrid query whose terms are in no record fuses its semantic list with its identifier lookup alone', async () => {
        existingIndex('grant');
        const semantic = { vector: Float32Array.of(1, 0, 0, 0), scale: SCALE };
        const query = q({ search: 'smokng vapng', search_mode: 'hybrid', count_only: 'true' });
        const floor = {
          took: 1,
          responses: [
            { ...hits([{ id: grant(1).id, score: 0.9 }]), status: 200 },
            { ...hits([], 0), status: 200 },
          ],
        };
        const lists = {
          took: 1,
          responses: [
            { ...hits([]), status: 200 },
            { ...hits([{ id: grant(1).id, score: 0.9 }]), status: 200 },
          ],
        };
        answer('/gcf-grants/_msearch', counts([0, 0], 1000), floor, lists);
        await expect(adapter().query('grant', query, semantic)).resolves.toMatchObject({ total: 1, results: [] });
        // No word can match: the floor reads no full keyword match.
        expect(ndjson(openSearch.requests[2]!.body)).toHaveLength(4);
        const queryFloor = queryFloorOf({ bestCosine: cosineOfOpenSearchScore(0.9), bestWordCosine: Number.NaN, identifierMatches: 0, words: 2 }, SCALE);
        const bodies = hybridRankBodies('grant', query, semantic, queryFloor, DEFAULT_VECTOR_SEARCH.window, statistics({ smokng: 0, vapng: 0 }, 1000));
        expect(JSON.stringify(bodies.keyword)).not.toContain('multi_match');
        expect(ndjson(openSearch.requests[3]!.body)).toEqual(JSON.parse(JSON.stringify(msearchLines([bodies.keyword!, bodies.semantic!]))));
      });

      it('a failed or missing count fails the query; only what was counted is kept, so a missing record count is counted alone', async () => {
        existingIndex('grant');
        const index = adapter();
        const failed = { error: { type: 'search_phase_execution_exception', reason: 'all shards failed' }, status: 503 };
        // The term's count failed: nothing is searched.
        answer('/gcf-grants/_msearch', { took: 1, responses: [failed, { ...hits([], 1000), status: 200 }] });
        await expect(index.query('grant', q({ search: 'police' }))).rejects.toMatchObject({
          status: 503,
          code: 'SEARCH_UNAVAILABLE',
        } satisfies Partial<ServiceError>);
        expect(calls()).toEqual(['POST /gcf-grants/_msearch']);

        // Nothing was kept: all is counted again, and now the record count fails.
        openSearch.requests = [];
        answer('/gcf-grants/_msearch', { took: 1, responses: [{ ...hits([], 40), status: 200 }, failed] });
        await expect(index.query('grant', q({ search: 'police' }))).rejects.toMatchObject({
          status: 503,
          code: 'SEARCH_UNAVAILABLE',
        } satisfies Partial<ServiceError>);
        expect(calls()).toEqual(['POST /gcf-grants/_msearch']);
        expect(ndjson(openSearch.requests[0]!.body)).toEqual(statisticsLines('police'));

        // The term's count was kept: only the record count is asked for.
        openSearch.requests = [];
        answer('/gcf-grants/_msearch', counts([], 1000));
        answer('/gcf-grants/_search', hits([{ id: grant(1).id, source: grant(1) }], 1));
        await expect(index.query('grant', q({ search: 'police' }))).resolves.toEqual({ total: 1, results: [grant(1)] });
        expect(calls()).toEqual(['POST /gcf-grants/_msearch', 'GET /gcf-grants/_mapping', 'POST /gcf-grants/_search']);
        expect(ndjson(openSearch.requests[0]!.body)).toEqual([{}, RECORD_COUNT]);
        expect(JSON.parse(openSearch.requests[2]!.body)).toEqual(keywordSearchBody('grant', q({ search: 'police' }), statistics({ police: 40 }, 1000)));

        // A missing count (fewer answers than searches) fails the query too.
        openSearch.reset();
        existingIndex('grant');
        answer('/gcf-grants/_msearch', { took: 1, responses: [{ ...hits([], 40), status: 200 }] });
        await expect(adapter().query('grant', q({ search: 'police' }))).rejects.toMatchObject({
          status: 503,
          code: 'SEARCH_UNAVAILABLE',
        } satisfies Partial<ServiceError>);
      });

      it('counts on a missing index are 503 SEARCH_UNAVAILABLE, naming the index', async () => {
        // OpenSearch answers an _msearch on a missing index with a 404 item per search.
        const missingIndex = {
          error: {
            root_cause: [{ type: 'index_not_found_exception', reason: 'no such index [gcf-grants]' }],
            type: 'index_not_found_exception',
            reason: 'no such index [gcf-grants]',
          },
          status: 404,
        };
        answer('/gcf-grants/_msearch', { took: 1, responses: [missingIndex, missingIndex] });
        await expect(adapter().query('grant', q({ search: 'police' }))).rejects.toMatchObject({
          status: 503,
          code: 'SEARCH_UNAVAILABLE',
          message: 'The grant search index is not available; it is created when the service is deployed',
        });
        expect(calls()).toEqual(['POST /gcf-grants/_msearch']);
      });
    });

    it('refuses semantic and hybrid queries on an index built with another embedder (503, the remedy in the logged cause), but still lists and keyword-searches it', async () => {
      existingIndex('grant', OTHER_SPACE);
      const index = adapter();
      const semantic = { vector: Float32Array.of(1, 0, 0, 0), scale: SCALE };
      // Both count their terms (no vectors read) before they are refused; they search nothing.
      answer('/gcf-grants/_msearch', counts([40], 1000));
      const refused = await index.query('grant', q({ search: 'police', search_mode: 'semantic' }), semantic).catch((error: unknown) => error);
      expect(refused).toMatchObject({
        status: 503,
        code: 'SEARCH_UNAVAILABLE',
        message: expect.stringMatching(/another embedding model.*keyword search still works/),
      });
      expect((refused as Error).cause).toBeInstanceOf(VectorSpaceMismatch);
      expect(((refused as Error).cause as Error).message).toContain(REBUILD_REMEDY);
      await expect(index.query('grant', q({ search: 'police', search_mode: 'hybrid' }), semantic)).rejects.toMatchObject({ status: 503 });
      expect(calls().filter((call) => call.endsWith('search'))).toEqual(['POST /gcf-grants/_msearch']);
      expect(ndjson(openSearch.requests.find((r) => r.path.endsWith('_msearch'))!.body)).toEqual(statisticsLines('police'));
      // The keyword search reuses those counts.
      openSearch.requests = [];
      answer('/gcf-grants/_search', hits([{ id: grant(1).id, source: grant(1) }]));
      await expect(index.query('grant', q({ search: 'police' }))).resolves.toEqual({ total: 1, results: [grant(1)] });
      expect(calls()).toEqual(['POST /gcf-grants/_search']);
    });

    it('checks the index again after a while, so an alias moved by a rebuild is noticed', async () => {
      existingIndex('grant');
      const index = new OpenSearchIndex(client(openSearch.endpoint), { space: SPACE, recheckAfterMs: 0 });
      await index.remove('grant', ['g-1']);
      await index.remove('grant', ['g-2']);
      expect(calls()).toEqual(['GET /gcf-grants/_mapping', 'POST /_bulk', 'GET /gcf-grants/_mapping', 'POST /_bulk']);
      openSearch.createIndex('gcf-grants-v2', createIndexBody('grant', OTHER_SPACE) as never);
      openSearch.aliases.set('gcf-grants', new Set(['gcf-grants-v2']));
      await expect(index.remove('grant', ['g-3'])).rejects.toBeInstanceOf(VectorSpaceMismatch);
    });

    it('a missing index is 503 SEARCH_UNAVAILABLE (the bootstrap creates it), and a reader never creates it', async () => {
      await expect(adapter().query('grant', q({}))).rejects.toMatchObject({
        status: 503,
        code: 'SEARCH_UNAVAILABLE',
        message: 'The grant search index is not available; it is created when the service is deployed',
      });
      expect(calls()).toEqual(['GET /gcf-grants/_mapping']);
    });

    it('an unreachable domain is 503 SEARCH_UNAVAILABLE with a clear message, no endpoint and no stack', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const index = new OpenSearchIndex(client(`http://127.0.0.1:${port}`, { maxRetries: 0 }), { space: SPACE, endpoint: `http://127.0.0.1:${port}` });
      const failure = await index.query('grant', q({ search: 'police' })).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ServiceError);
      expect(failure).toMatchObject({ status: 503, code: 'SEARCH_UNAVAILABLE', message: 'The search service cannot be reached right now; try again shortly' });
      expect((failure as Error).message).not.toContain(String(port));
    });

    it.each([503, 502, 500, 429])('a domain answering %i is 503 SEARCH_UNAVAILABLE', async (status) => {
      existingIndex('grant');
      openSearch.respond = (request) =>
        request.path.endsWith('/_search') ? { status, json: { error: { type: 'cluster_block_exception', reason: 'busy' }, status } } : undefined;
      await expect(new OpenSearchIndex(client(openSearch.endpoint, { maxRetries: 0 }), { space: SPACE }).query('grant', q({}))).rejects.toMatchObject({
        status: 503,
        code: 'SEARCH_UNAVAILABLE',
      });
    });

    it('a query the domain refuses is an internal error (500 at the API), naming the refusal', async () => {
      existingIndex('grant');
      openSearch.respond = (request) =>
        request.path.endsWith('/_search')
          ? { status: 400, json: { error: { type: 'x_content_parse_exception', reason: 'unknown field' }, status: 400 } }
          : undefined;
      const failure = await adapter()
        .query('grant', q({}))
        .catch((error: unknown) => error);
      expect(failure).not.toBeInstanceOf(ServiceError);
      expect((failure as Error).message).toBe('OpenSearch refused the grant query (400): x_content_parse_exception unknown field');
    });
  });

  describe('ensureIndices (the deploy-time bootstrap)', () => {
    it('creates each missing index behind its alias, then finds them: idempotent', async () => {
      const index = adapter();
      const first = await index.ensureIndices(RESOURCE_KINDS);
      expect(first).toEqual([
        { kind: 'grant', alias: 'gcf-grants', status: 'created', indices: ['gcf-grants-v1'] },
        { kind: 'contract', alias: 'gcf-contracts', status: 'created', indices: ['gcf-contracts-v1'] },
        { kind: 'funder', alias: 'gcf-funders', status: 'created', indices: ['gcf-funders-v1'] },
      ]);
      expect(openSearch.requests.filter((r) => r.method === 'PUT').map((r) => r.path)).toEqual(['/gcf-grants-v1', '/gcf-contracts-v1', '/gcf-funders-v1']);
      expect(openSearch.mappings.get('gcf-contracts-v1')).toEqual(indexMappings('contract', SPACE));

      openSearch.requests = [];
      const second = await adapter().ensureIndices(RESOURCE_KINDS);
      expect(second.map((check) => check.status)).toEqual(['found', 'found', 'found']);
      expect(openSearch.requests.every((r) => r.method === 'GET')).toBe(true);
    });

    it('reports an index of another vector space without touching it', async () => {
      existingIndex('grant', OTHER_SPACE);
      const [check] = await adapter().ensureIndices(['grant']);
      expect(check).toMatchObject({ kind: 'grant', status: 'mismatch', indices: ['gcf-grants-v1'], found: OTHER_SPACE });
      expect(check!.message).toContain(REBUILD_REMEDY);
      expect(calls()).toEqual(['GET /gcf-grants/_mapping']);
    });
  });

  describe('the bootstrap custom resource', () => {
    const event = (RequestType: 'Create' | 'Update' | 'Delete', space: VectorSpace = SPACE) => ({
      RequestType,
      PhysicalResourceId: RequestType === 'Create' ? undefined : PHYSICAL_RESOURCE_ID,
      ResourceProperties: { ServiceToken: 'arn:aws:lambda:...', Embedder: space.embedder, Dimensions: String(space.dimensions) },
    });
    const indexFor = (space: VectorSpace) => adapter(space);

    it('Create and Update ensure the indices in the space of the properties and report what was done', async () => {
      await expect(bootstrapSearchIndices(event('Create'), indexFor)).resolves.toEqual({
        PhysicalResourceId: 'gcf-search-indices',
        Data: { grant: 'created gcf-grants-v1', contract: 'created gcf-contracts-v1', funder: 'created gcf-funders-v1' },
      });
      expect(JSON.parse(openSearch.requests.find((r) => r.method === 'PUT')!.body).mappings.properties.embedding.dimension).toBe(4);
      await expect(bootstrapSearchIndices(event('Update'), indexFor)).resolves.toMatchObject({ Data: { grant: 'found gcf-grants-v1' } });
    });

    it("fails the deployment when an index holds another embedder's vectors, with the remedy", async () => {
      await bootstrapSearchIndices(event('Create', OTHER_SPACE), indexFor);
      await expect(bootstrapSearchIndices(event('Update'), indexFor)).rejects.toThrow(REBUILD_REMEDY);
      await expect(bootstrapSearchIndices(event('Update'), indexFor)).rejects.toThrow(/gcf-grants .*wink-sg-100d \(100 dimensions\).* gcf-contracts /);
    });

    it('retries a 403 for about 30 s (IAM reaching a new domain), then succeeds; a 403 past that, or any other refusal, fails at once', async () => {
      let clock = 0;
      const waits: number[] = [];
      const retry = {
        forMs: 30_000,
        backoff: { baseMs: 500, maxMs: 5_000 },
        random: () => 0.5,
        now: () => clock,
        sleep: async (ms: number) => {
          waits.push(ms);
          clock += ms;
        },
      };
      let refusals = 3;
      openSearch.respond = () => (refusals-- > 0 ? { status: 403, json: { message: 'no permissions for [indices:admin/mappings/get]' } } : undefined);
      await expect(bootstrapSearchIndices(event('Create'), indexFor, retry)).resolves.toMatchObject({ Data: { grant: 'created gcf-grants-v1' } });
      expect(waits).toEqual([250, 500, 1_000]);

      openSearch.reset();
      clock = 0;
      waits.length = 0;
      openSearch.respond = () => ({ status: 403, json: { message: 'no permissions' } });
      await expect(bootstrapSearchIndices(event('Create'), indexFor, retry)).rejects.toMatchObject({ statusCode: 403 });
      expect(clock).toBeGreaterThanOrEqual(30_000);
      expect(clock).toBeLessThan(40_000);

      openSearch.reset();
      waits.length = 0;
      openSearch.respond = () => ({ status: 400, json: { error: { type: 'illegal_argument_exception' } } });
      await expect(bootstrapSearchIndices(event('Create'), indexFor, retry)).rejects.toMatchObject({ statusCode: 400 });
      expect(waits).toEqual([]);
    });

    it('Delete retains the indices (no request)', async () => {
      await expect(bootstrapSearchIndices(event('Delete'), indexFor)).resolves.toEqual({ PhysicalResourceId: PHYSICAL_RESOURCE_ID });
      expect(calls()).toEqual([]);
    });

    it('refuses properties without a usable space', async () => {
      await expect(bootstrapSearchIndices({ RequestType: 'Create', ResourceProperties: { Embedder: 'x', Dimensions: 'many' } }, indexFor)).rejects.toThrow(
        'Dimensions as a positive integer',
      );
    });
  });

  it("refreshes each kind's alias on request, every kind by default, so what was written is searchable at once", async () => {
    for (const kind of RESOURCE_KINDS) existingIndex(kind);
    openSearch.requests = [];
    await adapter().refresh();
    expect(calls()).toEqual(['GET /gcf-grants/_refresh', 'GET /gcf-contracts/_refresh', 'GET /gcf-funders/_refresh']);
    openSearch.requests = [];
    await adapter().refresh(['contract']);
    expect(calls()).toEqual(['GET /gcf-contracts/_refresh']);
  });

  describe('rebuild (zero-downtime reindex into a new index)', () => {
    it('fills a new versioned index, moves the alias in one atomic _aliases request, then deletes the old index', async () => {
      existingIndex('grant', OTHER_SPACE);
      const result = await adapter().rebuild(
        'grant',
        async (write) => {
          await write([grant(1), grant(2)], [Float32Array.of(0, 1, 0, 0), null]);
          await write([grant(3)]);
        },
        { now: new Date('2026-11-22T10:20:30.456Z') },
      );
      expect(result).toEqual({ index: 'gcf-grants-v20261122102030456', replaced: ['gcf-grants-v1'], documents: 3 });
      expect(calls()).toEqual([
        'PUT /gcf-grants-v20261122102030456',
        'POST /_bulk',
        'POST /_bulk',
        'GET /gcf-grants-v20261122102030456/_refresh',
        'GET /_alias/gcf-grants',
        'POST /_aliases',
        'DELETE /gcf-grants-v1',
      ]);
      const created = JSON.parse(openSearch.requests[0]!.body);
      expect(created.mappings).toEqual(indexMappings('grant', SPACE));
      expect(created).not.toHaveProperty('aliases');
      expect(ndjson(openSearch.requests[1]!.body)[0]).toEqual({ index: { _index: 'gcf-grants-v20261122102030456', _id: grant(1).id } });
      expect(ndjson(openSearch.requests[1]!.body)[1]).toMatchObject({ embedding: [0, 1, 0, 0] });
      expect(JSON.parse(openSearch.requests[5]!.body)).toEqual({
        actions: [{ remove: { index: 'gcf-grants-v1', alias: 'gcf-grants' } }, { add: { index: 'gcf-grants-v20261122102030456', alias: 'gcf-grants' } }],
      });
      expect([...openSearch.aliases.get('gcf-grants')!]).toEqual(['gcf-grants-v20261122102030456']);
      expect(openSearch.mappings.has('gcf-grants-v1')).toBe(false);

      // The index now matches the configured space: writes go through the alias with no mismatch.
      openSearch.requests = [];
      await adapter().upsert('grant', [grant(4)]);
      expect(calls()).toEqual(['GET /gcf-grants/_mapping', 'POST /_bulk']);
    });

    it('creates the alias when there was none', async () => {
      const result = await adapter().rebuild('funder', async (write) => write([funder('f-1', 'A')]), { version: 'v2' });
      expect(result).toEqual({ index: 'gcf-funders-v2', replaced: [], documents: 1 });
      expect(JSON.parse(openSearch.requests.find((r) => r.path === '/_aliases')!.body)).toEqual({
        actions: [{ add: { index: 'gcf-funders-v2', alias: 'gcf-funders' } }],
      });
    });

    it('leaves the old index serving and drops the new one when the fill fails', async () => {
      existingIndex('contract');
      await expect(
        adapter().rebuild(
          'contract',
          async () => {
            throw new Error('the record store is unreachable');
          },
          { version: 'v2' },
        ),
      ).rejects.toThrow('the record store is unreachable');
      expect(calls()).toEqual(['PUT /gcf-contracts-v2', 'DELETE /gcf-contracts-v2']);
      expect([...openSearch.aliases.get('gcf-contracts')!]).toEqual(['gcf-contracts-v1']);
    });
  });
});
