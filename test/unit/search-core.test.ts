import { describe, expect, it } from 'vitest';
import { idRanksOf } from '../../lambdas/adapters/embedded/id-order';
import { rankMatches } from '../../lambdas/adapters/embedded/ranked-set';
import { ServiceError } from '../../lambdas/core/errors';
import { composedNoticeDescription } from '../../lambdas/core/ingest/contracts/notice-fields';
import { parseListQuery } from '../../lambdas/core/query/list-query';
import { parseSemanticSearchRequest } from '../../lambdas/core/query/semantic-search-request';
import type { Funder, Grant } from '../../lambdas/core/records';
import { embeddingKeyOf, embeddingTextOf } from '../../lambdas/core/search/embedding-text';
import { fuseHybrid, HYBRID_SEMANTIC_WEIGHT } from '../../lambdas/core/search/fusion';
import { identifierScoreOf } from '../../lambdas/core/search/identifiers';
import { memoizedEmbedder } from '../../lambdas/core/search/memoized-embedder';
import {
  cosineOfOpenSearchScore,
  FLOOR_RELEVANCE,
  LEXICAL_FLOOR_RELEVANCE,
  openSearchScoreOfCosine,
  relevanceOfCosine,
  SIMILARITY_SCALES,
  type SimilarityScale,
  semanticFloorOf,
  similarityScaleOf,
} from '../../lambdas/core/search/relevance';
import { VectorSpaceMismatch } from '../../lambdas/core/search/vector-space';
import { embedRecords } from '../../lambdas/core/use-cases/embed-records';
import { listEnvelope, listRecords, semanticQueryOf } from '../../lambdas/core/use-cases/list-records';
import type { SearchIndex, SemanticQuery } from '../../lambdas/ports/search-index';
import { countingEmbedder, memoryEmbeddingCache } from '../support/embedding-doubles';

const grant = (id: string, title: string, extra: Partial<Grant> = {}): Grant => ({
  id,
  title,
  description: `About ${title}.`,
  amount_min: null,
  amount_max: 1000,
  deadline_date: '2027-01-01',
  status: 'posted',
  geography: null,
  funder_id: 'f',
  funder_name: 'Department of Energy',
  listing_url: null,
  created_at: '2026-01-01T00:00:00Z',
  categories: ['Energy'],
  opportunity_type: 'open',
  project_end_date: null,
  archive_date: null,
  states: [],
  source: 'test',
  source_id: id,
  eligible_applicants: [],
  requires_501c3: null,
  assistance_listings: [],
  agency_code: null,
  ...extra,
});

const SCALE: SimilarityScale = { floor: 0.6, shortFloor: 0.65, lexicalFloor: 0.5, profileFloor: 0.45, upper: 0.8 };

