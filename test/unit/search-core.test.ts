import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../lambdas/core/errors';
import { parseSemanticSearchRequest } from '../../lambdas/core/query/semantic-search-request';
import type { Funder, Grant } from '../../lambdas/core/records';
import { embeddingKeyOf, embeddingTextOf } from '../../lambdas/core/search/embedding-text';
import { fuseRankings, HYBRID_RANK_WINDOW, RRF_K } from '../../lambdas/core/search/fusion';
import { cosineOfOpenSearchScore, keywordFloorOf, openSearchScoreOfCosine, partialFloorOf, relevanceOfCosine, semanticFloorOf } from '../../lambdas/core/search/relevance';
import { memoizedEmbedder } from '../../lambdas/core/search/memoized-embedder';
import { VectorSpaceMismatch } from '../../lambdas/core/search/vector-space';
import { embedRecords } from '../../lambdas/core/use-cases/embed-records';
import { listEnvelope, listRecords, semanticQueryOf } from '../../lambdas/core/use-cases/list-records';
import { parseListQuery } from '../../lambdas/core/query/list-query';
import type { SearchIndex, SemanticQuery } from '../../lambdas/ports/search-index';
import { rankMatches, VectorMatrix, type Matches } from '../../lambdas/adapters/embedded/vector-matrix';
import { countingEmbedder, memoryEmbeddingCache } from '../support/embedding-doubles';

const grant = (id: string, title: string, extra: Partial<Grant> = {}): Grant => ({
  id, title, description: `About ${title}.`, amount_min: null, amount_max: 1000, deadline_date: '2027-01-01', status: 'posted',
  geography: null, funder_id: 'f', funder_name: 'Department of Energy', listing_url: null, created_at: '2026-01-01T00:00:00Z',
  categories: ['Energy'], opportunity_type: 'open', project_end_date: null, archive_date: null, states: [], source: 'test', source_id: id,
  eligible_applicants: [], requires_501c3: null, ...extra,
});

