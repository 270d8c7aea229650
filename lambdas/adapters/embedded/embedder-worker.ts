import { parentPort, workerData } from 'node:worker_threads';
import type { EmbedderWorkerData, EmbedderWorkerMessage, EmbedderWorkerRequest } from './embedder-pool';
import { OnnxSentenceEmbedder } from './onnx-embedder';

// One worker of embedder-pool.ts: a session of the sentence model on one thread, embedding the
// jobs the pool hands it one at a time. Asked to stop, it ends once its job is done: a thread ended
// inside the runtime's `run` takes the whole process down with it.
const port = parentPort!;
const send = (message: EmbedderWorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

const { model, files } = workerData as EmbedderWorkerData;
try {
  const embedder = await OnnxSentenceEmbedder.load(model, files, { threads: 1 });
  let working = false;
  let stopping = false;
  const stop = async () => {
    await embedder.close();
    process.exit(0);
  };
  port.on('message', (request: EmbedderWorkerRequest) => {
    if ('stop' in request) {
      stopping = true;
      if (!working) void stop();
      return;
    }
    working = true;
    embedder
      .embed(request.texts, request.purpose)
      .then(
        (vectors) =>
          send(
            { id: request.id, vectors },
            vectors.flatMap((vector) => (vector ? [vector.buffer as ArrayBuffer] : [])),
          ),
        (error: unknown) => send({ id: request.id, error: messageOf(error) }),
      )
      .finally(() => {
        working = false;
        if (stopping) void stop();
      });
  });
  send({ ready: true });
} catch (error) {
  send({ ready: false, error: messageOf(error) });
}
