import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbedderPool } from '../../lambdas/adapters/embedded/embedder-pool';
import { OnnxSentenceEmbedder } from '../../lambdas/adapters/embedded/onnx-embedder';
import { DEFAULT_SENTENCE_MODEL, SENTENCE_MODELS } from '../../lambdas/adapters/embedded/sentence-models';
import { embedderWorkers } from '../../local/local-embedder';
import { verifiedModelFiles } from '../../local/sentence-model-files';

/**
 * The sentence model in worker threads (embedder-pool.ts): the same vectors as the model run in
 * this thread, in the order asked, split over the workers; queries ahead of queued documents; a
 * worker that dies fails only its own texts and is replaced; a model that does not load is an
 * error at start.
 */

const model = SENTENCE_MODELS[DEFAULT_SENTENCE_MODEL];
const DOCUMENTS = [
  'Lead Hazard Reduction Grant Program: removing lead-based paint hazards from homes with young children',
  'Rural broadband deployment for unserved communities',
  '   ',
  'Community health workers in tribal clinics',
  'Wildfire risk reduction on state and private forest land',
  'Apprenticeships in advanced manufacturing',
  'Watershed restoration and water quality monitoring',
  'Transit buses and facilities for small urban areas',
  'Historic preservation of community landmarks',
];

let pool: EmbedderPool;
let inThread: OnnxSentenceEmbedder;

beforeAll(async () => {
  [pool, inThread] = await Promise.all([
    EmbedderPool.start(model, verifiedModelFiles(model), { workers: 2 }),
    OnnxSentenceEmbedder.load(model, verifiedModelFiles(model)),
  ]);
});

afterAll(async () => {
  await Promise.all([pool?.close(), inThread?.close()]);
});

const workersOf = (embedders: EmbedderPool) => (embedders as unknown as { slots: { worker: { postMessage(message: unknown): void }; job?: unknown }[] }).slots;

describe('EmbedderPool', () => {
  it('gives every text the vector the model gives it in this thread, in order, across its workers', async () => {
    expect(pool.workers).toBe(2);
    expect(pool.space).toEqual(inThread.space);
    const [fromPool, fromThread] = [await pool.embed(DOCUMENTS), await inThread.embed(DOCUMENTS)];
    expect(fromPool).toHaveLength(DOCUMENTS.length);
    expect(fromPool[2]).toBeNull();
    fromPool.forEach((vector, i) => (vector ? expect(Array.from(vector)).toEqual(Array.from(fromThread[i]!)) : expect(fromThread[i]).toBeNull()));
    const [query] = await pool.embed(['grants to reduce childhood lead exposure'], 'query');
    expect(Array.from(query!)).toEqual(Array.from((await inThread.embed(['grants to reduce childhood lead exposure'], 'query'))[0]!));
    expect(await pool.embed([])).toEqual([]);
  });

  it('embeds a query before documents queued ahead of it', async () => {
    const finished: string[] = [];
    const documents = pool.embed(Array.from({ length: 40 }, (_, i) => `${DOCUMENTS[i % DOCUMENTS.length]} (${i})`)).then(() => finished.push('documents'));
    const query = pool.embed(['rural broadband'], 'query').then(() => finished.push('query'));
    await Promise.all([documents, query]);
    expect(finished).toEqual(['query', 'documents']);
  });

  it('fails the texts of a worker that dies, and replaces it', async () => {
    const call = pool.embed(Array.from({ length: 20 }, (_, i) => `${DOCUMENTS[0]} ${i}`));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const busy = workersOf(pool).find((slot) => slot.job);
    expect(busy).toBeDefined();
    // A message the worker throws on ends it, as any uncaught error in it would; it reads it
    // between two texts of its job, so that job's texts are lost with it.
    busy!.worker.postMessage(null);
    await expect(call).rejects.toThrow(/embedding worker stopped \(exit code 1\)/);
    const [vector] = await pool.embed(['after a worker died'], 'query');
    expect(vector!.length).toBe(model.dimensions);
    await expect.poll(() => pool.workers, { timeout: 30_000 }).toBe(2);
  });

  it('finishes the texts under way when closed, and refuses those still waiting', async () => {
    const closing = await EmbedderPool.start(model, verifiedModelFiles(model), { workers: 1 });
    // The first job goes to the worker at once; the second waits for it.
    const first = closing.embed([DOCUMENTS[0]!, DOCUMENTS[1]!]);
    const refused = expect(closing.embed([DOCUMENTS[3]!, DOCUMENTS[4]!])).rejects.toThrow(/closed/);
    await closing.close();
    expect((await first).every((vector) => vector?.length === model.dimensions)).toBe(true);
    await refused;
    await expect(closing.embed(['after'])).rejects.toThrow(/closed/);
  });

  it('refuses a model that does not load, saying why, and a pool of no workers', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'embedder-pool-'));
    const broken = join(folder, 'broken.onnx');
    writeFileSync(broken, 'not a model');
    await expect(EmbedderPool.start(model, { ...verifiedModelFiles(model), model: broken }, { workers: 1 })).rejects.toThrow(/broken\.onnx|protobuf|model/i);
    await expect(EmbedderPool.start(model, verifiedModelFiles(model), { workers: 0 })).rejects.toThrow(/at least one worker/);
  });
});

describe('embedderWorkers', () => {
  it('takes GCF_EMBEDDER_WORKERS, refuses nonsense, and defaults to a worker a core but one, one to four', () => {
    expect(embedderWorkers('3')).toBe(3);
    expect(() => embedderWorkers('0')).toThrow(/GCF_EMBEDDER_WORKERS must be a whole number from 1 to 16, got 0/);
    expect(() => embedderWorkers('two')).toThrow(/got two/);
    expect(embedderWorkers('')).toBeGreaterThanOrEqual(1);
    expect(embedderWorkers(undefined)).toBeLessThanOrEqual(4);
  });
});
