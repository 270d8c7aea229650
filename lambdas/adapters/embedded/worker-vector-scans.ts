import type { Worker } from 'node:worker_threads';
import type { ResourceKind } from '../../core/records';
import { bundledWorker } from './bundled-worker';
import type { Matches } from './vector-matrix';
import type { VectorSearch } from './vector-scans';

/**
 * An index's vectors in a worker thread (vector-worker.ts), scanned there: the serving event
 * loop sends writes and scans as messages and gets matches back, and never spends the product's
 * milliseconds itself. A worker that dies loses its vectors: the scans it owed fail, a new worker
 * starts, and the index sends it every vector again (`reload`) before any later scan.
 */

export interface VectorWorkerData {
  dimensions: number;
}

export type VectorWorkerRequest =
  | { op: 'reserve'; kind: ResourceKind; rows: number }
  | { op: 'set'; kind: ResourceKind; rowids: Int32Array; vectors: Float32Array }
  | { op: 'delete'; kind: ResourceKind; rowids: Int32Array }
  | { op: 'scan'; id: number; kind: ResourceKind; query: Float32Array; floor: number }
  | { op: 'cosines'; id: number; kind: ResourceKind; rowids: Int32Array; query: Float32Array }
  | { op: 'stop' };

export type VectorWorkerReply =
  | { ready: true }
  | { id: number; rowids: Int32Array; cosines: Float32Array }
  | { id: number; cosines: Float32Array }
  | { id: number; error: string };

/** An array's buffer when the array is all of it (never a view into a pool or a larger buffer). */
function ownedBuffer(array: Int32Array | Float32Array): ArrayBuffer[] {
  const { buffer } = array;
  return buffer instanceof ArrayBuffer && array.byteOffset === 0 && array.byteLength === buffer.byteLength ? [buffer] : [];
}

interface Waiting {
  resolve: (reply: VectorWorkerReply) => void;
  reject: (error: Error) => void;
}

export class WorkerVectorScans implements VectorSearch {
  private worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  private closed = false;

  /** `reload` sends every vector of the index again, to a worker started in place of one that died. */
  constructor(
    private readonly dimensions: number,
    private readonly reload: (scans: VectorSearch) => void,
  ) {
    this.worker = this.start();
  }

  reserve(kind: ResourceKind, rows: number): void {
    this.send({ op: 'reserve', kind, rows });
  }

  /** Arrays that own their whole buffer are handed to the worker, not copied: the caller must not use them again. */
  set(kind: ResourceKind, rowids: Int32Array, vectors: Float32Array): void {
    this.send({ op: 'set', kind, rowids, vectors }, [rowids, vectors].flatMap(ownedBuffer));
  }

  delete(kind: ResourceKind, rowids: Int32Array): void {
    this.send({ op: 'delete', kind, rowids }, ownedBuffer(rowids));
  }

  async matchesAbove(kind: ResourceKind, query: Float32Array, floor: number): Promise<Matches> {
    const reply = await this.ask((id) => ({ op: 'scan', id, kind, query, floor }));
    if (!('rowids' in reply)) throw new Error('the vector worker answered a scan without matches');
    return { rowids: reply.rowids, cosines: reply.cosines };
  }

  async cosinesOf(kind: ResourceKind, rowids: Int32Array, query: Float32Array): Promise<Float32Array> {
    const reply = await this.ask((id) => ({ op: 'cosines', id, kind, rowids, query }));
    if (!('cosines' in reply)) throw new Error('the vector worker answered without cosines');
    return reply.cosines;
  }

  /** Stops the worker once it has answered every scan it owes (a worker ended inside the runtime's `run` would end the process). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const { worker } = this;
    await new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.ref();
      worker.postMessage({ op: 'stop' } satisfies VectorWorkerRequest);
    });
  }

  private start(): Worker {
    const data: VectorWorkerData = { dimensions: this.dimensions };
    const worker = bundledWorker(new URL('./vector-worker.ts', import.meta.url), data);
    worker.unref();
    worker.on('message', (reply: VectorWorkerReply) => {
      if ('ready' in reply) return;
      const waiting = this.waiting.get(reply.id);
      if (!waiting) return;
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      if ('error' in reply) waiting.reject(new Error(`the vector scan failed: ${reply.error}`));
      else waiting.resolve(reply);
    });
    worker.on('error', () => {});
    worker.on('exit', (code) => {
      if (worker !== this.worker) return;
      this.failWaiting(
        new Error(`the vector worker stopped (exit code ${code}); its scans are lost${this.closed ? '' : ', and a new worker is loading the vectors'}`),
      );
      if (this.closed) return;
      this.worker = this.start();
      this.reload(this);
    });
    return worker;
  }

  private send(request: VectorWorkerRequest, transfer: ArrayBuffer[] = []): void {
    if (this.closed) throw new Error('the search index was closed');
    this.worker.postMessage(request, transfer);
  }

  private ask(request: (id: number) => VectorWorkerRequest): Promise<VectorWorkerReply> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new Error('the search index was closed'));
      this.waiting.set(id, { resolve, reject });
      // Referenced while it owes an answer, so a command awaiting a scan is not cut short.
      this.worker.ref();
      this.worker.postMessage(request(id));
    });
  }

  private failWaiting(error: Error): void {
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}