describe('reciprocal rank fusion', () => {
  it('scores 1/(k + rank) summed over lists and scales so first in both lists is 1', () => {
    const fused = fuseRankings([['a', 'b', 'c'], ['b', 'a', 'd']]);
    const score = (...ranks: number[]) => ranks.reduce((sum, r) => sum + 1 / (RRF_K + r), 0) / (2 / (RRF_K + 1));
    expect(fused.map((hit) => hit.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(fused[0]!.relevance).toBeCloseTo(score(1, 2), 12);
    expect(fused[2]!.relevance).toBeCloseTo(score(3), 12);
    expect(fuseRankings([['x'], ['x']])[0]!.relevance).toBe(1);
  });

  it('breaks ties by id, so the order is total and the same on every call', () => {
    const fused = fuseRankings([['z', 'y'], ['m', 'n']]);
    expect(fused.map((hit) => hit.id)).toEqual(['m', 'z', 'n', 'y']);
  });

  it('reads each list only to the rank window', () => {
    const long = Array.from({ length: HYBRID_RANK_WINDOW + 5 }, (_, i) => `k${String(i).padStart(5, '0')}`);
    const fused = fuseRankings([long, ['s']]);
    expect(fused).toHaveLength(HYBRID_RANK_WINDOW + 1);
    expect(fused.some((hit) => hit.id === long.at(-1))).toBe(false);
  });

  it('fuses an empty list with another as that list alone, at half relevance', () => {
    const fused = fuseRankings([[], ['a', 'b']]);
    expect(fused.map((hit) => hit.id)).toEqual(['a', 'b']);
    expect(fused[0]!.relevance).toBeCloseTo(0.5, 12);
  });
});

describe('relevance', () => {
  it('is the cosine clipped to [0, 1], and OpenSearch cosinesimil scores convert both ways', () => {
    expect(relevanceOfCosine(0.42)).toBe(0.42);
    expect(relevanceOfCosine(-0.3)).toBe(0);
    expect(relevanceOfCosine(1.0000001)).toBe(1);
    expect(relevanceOfCosine(Number.NaN)).toBe(0);
    expect(cosineOfOpenSearchScore(openSearchScoreOfCosine(0.37))).toBeCloseTo(0.37, 12);
    expect(openSearchScoreOfCosine(1)).toBe(1);
    expect(openSearchScoreOfCosine(-1)).toBe(0);
  });

  it('has a floor per embedder, overridable, and refuses an embedder with none or a floor out of range', () => {
    expect(semanticFloorOf({ embedder: 'wink-sg-100d', dimensions: 100 })).toBeGreaterThan(0);
    expect(semanticFloorOf({ embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 512 })).toBeGreaterThan(0);
    expect(semanticFloorOf({ embedder: 'wink-sg-100d', dimensions: 100 }, 0.5)).toBe(0.5);
    expect(() => semanticFloorOf({ embedder: 'other', dimensions: 3 })).toThrow(/no semantic floor/);
    expect(() => semanticFloorOf({ embedder: 'wink-sg-100d', dimensions: 100 }, 1.5)).toThrow(/\[0, 1\)/);
  });

  it('has a keyword floor per embedder for hybrid search, capped by the semantic floor; none (-1) for word vectors and unknown embedders', () => {
    expect(keywordFloorOf({ embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 512 }, 0.3)).toBe(0.1);
    expect(keywordFloorOf({ embedder: 'onnx:all-minilm-l6-v2-q', dimensions: 384 }, 0.43)).toBe(0.28);
    expect(keywordFloorOf({ embedder: 'onnx:bge-small-en-v1.5-q', dimensions: 384 }, 0.61)).toBe(0.55);
    expect(keywordFloorOf({ embedder: 'onnx:e5-small-v2-q', dimensions: 384 }, 0.83)).toBe(0.8);
    expect(keywordFloorOf({ embedder: 'onnx:all-minilm-l6-v2-q', dimensions: 384 }, 0.15)).toBe(0.15);
    expect(keywordFloorOf({ embedder: 'wink-sg-100d', dimensions: 100 }, 0.6)).toBe(-1);
    expect(keywordFloorOf({ embedder: 'test-hash', dimensions: 8 }, 0.42)).toBe(-1);
    // Partial keyword matches: the semantic floor in force; none without a keyword floor.
    expect(partialFloorOf({ embedder: 'onnx:all-minilm-l6-v2-q', dimensions: 384 }, 0.43)).toBe(0.43);
    expect(partialFloorOf({ embedder: 'onnx:all-minilm-l6-v2-q', dimensions: 384 }, 0.3)).toBe(0.3);
    expect(partialFloorOf({ embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 512 }, 0.3)).toBe(0.3);
    expect(partialFloorOf({ embedder: 'wink-sg-100d', dimensions: 100 }, 0.6)).toBeUndefined();
    expect(partialFloorOf({ embedder: 'test-hash', dimensions: 8 }, 0.42)).toBeUndefined();
    expect(semanticFloorOf({ embedder: 'onnx:all-minilm-l6-v2-q', dimensions: 384 })).toBe(0.43);
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
    const funder: Funder = { id: 'f', name: 'NSF', website: null, summary: 'Basic research.', created_at: '2026-01-01T00:00:00Z', source: 's', source_id: null };
    expect(embeddingTextOf('funder', funder)).toBe('NSF\nBasic research.');
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
    const failing = { space: { embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 512 }, embed: async () => { throw new Error('connect ETIMEDOUT'); } };
    const error = await semanticQueryOf({ embedder: failing, semanticFloor: 0.3 }, 'my secret query').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ status: 503, code: 'SEARCH_UNAVAILABLE' });
    expect((error as Error).message).toMatch(/titan-embed-text-v2.*keyword/);
    expect((error as Error).message).not.toMatch(/secret/);
  });

  it('carries the floor and a null vector for a text with nothing to embed; an embedder with no keyword floor has none (-1)', async () => {
    expect(await semanticQueryOf({ embedder: countingEmbedder(), semanticFloor: 0.42 }, '   ')).toEqual({ vector: null, floor: 0.42, keywordFloor: -1 });
  });

  it('carries the embedder\'s keyword floor, never above the semantic floor in force', async () => {
    const titan = { space: { embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 2 }, embed: async () => [Float32Array.of(1, 0)] };
    // Partial keyword matches must reach the semantic floor.
    expect(await semanticQueryOf({ embedder: titan, semanticFloor: 0.3 }, 'rural broadband')).toEqual({ vector: Float32Array.of(1, 0), floor: 0.3, keywordFloor: 0.1, partialFloor: 0.3 });
    expect(await semanticQueryOf({ embedder: titan, semanticFloor: 0.05 }, 'rural broadband')).toEqual({ vector: Float32Array.of(1, 0), floor: 0.05, keywordFloor: 0.05, partialFloor: 0.05 });
  });
});