describe('hybrid fusion', () => {
  it('adds the weighted semantic relevance and the BM25 relative to the best keyword match', () => {
    const fused = fuseHybrid(
      [
        { key: 'a', score: 10 },
        { key: 'b', score: 5 },
        { key: 'k', score: 2 },
      ],
      [
        { key: 'b', cosine: 0.8 },
        { key: 'a', cosine: 0.6 },
        { key: 's', cosine: 0.7 },
      ],
      SCALE,
    );
    const w = HYBRID_SEMANTIC_WEIGHT;
    const expected = { a: w * 0.5 + (1 - w), b: w * 1 + (1 - w) * 0.5, s: w * 0.75, k: (1 - w) * 0.2 };
    expect(fused.map((hit) => hit.key)).toEqual(
      Object.entries(expected)
        .sort((x, y) => y[1] - x[1])
        .map(([id]) => id),
    );
    for (const hit of fused) {
      expect(hit.relevance).toBeCloseTo(expected[hit.key as keyof typeof expected], 12);
      expect(hit.score).toBe(hit.relevance);
    }
  });

  it('is 1 only for the best keyword match at the top of the semantic scale, and a keyword match alone stays under the semantic weight', () => {
    expect(fuseHybrid([{ key: 'x', score: 3 }], [{ key: 'x', cosine: 0.95 }], SCALE)[0]!.relevance).toBe(1);
    expect(fuseHybrid([{ key: 'x', score: 3 }], [], SCALE)[0]!.relevance).toBeCloseTo(1 - HYBRID_SEMANTIC_WEIGHT, 12);
    expect(fuseHybrid([], [{ key: 'x', cosine: 0.6 }], SCALE)[0]!.relevance).toBeCloseTo(HYBRID_SEMANTIC_WEIGHT * FLOOR_RELEVANCE, 12);
  });

  it('puts identifier matches first, by field weight then BM25, with relevance 1, and reads the BM25 beneath their offset for the others', () => {
    const fused = fuseHybrid(
      [
        { key: 'words', score: 8 },
        { key: 'listing', score: identifierScoreOf(10) + 2 },
        { key: 'number', score: identifierScoreOf(12) + 1 },
        { key: 'number-better', score: identifierScoreOf(12) + 4 },
      ],
      [
        { key: 'close', cosine: 0.8 },
        { key: 'words', cosine: 0.8 },
      ],
      SCALE,
    );
    expect(fused.map((hit) => hit.key)).toEqual(['number-better', 'number', 'listing', 'words', 'close']);
    expect(fused.slice(0, 3).map((hit) => hit.relevance)).toEqual([1, 1, 1]);
    // The best BM25 is the identifier match's 4, not its score: the word match's strength is 8 / 8 (the best BM25 of all).
    expect(fused[3]!.relevance).toBeCloseTo(1, 12);
    expect(fused[3]!.score).toBeLessThan(fused[2]!.score);
  });

  it('breaks ties by key, so the order is total and the same on every call', () => {
    const fused = fuseHybrid(
      [
        { key: 'z', score: 1 },
        { key: 'm', score: 1 },
      ],
      [
        { key: 'y', cosine: 0.7 },
        { key: 'n', cosine: 0.7 },
      ],
      SCALE,
    );
    expect(fused.map((hit) => hit.key)).toEqual(['n', 'y', 'm', 'z']);
    expect(fuseHybrid([], [], SCALE)).toEqual([]);
  });
});

