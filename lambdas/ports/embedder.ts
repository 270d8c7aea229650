/**
 * Which model made a vector, and its length. The index records the space it was built in, so a
 * service configured with another embedder fails at start-up instead of comparing vectors from
 * two models (which yields plausible-looking garbage).
 */
export interface VectorSpace {
  /** e.g. `wink-sg-100d` or `bedrock:amazon.titan-embed-text-v2:0`. */
  embedder: string;
  dimensions: number;
}

/**
 * What a text is embedded as: asymmetric models (e5, bge) are trained with one instruction before
 * search queries and another (or none) before the passages they should find.
 */
export type EmbeddingPurpose = 'query' | 'document';

/** Text embeddings (Bedrock Titan in AWS; an ONNX sentence transformer locally, wink word vectors as its fallback). */
export interface Embedder {
  readonly space: VectorSpace;
  /**
   * One unit-length vector per text, in order; null for a text with nothing the model can embed
   * (no known word), never a vector of NaNs. `purpose` defaults to 'document'.
   */
  embed(texts: readonly string[], purpose?: EmbeddingPurpose): Promise<(Float32Array | null)[]>;
}

/**
 * Vectors already computed, keyed by embedder and a hash of the embedded text, so re-indexing an
 * unchanged record never pays for its embedding again.
 */
export interface EmbeddingCache {
  get(keys: readonly string[]): Promise<Map<string, Float32Array>>;
  put(entries: ReadonlyMap<string, Float32Array>): Promise<void>;
}