describe('search while the embedding model is down', () => {
  const failing = { space: { embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 512 }, embed: async () => { throw new Error('ThrottlingException'); } };
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
    expect(asked).toEqual([{ vector: null, floor: 0.3, keywordFloor: 0.1, partialFloor: 0.3 }]);
    expect(listEnvelope(outcome, 1).meta).toMatchObject({ degraded: true, degraded_reason: expect.stringMatching(/titan-embed-text-v2.*keyword matches alone/) });
  });

  it('keeps semantic a 503, and never marks a healthy or keyword answer degraded', async () => {
    await expect(listRecords({ index: recordingIndex().index, embedder: failing, semanticFloor: 0.3 }, query('semantic'))).rejects.toMatchObject({ status: 503, code: 'SEARCH_UNAVAILABLE' });
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

describe('the exact k-NN matrix', () => {
  const unit = (...xs: number[]) => { const n = Math.hypot(...xs); return Float32Array.from(xs, (x) => x / n); };

  it('returns every row at or above the floor that the filter mask allows, and forgets deleted rows', async () => {
    const matrix = new VectorMatrix(2, 1);
    matrix.set(1, unit(1, 0));
    matrix.set(2, unit(1, 1));
    matrix.set(3, unit(0, 1));
    matrix.set(5, unit(-1, 0));
    const query = unit(1, 0);
    const rowids = (matches: Matches) => Array.from(matches.rowids).sort();
    expect(rowids(await matrix.matchesAbove(query, 0.5))).toEqual([1, 2]);
    expect(rowids(await matrix.matchesAbove(query, -1))).toEqual([1, 2, 3, 5]);
    const mask = new Uint8Array(6);
    mask[2] = 1;
    mask[3] = 1;
    expect(rowids(await matrix.matchesAbove(query, 0.5, mask))).toEqual([2]);
    matrix.delete(2);
    matrix.set(7, unit(1, 0.1)); // reuses the freed slot
    expect(rowids(await matrix.matchesAbove(query, 0.5))).toEqual([1, 7]);
    expect(matrix.size).toBe(4);
    expect(() => matrix.set(9, unit(1, 0, 0))).toThrow(/dimensions/);
  });

  it('gives the cosine of each given row in their order, for a few rows and for many; NaN without a vector', () => {
    // Ten dimensions: the unrolled loop's four-wide steps and its remainder both count.
    const dimensions = 10;
    const matrix = new VectorMatrix(dimensions);
    const vectors = Array.from({ length: 3000 }, (_, i) => unit(...Array.from({ length: dimensions }, (_, d) => Math.sin(i * 7 + d * 3))));
    vectors.forEach((vector, i) => matrix.set(i + 1, vector));
    matrix.delete(17);
    const query = unit(1, 0.5, -0.25, 0, 0.75, 0, 0, 0.1, -0.5, 0.3);
    const cosine = (rowid: number) => (rowid === 17 || rowid > 3000 ? Number.NaN : vectors[rowid - 1]!.reduce((sum, x, d) => sum + x * query[d]!, 0));
    // Reversed, so the result must follow the caller's order; rowid 17 was deleted and 5000 never had a vector.
    const candidates = Int32Array.from({ length: 3000 }, (_, i) => 3000 - i);
    for (const rows of [candidates.subarray(0, 40), Int32Array.from([...candidates, 5000])]) {
      const cosines = Array.from(matrix.cosinesOf(rows, query));
      expect(cosines).toHaveLength(rows.length);
      cosines.forEach((found, i) => {
        const wanted = cosine(rows[i]!);
        if (Number.isNaN(wanted)) expect(found).toBeNaN();
        else expect(found).toBeCloseTo(wanted, 5);
      });
    }
  });

  it('ranks matches best first with ties by id, negative cosines included', () => {
    const cosines = Float32Array.from([0.5, -0.25, 0.9, 0.5, -0.75, 0.5, 0]);
    const rowids = Int32Array.from([10, 11, 12, 13, 14, 15, 16]);
    const ids = new Map([[10, 'c'], [11, 'x'], [12, 'y'], [13, 'a'], [14, 'z'], [15, 'b'], [16, 'w']]);
    const ranked = rankMatches({ rowids, cosines }, (rowid) => ids.get(rowid)!);
    expect(Array.from(ranked.rowids)).toEqual([12, 13, 15, 10, 16, 11, 14]);
    expect(Array.from(ranked.cosines)).toEqual([0.9, 0.5, 0.5, 0.5, 0, -0.25, -0.75].map(Math.fround));
    const many = Float32Array.from({ length: 5000 }, (_, i) => Math.sin(i));
    const order = rankMatches({ rowids: Int32Array.from(many, (_, i) => i), cosines: many }, (rowid) => String(rowid).padStart(5, '0'));
    expect(Array.from(order.cosines)).toEqual(Array.from(many).sort((a, b) => b - a));
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

  it('defaults to both kinds and 10 results, and ignores unknown fields', () => {
    expect(parseSemanticSearchRequest('{"query":"  rural broadband ","extra":1}')).toEqual({ query: 'rural broadband', kinds: ['grant', 'contract'], limit: 10 });
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
  ])('rejects %s with a 400 naming the field', (_, body, field) => {
    expect(issueOf(body)?.map((d) => d.field)).toEqual([field]);
  });
});
