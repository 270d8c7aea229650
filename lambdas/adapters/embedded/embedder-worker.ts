import { parentPort, workerData } from 'node:worker_threads';
import type { EmbedderWorkerData, EmbedderWorkerMessage, EmbedJobMessage } from './embedder-pool';
import { OnnxSentenceEmbedder } from './onnx-embedder';

// One worker of embedder-pool.ts: a session of the sentence model on one thread, embedding the
// jobs the pool hands it one at a time.
const port = parentPort!;
const send = (message: EmbedderWorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

const { model, files } = workerData as EmbedderWorkerData;
try {
  const embedder = await OnnxSentenceEmbedder.load(model, files, { threads: 1 });
  port.on('message', (job: EmbedJobMessage) => {
    embedder.embed(job.texts, job.purpose).then(
      (vectors) => send({ id: job.id, vectors }, vectors.flatMap((vector) => (vector ? [vector.buffer as ArrayBuffer] : []))),
      (error: unknown) => send({ id: job.id, error: messageOf(error) }),
    );
  });
  send({ ready: true });
} catch (error) {
  send({ ready: false, error: messageOf(error) });
}
