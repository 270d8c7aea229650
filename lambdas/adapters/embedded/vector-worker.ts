import { parentPort, workerData } from 'node:worker_threads';
import { setProductThreads } from './onnx-dot-products';
import { VectorScans } from './vector-scans';
import type { VectorWorkerData, VectorWorkerReply, VectorWorkerRequest } from './worker-vector-scans';

// The worker thread of worker-vector-scans.ts: it holds an index's vectors and runs its scans
// (VectorScans), applying the writes and answering the scans in the order they were sent. Asked
// to stop, it ends once every scan it owes is answered: a thread ended inside the runtime's `run`
// takes the whole process down with it.
const port = parentPort!;
const { dimensions } = workerData as VectorWorkerData;
setProductThreads(1);
const scans = new VectorScans(dimensions);
let owed = 0;
let stopping = false;
const settled = () => {
  owed--;
  if (stopping && owed === 0) process.exit(0);
};
const reply = (message: VectorWorkerReply, transfer: ArrayBuffer[] = []) => {
  port.postMessage(message, transfer);
  settled();
};
const failed = (id: number) => (error: unknown) => reply({ id, error: error instanceof Error ? error.message : String(error) });

port.on('message', (request: VectorWorkerRequest) => {
  switch (request.op) {
    case 'reserve':
      return scans.reserve(request.kind, request.rows);
    case 'set':
      return scans.set(request.kind, request.rowids, request.vectors);
    case 'delete':
      return scans.delete(request.kind, request.rowids);
    case 'stop':
      stopping = true;
      if (owed === 0) process.exit(0);
      return;
    case 'scan':
      owed++;
      return void scans
        .matchesAbove(request.kind, request.query, request.floor)
        .then(
          ({ rowids, cosines }) => reply({ id: request.id, rowids, cosines }, [rowids.buffer as ArrayBuffer, cosines.buffer as ArrayBuffer]),
          failed(request.id),
        );
    case 'cosines':
      owed++;
      return void scans
        .cosinesOf(request.kind, request.rowids, request.query)
        .then((cosines) => reply({ id: request.id, cosines }, [cosines.buffer as ArrayBuffer]), failed(request.id));
  }
});
port.postMessage({ ready: true } satisfies VectorWorkerReply);
