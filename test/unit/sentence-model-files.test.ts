import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OnnxSentenceEmbedder } from '../../lambdas/adapters/embedded/onnx-embedder';
import { DEFAULT_SENTENCE_MODEL, SENTENCE_MODELS } from '../../lambdas/adapters/embedded/sentence-models';
import { similarityScaleOf } from '../../lambdas/core/search/relevance';
import { configuredEmbedderName } from '../../local/local-embedder';
import { MODEL_CACHE_DIR, ModelFilesCorrupt, ModelFilesMissing, modelDirectory, verifiedModelFiles } from '../../local/sentence-model-files';

/**
 * The model files the embedded stack runs: checked against their pinned SHA-256 before anything
 * is loaded, and the model itself producing unit vectors whose cosines mean something.
 */

const model = SENTENCE_MODELS[DEFAULT_SENTENCE_MODEL];
let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

describe('model files', () => {
  it('are missing from an empty cache, with the command that fetches them', () => {
    scratch = mkdtempSync(join(tmpdir(), 'gcf-models-'));
    expect(() => verifiedModelFiles(model, scratch)).toThrow(ModelFilesMissing);
    expect(() => verifiedModelFiles(model, scratch)).toThrow(/npm run fetch-model/);
  });

  it('are refused when one is not the pinned file (truncated, or another model), naming the file and the remedy', () => {
    scratch = mkdtempSync(join(tmpdir(), 'gcf-models-'));
    const directory = modelDirectory(model, scratch);
    mkdirSync(directory, { recursive: true });
    copyFileSync(join(modelDirectory(model), model.files.tokenizer), join(directory, model.files.tokenizer));
    writeFileSync(join(directory, model.files.model), 'not an onnx graph');
    expect(() => verifiedModelFiles(model, scratch)).toThrow(ModelFilesCorrupt);
    expect(() => verifiedModelFiles(model, scratch)).toThrow(new RegExp(`${model.files.model} is not the pinned .*Delete .* and run npm run fetch-model`));
  });

  it('are accepted when both match the pinned SHA-256 (npm ci fetched them into .cache/models)', () => {
    const files = verifiedModelFiles(model);
    expect(files.model).toBe(join(MODEL_CACHE_DIR, model.id, model.files.model));
  });
});

describe('the configured embedder', () => {
  it('is the default model unless GCF_EMBEDDER names another, and an unknown name is an error listing the choices', () => {
    expect(configuredEmbedderName(undefined)).toBe(process.env.GCF_EMBEDDER ?? DEFAULT_SENTENCE_MODEL);
    expect(configuredEmbedderName('wink')).toBe('wink');
    expect(() => configuredEmbedderName('gpt-9')).toThrow(
      /GCF_EMBEDDER=gpt-9 is not an embedder here; use one of all-minilm-l6-v2-q, bge-small-en-v1.5-q, e5-small-v2-q, all-minilm-l6-v2, bge-small-en-v1.5, e5-small-v2, wink/,
    );
  });
});

describe('the sentence-embedding model', () => {
  it('gives unit vectors of its width, nothing for blank text, and puts a paraphrase well above its floor and an unrelated text under it', async () => {
    const embedder = await OnnxSentenceEmbedder.load(model, verifiedModelFiles(model));
    try {
      const [query] = await embedder.embed(['grants to reduce childhood lead exposure'], 'query');
      const [paraphrase, unrelated, blank] = await embedder.embed([
        'Lead Hazard Reduction Grant Program: removing lead-based paint hazards from homes with young children',
        'chocolate chip cookie recipe',
        '   ',
      ]);
      expect(blank).toBeNull();
      for (const vector of [query, paraphrase, unrelated]) {
        expect(vector!.length).toBe(model.dimensions);
        expect(Math.hypot(...vector!)).toBeCloseTo(1, 5);
      }
      const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
      const { floor } = similarityScaleOf(embedder.space);
      expect(cosine(query!, paraphrase!)).toBeGreaterThan(floor + 0.1);
      expect(cosine(query!, unrelated!)).toBeLessThan(floor - 0.1);
      // Batching and order: the same text alone and in a batch gives the same vector.
      const [alone] = await embedder.embed(['chocolate chip cookie recipe']);
      expect(cosine(alone!, unrelated!)).toBeCloseTo(1, 5);
    } finally {
      await embedder.close();
    }
  });
});