describe('relevance', () => {
  it('is 0.5 at the floor and 1 at the upper reference, linear between and clipped to [0, 1]; OpenSearch cosinesimil scores convert both ways', () => {
    expect(relevanceOfCosine(0.6, SCALE)).toBe(FLOOR_RELEVANCE);
    expect(relevanceOfCosine(0.76, SCALE)).toBeCloseTo(0.9, 12);
    expect(relevanceOfCosine(0.8, SCALE)).toBe(1);
    expect(relevanceOfCosine(0.95, SCALE)).toBe(1);
    // Between the lexical floor and the floor: 0.25 to 0.5, the matches a short query's own words admit.
    expect(relevanceOfCosine(0.5, SCALE)).toBeCloseTo(LEXICAL_FLOOR_RELEVANCE, 12);
    expect(relevanceOfCosine(0.55, SCALE)).toBeCloseTo(0.375, 12);
    expect(relevanceOfCosine(0.45, SCALE)).toBeCloseTo(0.125, 12);
    expect(relevanceOfCosine(0.5, { ...SCALE, lexicalFloor: 0.6 })).toBeCloseTo(0.25, 12);
    expect(relevanceOfCosine(-0.3, SCALE)).toBe(0);
    expect(relevanceOfCosine(Number.NaN, SCALE)).toBe(0);
    expect(cosineOfOpenSearchScore(openSearchScoreOfCosine(0.37))).toBeCloseTo(0.37, 12);
    expect(openSearchScoreOfCosine(1)).toBe(1);
    expect(openSearchScoreOfCosine(-1)).toBe(0);
  });

  it('has a scale per embedder, the floor overridable, and refuses an embedder with none or a floor out of range', () => {
    expect(similarityScaleOf({ embedder: 'onnx:bge-small-en-v1.5-q', dimensions: 384 })).toEqual(SIMILARITY_SCALES['onnx:bge-small-en-v1.5-q']);
    expect(semanticFloorOf({ embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 512 })).toBeGreaterThan(0);
    expect(semanticFloorOf({ embedder: 'wink-sg-100d', dimensions: 100 }, 0.5)).toBe(0.5);
    expect(() => semanticFloorOf({ embedder: 'other', dimensions: 3 })).toThrow(/no semantic floor/);
    expect(() => semanticFloorOf({ embedder: 'wink-sg-100d', dimensions: 100 }, 1.5)).toThrow(/\[0, 1\)/);
    // A configured floor keeps the embedder's upper reference (unless the floor passes it), and its short and lexical floors their distances from it.
    const bge = SIMILARITY_SCALES['onnx:bge-small-en-v1.5-q']!;
    const at = (floor: number) => similarityScaleOf({ embedder: 'onnx:bge-small-en-v1.5-q', dimensions: 384 }, floor);
    expect(at(0.7).floor).toBe(0.7);
    expect(at(0.7).upper).toBe(0.81);
    expect(at(0.7).shortFloor).toBeCloseTo(0.7 + bge.shortFloor - bge.floor, 12);
    expect(at(0.7).lexicalFloor).toBeCloseTo(0.7 - (bge.floor - bge.lexicalFloor), 12);
    expect(at(0.9).upper).toBe(0.95);
    // An embedder this service has not calibrated, given a floor: one floor for every query.
    expect(similarityScaleOf({ embedder: 'test-hash', dimensions: 8 }, 0.4)).toEqual({
      floor: 0.4,
      shortFloor: 0.4,
      lexicalFloor: 0.4,
      profileFloor: 0.3,
      upper: 0.7,
    });
  });

  it('orders every calibrated scale: lexical floor, floor, short floor, upper reference; word vectors never lower their floor on words', () => {
    for (const [embedder, scale] of Object.entries(SIMILARITY_SCALES)) {
      expect(scale.lexicalFloor, embedder).toBeLessThanOrEqual(scale.floor);
      expect(scale.shortFloor, embedder).toBeGreaterThanOrEqual(scale.floor);
      expect(scale.upper, embedder).toBeGreaterThan(scale.shortFloor);
      expect(scale.profileFloor, embedder).toBeLessThan(scale.floor);
    }
    expect(SIMILARITY_SCALES['wink-sg-100d']!.lexicalFloor).toBe(SIMILARITY_SCALES['wink-sg-100d']!.floor);
  });

  it('names both spaces and the remedy when an index was built with another embedder', () => {
    const error = new VectorSpaceMismatch('The index', { embedder: 'a', dimensions: 100 }, { embedder: 'b', dimensions: 512 }, 'Rebuild it.');
    expect(error.message).toBe('The index holds vectors from a (100 dimensions), but the service is configured with b (512 dimensions). Rebuild it.');
  });
});

