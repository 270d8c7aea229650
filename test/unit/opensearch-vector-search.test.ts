import { describe, expect, it } from 'vitest';
import { createIndexBody } from '../../lambdas/adapters/aws/opensearch-mappings';
import { DEFAULT_VECTOR_SEARCH, vectorSearchSettingsFromJson, vectorSearchSettingsOf, WINDOW_MAX } from '../../lambdas/adapters/aws/opensearch-vector-search';

describe('vector search settings', () => {
  it('defaults to Lucene HNSW (m 16, ef_construction 128) and a window of 1,000', () => {
    expect(DEFAULT_VECTOR_SEARCH).toEqual({ engine: 'lucene', m: 16, efConstruction: 128, window: 300 });
    expect(vectorSearchSettingsOf()).toEqual(DEFAULT_VECTOR_SEARCH);
    expect(vectorSearchSettingsOf({ window: 50, engine: 'faiss' })).toEqual({ ...DEFAULT_VECTOR_SEARCH, window: 50, engine: 'faiss' });
  });

  it('a window from 1 to the deepest page the API serves', () => {
    expect(vectorSearchSettingsOf({ window: 1 }).window).toBe(1);
    expect(vectorSearchSettingsOf({ window: WINDOW_MAX }).window).toBe(10_000);
    for (const window of [0, -1, 1.5, WINDOW_MAX + 1, '1000', null]) {
      expect(() => vectorSearchSettingsOf({ window }), String(window)).toThrow(/window must be a whole number from 1 to 10000/);
    }
    expect(() => vectorSearchSettingsOf({ engine: 'nmslib' })).toThrow('vector search engine must be lucene or faiss, not "nmslib"');
    expect(() => vectorSearchSettingsOf({ m: 1 })).toThrow(/m must be a whole number from 2 to 100/);
  });

  it('read from SEARCH_VECTOR_SETTINGS: unset is the defaults; bad JSON and unknown keys are named', () => {
    expect(vectorSearchSettingsFromJson(undefined)).toEqual(DEFAULT_VECTOR_SEARCH);
    expect(vectorSearchSettingsFromJson('')).toEqual(DEFAULT_VECTOR_SEARCH);
    expect(vectorSearchSettingsFromJson('{"window":200}')).toEqual({ ...DEFAULT_VECTOR_SEARCH, window: 200 });
    expect(() => vectorSearchSettingsFromJson('{window')).toThrow('SEARCH_VECTOR_SETTINGS must be a JSON object');
    expect(() => vectorSearchSettingsFromJson('[1]')).toThrow('SEARCH_VECTOR_SETTINGS must be a JSON object');
    expect(() => vectorSearchSettingsFromJson('{"k":5}')).toThrow('SEARCH_VECTOR_SETTINGS has unknown settings: k');
  });

  it('new indices build their graph with the settings', () => {
    const body = createIndexBody('grant', { embedder: 'e', dimensions: 8 }, undefined, undefined, {
      engine: 'faiss',
      m: 24,
      efConstruction: 256,
      window: 10,
    }) as { mappings: { properties: { embedding: unknown } } };
    expect(body.mappings.properties.embedding).toEqual({
      type: 'knn_vector',
      dimension: 8,
      method: { name: 'hnsw', engine: 'faiss', space_type: 'cosinesimil', parameters: { m: 24, ef_construction: 256 } },
    });
  });
});
