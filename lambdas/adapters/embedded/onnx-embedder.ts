import { readFileSync } from 'node:fs';
import { Tokenizer } from '@huggingface/tokenizers';
import ort from 'onnxruntime-node';
import type { Embedder, EmbeddingPurpose, VectorSpace } from '../../ports/embedder';
import { type SentenceModel, sentenceModelSpace } from './sentence-models';

/**
 * Texts per call to the model: one. The quantised models scale their activations over the whole
 * input tensor, so in a batch a text's vector shifts with its neighbours (cosine 0.99 with itself
 * alone); alone, a text gets the same vector on every run. Batches gain nothing on two cores
 * (22 texts a second at 128 tokens either way).
 */
const BATCH_SIZE = 1;

export interface SentenceModelFiles {
  model: string;
  tokenizer: string;
}

/**
 * A sentence transformer run in process by ONNX Runtime (its CPU kernels ship in the npm
 * package), tokenised by Hugging Face's own JavaScript tokenizer from the model's tokenizer.json.
 * Pooling and normalisation are done here, as the model was trained: the mean of the token
 * vectors (or the [CLS] vector), scaled to unit length.
 */
export class OnnxSentenceEmbedder implements Embedder {
  readonly space: VectorSpace;

  private constructor(
    private readonly model: SentenceModel,
    private readonly session: ort.InferenceSession,
    private readonly tokenizer: Tokenizer,
  ) {
    this.space = sentenceModelSpace(model);
  }

  static async load(model: SentenceModel, files: SentenceModelFiles, options: { threads?: number } = {}): Promise<OnnxSentenceEmbedder> {
    const tokenizer = new Tokenizer(JSON.parse(readFileSync(files.tokenizer, 'utf8')) as object, {});
    const session = await ort.InferenceSession.create(files.model, {
      intraOpNumThreads: options.threads ?? 0,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    });
    const embedder = new OnnxSentenceEmbedder(model, session, tokenizer);
    // A model file that loads but is not this model (other inputs, other width) fails here, at start.
    const [probe] = await embedder.embed(['probe']);
    if (!probe || probe.length !== model.dimensions) throw new Error(`${files.model} does not produce ${model.dimensions}-dimension vectors`);
    return embedder;
  }

  async embed(texts: readonly string[], purpose: EmbeddingPurpose = 'document'): Promise<(Float32Array | null)[]> {
    const prefix = purpose === 'query' ? this.model.queryPrefix : this.model.documentPrefix;
    const encoded = texts.map((text) => this.tokens(prefix + text));
    const order = encoded.map((_, i) => i).sort((a, b) => encoded[a]!.length - encoded[b]!.length);
    const vectors: (Float32Array | null)[] = new Array(texts.length).fill(null);
    for (let start = 0; start < order.length; start += BATCH_SIZE) {
      const batch = order.slice(start, start + BATCH_SIZE);
      const pooled = await this.run(batch.map((i) => encoded[i]!));
      batch.forEach((i, j) => {
        vectors[i] = texts[i]!.trim() === '' ? null : pooled[j]!;
      });
    }
    return vectors;
  }

  /** Token ids with [CLS] and [SEP], cut to the model's length (the last id, [SEP], kept). */
  private tokens(text: string): number[] {
    const { ids } = this.tokenizer.encode(text);
    if (ids.length <= this.model.maxTokens) return ids;
    return [...ids.slice(0, this.model.maxTokens - 1), ids[ids.length - 1]!];
  }

  private async run(batch: readonly number[][]): Promise<Float32Array[]> {
    const width = Math.max(...batch.map((ids) => ids.length));
    const size = batch.length * width;
    const inputIds = new BigInt64Array(size);
    const attention = new BigInt64Array(size);
    batch.forEach((ids, row) => {
      ids.forEach((id, column) => {
        inputIds[row * width + column] = BigInt(id);
        attention[row * width + column] = 1n;
      });
    });
    const dims = [batch.length, width];
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', inputIds, dims),
      attention_mask: new ort.Tensor('int64', attention, dims),
    };
    if (this.session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(size), dims);
    const output = await this.session.run(feeds);
    const hidden = output[this.session.outputNames[0]!]!;
    const data = hidden.data as Float32Array;
    const dimensions = hidden.dims[2]!;
    return batch.map((ids, row) => unitLength(this.pool(data, row * width * dimensions, ids.length, dimensions)));
  }

  private pool(hidden: Float32Array, offset: number, length: number, dimensions: number): Float32Array {
    const vector = new Float32Array(dimensions);
    if (this.model.pooling === 'cls') {
      vector.set(hidden.subarray(offset, offset + dimensions));
      return vector;
    }
    // Padding positions are left out of the mean, as the attention mask leaves them out of the model.
    for (let token = 0; token < length; token++) {
      const at = offset + token * dimensions;
      for (let d = 0; d < dimensions; d++) vector[d]! += hidden[at + d]!;
    }
    return vector;
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

function unitLength(vector: Float32Array): Float32Array {
  let squares = 0;
  for (const value of vector) squares += value * value;
  const norm = Math.sqrt(squares);
  if (!(norm > 0) || !Number.isFinite(norm)) throw new Error('the model produced a zero or non-finite vector');
  for (let d = 0; d < vector.length; d++) vector[d]! /= norm;
  return vector;
}
