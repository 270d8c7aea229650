import type { Worker } from 'node:worker_threads';
import type { Embedder, EmbeddingPurpose, VectorSpace } from '../../ports/embedder';
import { bundledWorker } from './bundled-worker';
import type { SentenceModelFiles } from './onnx-embedder';
import { type SentenceModel, sentenceModelSpace } from './sentence-models';

/**
 * The sentence-embedding model run in worker threads, a session in each (embedder-worker.ts), so
 * the event loop that serves requests never waits for the model: ONNX Runtime's `run` is
 * synchronous in the calling thread, and on the main thread each query held every other request
 * back. Texts are queued here and handed to whichever worker is free, search queries
 * before documents, so a query waits for at most one small slice of an ingest's texts. One worker
 * keeps one core busy: a session embeds one text at a time (onnx-embedder.ts says why), and two
 * intra-op threads made a short query no faster, so parallel texts need parallel sessions, each
 * with its own copy of the model.
 */

export interface EmbedderWorkerData {
  model: SentenceModel;
  files: SentenceModelFiles;
}

/** Messages a worker sends: ready (or not) once its session is loaded, then one reply per job. */
export type EmbedderWorkerMessage =
  | { ready: true }
  | { ready: false; error: string }
  | { id: number; vectors: (Float32Array | null)[] }
  | { id: number; error: string };

export interface EmbedJobMessage {
  id: number;
  texts: string[];
  purpose: EmbeddingPurpose;
}

/** What the pool sends a worker: a job, or to stop once its job is done. */
export type EmbedderWorkerRequest = EmbedJobMessage | { stop: true };

/** Documents per job: a slice of a large call takes tens of milliseconds, so queries behind it wait little. */
const DOCUMENT_SLICE = 2;

interface Job extends EmbedJobMessage {
  resolve: (vectors: (Float32Array | null)[]) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job?: Job;
}

export class EmbedderPool implements Embedder {
  readonly space: VectorSpace;
  private readonly slots: Slot[] = [];
  private readonly waiting: Record<EmbeddingPurpose, Job[]> = { query: [], document: [] };
  private nextId = 0;
  private closed = false;

  private constructor(private readonly data: EmbedderWorkerData) {
    this.space = sentenceModelSpace(data.model);
  }

  /** Starts `workers` workers and waits for each to load the model; a model that fails to load in any is an error. */
  static async start(model: SentenceModel, files: SentenceModelFiles, options: { workers: number }): Promise<EmbedderPool> {
    if (!(Number.isInteger(options.workers) && options.workers >= 1)) throw new Error(`an embedder pool needs at least one worker, got ${options.workers}`);
    const pool = new EmbedderPool({ model, files });
    try {
      await Promise.all(Array.from({ length: options.workers }, () => pool.spawn()));
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  get workers(): number {
    return this.slots.length;
  }

  async embed(texts: readonly string[], purpose: EmbeddingPurpose = 'document'): Promise<(Float32Array | null)[]> {
    if (texts.length === 0) return [];
    const size = purpose === 'query' ? 1 : DOCUMENT_SLICE;
    const slices: Promise<(Float32Array | null)[]>[] = [];
    for (let start = 0; start < texts.length; start += size) slices.push(this.submit(texts.slice(start, start + size), purpose));
    return (await Promise.all(slices)).flat();
  }

  /**
   * Refuses the texts still waiting and stops each worker once its job is done (the texts it is
   * embedding get their vectors): a worker ended inside the runtime's `run` would end the process.
   */
  async close(): Promise<void> {
    this.closed = true;
    const stopped = new Error('the embedder pool was closed');
    for (const job of [...this.waiting.query, ...this.waiting.document]) job.reject(stopped);
    this.waiting.query.length = 0;
    this.waiting.document.length = 0;
    await Promise.all(
      this.slots.map(
        ({ worker }) =>
          new Promise<void>((resolve) => {
            worker.once('exit', () => resolve());
            const stop: EmbedderWorkerRequest = { stop: true };
            worker.ref();
            worker.postMessage(stop);
          }),
      ),
    );
  }

  private submit(texts: string[], purpose: EmbeddingPurpose): Promise<(Float32Array | null)[]> {
    if (this.closed) return Promise.reject(new Error('the embedder pool was closed'));
    return new Promise((resolve, reject) => {
      this.waiting[purpose].push({ id: this.nextId++, texts, purpose, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (!slot.ready || slot.job) continue;
      const job = this.waiting.query.shift() ?? this.waiting.document.shift();
      if (!job) return;
      slot.job = job;
      // Referenced only while it works: an idle pool does not keep a finished command's process alive.
      slot.worker.ref();
      const message: EmbedderWorkerRequest = { id: job.id, texts: job.texts, purpose: job.purpose };
      slot.worker.postMessage(message);
    }
  }

  /** A worker in a new slot (at start, or in place of one that stopped), ready once its model is loaded. */
  private spawn(): Promise<void> {
    const slot: Slot = { worker: bundledWorker(new URL('./embedder-worker.ts', import.meta.url), this.data), ready: false };
    this.slots.push(slot);
    return new Promise((resolve, reject) => {
      slot.worker.on('message', (message: EmbedderWorkerMessage) => {
        if ('ready' in message) {
          if (!message.ready) return reject(new Error(message.error));
          slot.ready = true;
          slot.worker.unref();
          resolve();
          this.dispatch();
          return;
        }
        const { job } = slot;
        slot.job = undefined;
        slot.worker.unref();
        if (job && job.id === message.id) {
          if ('error' in message) job.reject(new Error(`the embedding model failed: ${message.error}`));
          else job.resolve(message.vectors);
        }
        this.dispatch();
      });
      slot.worker.on('error', (error) => {
        if (!slot.ready) reject(error);
      });
      slot.worker.on('exit', (code) => {
        this.slots.splice(this.slots.indexOf(slot), 1);
        if (!slot.ready) return reject(new Error(`the embedding worker stopped while loading the model (exit code ${code})`));
        slot.job?.reject(new Error(`the embedding worker stopped (exit code ${code})`));
        // A worker that died is replaced, so the pool keeps its size; its job is not retried here
        // (the caller sees the error, as with a model that did not answer).
        if (!this.closed) this.spawn().catch(() => {});
      });
    });
  }
}