describe('record embeddings', () => {
  it('embed the title, funder, categories and the opening of the description, most telling first (funders: name and summary), not dates or amounts', () => {
    const text = embeddingTextOf('grant', grant('g1', 'Solar microgrids'));
    expect(text).toBe('Solar microgrids\nDepartment of Energy\nEnergy\nAbout Solar microgrids.');
    expect(embeddingTextOf('grant', grant('g1', 'T', { description: 'x'.repeat(5000) }))).toBe(`T\nDepartment of Energy\nEnergy\n${'x'.repeat(1500)}`);
    expect(embeddingTextOf('grant', grant('g1', 'Solar microgrids', { deadline_date: '2030-01-01', amount_max: 5 }))).toBe(text);
    const funder: Funder = {
      id: 'f',
      name: 'NSF',
      website: null,
      summary: 'Basic research.',
      created_at: '2026-01-01T00:00:00Z',
      source: 's',
      source_id: null,
    };
    expect(embeddingTextOf('funder', funder)).toBe('NSF\nBasic research.');
  });

  it('embed what a contract notice buys: its own text, or for a composed description the industry and product group it names, never the agency or procedure', () => {
    const notice = (description: string) => ({
      ...grant('c1', 'J063--CCTV SERVICE & MAINTENANCE', { funder_name: 'Department of Veterans Affairs', categories: ['Facilities Support'], description }),
    });
    const composed = composedNoticeDescription({
      noticeType: 'Combined Synopsis/Solicitation',
      solicitationNumber: '36C26226Q0123',
      agencies: ['VETERANS AFFAIRS, DEPARTMENT OF'],
      naics: '561621',
      classificationCode: 'J063',
      setAside: 'Service-Disabled Veteran-Owned Small Business',
      place: 'Tucson, AZ, USA',
    });
    expect(embeddingTextOf('contract', notice(composed) as never)).toBe(
      'J063--CCTV SERVICE & MAINTENANCE\nFacilities Support\nSecurity Systems Services (except Locksmiths)\nMaintenance, repair and rebuilding of equipment',
    );
    expect(embeddingTextOf('contract', notice('Repair of the camera system at building 4.') as never)).toBe(
      'J063--CCTV SERVICE & MAINTENANCE\nFacilities Support\nRepair of the camera system at building 4.',
    );
  });

  it('are cached by embedder and text hash: an unchanged text is never embedded twice, a changed one is', async () => {
    const embedder = countingEmbedder();
    const cache = memoryEmbeddingCache();
    const records = [grant('g1', 'Solar microgrids'), grant('g2', 'Rural broadband'), grant('g3', 'Solar microgrids')];
    const first = await embedRecords('grant', records, { embedder, cache });
    expect(embedder.embedded).toHaveLength(2); // g3 has g1's text: embedded once
    expect(first[0]).toEqual(first[2]);
    expect(cache.entries.size).toBe(2);
    expect([...cache.entries.keys()][0]).toBe(embeddingKeyOf({ embedder: 'test-hash', dimensions: 8 }, embeddingTextOf('grant', records[0]!)));

    const moved = { ...records[1]!, deadline_date: '2031-05-05' };
    const renamed = { ...records[0]!, title: 'Solar microgrids for tribes' };
    const second = await embedRecords('grant', [moved, renamed], { embedder, cache });
    expect(embedder.embedded).toHaveLength(3); // only the renamed record's new text
    expect(second[0]).toEqual(first[1]);
    expect(second[1]).not.toEqual(first[0]);
  });

  it('pass a null vector through for a text the model cannot embed, and do not cache it', async () => {
    const cache = memoryEmbeddingCache();
    const funder: Funder = { id: 'f', name: ' ', website: null, summary: null, created_at: '2026-01-01T00:00:00Z', source: 's', source_id: null };
    expect(await embedRecords('funder', [{ ...funder, name: '' } as Funder], { embedder: countingEmbedder(), cache })).toEqual([null]);
    expect(cache.entries.size).toBe(0);
  });
});

describe('the query vector', () => {
  it('becomes a 503 SEARCH_UNAVAILABLE naming the model when the embedder fails, without the query text', async () => {
    const failing = {
      space: { embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 512 },
      embed: async () => {
        throw new Error('connect ETIMEDOUT');
      },
    };
    const error = await semanticQueryOf({ embedder: failing, semanticFloor: 0.3 }, 'my secret query').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ status: 503, code: 'SEARCH_UNAVAILABLE' });
    expect((error as Error).message).toMatch(/titan-embed-text-v2.*keyword/);
    expect((error as Error).message).not.toMatch(/secret/);
  });

  it('carries the floor in force and a null vector for a text with nothing to embed', async () => {
    expect(await semanticQueryOf({ embedder: countingEmbedder(), semanticFloor: 0.42 }, '   ')).toEqual({
      vector: null,
      scale: { floor: 0.42, shortFloor: 0.42, lexicalFloor: 0.42, profileFloor: 0.32, upper: 0.71 },
    });
  });

  it("carries the embedder's scale with the floor in force", async () => {
    const titan = { space: { embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 2 }, embed: async () => [Float32Array.of(1, 0)] };
    expect(await semanticQueryOf({ embedder: titan, semanticFloor: 0.3 }, 'rural broadband')).toEqual({
      vector: Float32Array.of(1, 0),
      scale: SIMILARITY_SCALES['bedrock:amazon.titan-embed-text-v2:0'],
    });
    expect(await semanticQueryOf({ embedder: titan, semanticFloor: 0.05 }, 'rural broadband')).toEqual({
      vector: Float32Array.of(1, 0),
      scale: { floor: 0.05, shortFloor: 0.05, lexicalFloor: 0.05, profileFloor: 0, upper: 0.75 },
    });
  });
});

describe('search while the embedding model is down', () => {
  const failing = {
    space: { embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 512 },
    embed: async () => {
      throw new Error('ThrottlingException');
    },
  };
  const recordingIndex = (fail?: Error) => {
    const asked: (SemanticQuery | undefined)[] = [];
    const index: SearchIndex = {
      query: async (_kind, _query, semantic) => {
        asked.push(semantic);
        if (fail) throw fail;
        return { total: 1, results: [{ ...grant('g1', 'Water'), relevance: 0.5 }] } as never;
      },
      upsert: async () => {},
      remove: async () => {},
    };
    return { index, asked };
  };
  const query = (mode: string) => parseListQuery('grant', { search: ['water'], search_mode: [mode] }, '2026-11-25');

  it('answers hybrid from the keyword half (a null vector) and marks the envelope degraded', async () => {
    const { index, asked } = recordingIndex();
    const outcome = await listRecords({ index, embedder: failing, semanticFloor: 0.3 }, query('hybrid'));
    expect(asked).toEqual([{ vector: null, scale: SIMILARITY_SCALES['bedrock:amazon.titan-embed-text-v2:0'] }]);
    expect(listEnvelope(outcome, 1).meta).toMatchObject({
      degraded: true,
      degraded_reason: expect.stringMatching(/titan-embed-text-v2.*keyword matches alone/),
    });
  });

  it('keeps semantic a 503, and never marks a healthy or keyword answer degraded', async () => {
    await expect(listRecords({ index: recordingIndex().index, embedder: failing, semanticFloor: 0.3 }, query('semantic'))).rejects.toMatchObject({
      status: 503,
      code: 'SEARCH_UNAVAILABLE',
    });
    const keyword = await listRecords({ index: recordingIndex().index, embedder: failing, semanticFloor: 0.3 }, query('keyword'));
    expect(listEnvelope(keyword, 1).meta).not.toHaveProperty('degraded');
    const healthy = await listRecords({ index: recordingIndex().index, embedder: countingEmbedder(), semanticFloor: 0.3 }, query('hybrid'));
    expect(listEnvelope(healthy, 1).meta).not.toHaveProperty('degraded');
  });

  it('does not hide a failing index behind the fallback', async () => {
    const unavailable = new ServiceError(503, 'SEARCH_UNAVAILABLE', 'The search index is not available');
    await expect(listRecords({ index: recordingIndex(unavailable).index, embedder: failing, semanticFloor: 0.3 }, query('hybrid'))).rejects.toBe(unavailable);
  });
});

describe('the memoized query embedder', () => {
  it('asks the model once per text among the last N, and forgets the least recently used', async () => {
    const inner = countingEmbedder();
    const embedder = memoizedEmbedder(inner, 2);
    const [first] = await embedder.embed(['rural broadband']);
    expect(await embedder.embed(['rural broadband', 'rural broadband'])).toEqual([first, first]);
    expect(inner.embedded).toEqual(['rural broadband']);
    await embedder.embed(['food security']);
    await embedder.embed(['rural broadband']); // most recent again
    await embedder.embed(['wildfire']); // evicts food security
    const [food, rural] = await embedder.embed(['food security', 'rural broadband']);
    expect(inner.embedded).toEqual(['rural broadband', 'food security', 'wildfire', 'food security']);
    expect(rural).toEqual(first); // still known within the call that evicts it
    expect(food).toBeInstanceOf(Float32Array);
    expect(embedder.space).toBe(inner.space);
  });
});

describe('ranking k-NN matches', () => {
  it('ranks matches best first with ties by id, negative cosines and zeros included, and gives back each score exactly', () => {
    const cosines = Float32Array.from([0.5, -0.25, 0.9, 0.5, -0.75, 0.5, 0, -0]);
    const rowids = Int32Array.from([10, 11, 12, 13, 14, 15, 16, 17]);
    // Record 99 is not a match: it only takes a place in id order.
    const ids = idRanksOf(
      new Map([
        [10, 'c'],
        [11, 'x'],
        [12, 'y'],
        [13, 'a'],
        [14, 'z'],
        [15, 'b'],
        [16, 'w'],
        [17, 'v'],
        [99, 'aa'],
      ]),
    );
    const ranked = rankMatches({ rowids, cosines }, ids);
    expect(Array.from(ranked.rowids)).toEqual([12, 13, 15, 10, 16, 17, 11, 14]);
    expect(Array.from(ranked.cosines)).toEqual([0.9, 0.5, 0.5, 0.5, 0, -0, -0.25, -0.75].map(Math.fround));
    // Long runs of equal scores, as a catalogue with repeated texts has, and arbitrary floats.
    const many = Float32Array.from({ length: 5000 }, (_, i) => (i % 3 === 0 ? 0.25 : Math.sin(i)));
    const names = new Map(Array.from(many, (_, i) => [i, `r${String((i * 7919) % 5000).padStart(5, '0')}`]));
    const order = rankMatches({ rowids: Int32Array.from(many, (_, i) => i), cosines: many }, idRanksOf(names));
    const expected = Array.from(many, (score, i) => ({ score, id: names.get(i)! })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    expect(Array.from(order.cosines)).toEqual(expected.map((e) => e.score));
    expect(Array.from(order.rowids, (rowid) => names.get(rowid))).toEqual(expected.map((e) => e.id));
    // A record removed while its query ran (no place in id order, or beyond it) is no match any more.
    const gone = rankMatches({ rowids: Int32Array.from([10, 12, 98, 500]), cosines: Float32Array.from([0.5, 0.9, 0.7, 0.8]) }, ids);
    expect(Array.from(gone.rowids)).toEqual([12, 10]);
  });
});

describe('POST /semantic-search bodies', () => {
  const issueOf = (body: string | null) => {
    try {
      parseSemanticSearchRequest(body);
      return null;
    } catch (error) {
      return (error as ServiceError).details;
    }
  };

  it('defaults to both kinds and 10 results', () => {
    expect(parseSemanticSearchRequest('{"query":"  rural broadband "}')).toEqual({ query: 'rural broadband', kinds: ['grant', 'contract'], limit: 10 });
    expect(parseSemanticSearchRequest('{"query":"x","type":"contracts","limit":50}')).toEqual({ query: 'x', kinds: ['contract'], limit: 50 });
  });

  it.each([
    ['not JSON', '{query:', 'body'],
    ['no body', null, 'body'],
    ['an array', '["q"]', 'body'],
    ['a missing query', '{}', 'query'],
    ['an empty query', '{"query":"  "}', 'query'],
    ['a query of the wrong type', '{"query":5}', 'query'],
    ['an overlong query', JSON.stringify({ query: 'a'.repeat(501) }), 'query'],
    ['an unknown type', '{"query":"x","type":"funders"}', 'type'],
    ['a type of the wrong type', '{"query":"x","type":["grants"]}', 'type'],
    ['limit 0', '{"query":"x","limit":0}', 'limit'],
    ['limit 51', '{"query":"x","limit":51}', 'limit'],
    ['a fractional limit', '{"query":"x","limit":2.5}', 'limit'],
    ['a string limit', '{"query":"x","limit":"5"}', 'limit'],
    ['an unknown field', '{"query":"x","extra":1}', 'extra'],
  ])('rejects %s with a 400 naming the field', (_, body, field) => {
    expect(issueOf(body)?.map((d) => d.field)).toEqual([field]);
  });
});
