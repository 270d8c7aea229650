import type { BedrockRuntimeClient, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { BedrockEmbedder, type BedrockEmbedderOptions, type BedrockRuntimeLike, type TitanDimensions } from '../../lambdas/adapters/aws/bedrock-embedder';

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const titanAnswer = (embedding: number[]) => ({ body: encode({ embedding, inputTextTokenCount: 3 }) });
/** A unit vector whose one non-zero component says which text it came from (by its length). */
const vectorFor = (inputText: string, dimensions: number) => Array.from({ length: dimensions }, (_, i) => (i === inputText.length % dimensions ? 1 : 0));

/** An error shaped as the SDK throws them. */
function serviceError(name: string, httpStatusCode: number, message = `${name} happened`): Error {
  return Object.assign(new Error(message), { name, $metadata: { httpStatusCode } });
}

interface FakeOptions {
  /** Errors to throw before answering, per call in order. */
  failures?: Error[];
  delayMs?: number;
  answer?: (input: { inputText: string; dimensions: number; normalize: boolean }) => { body?: Uint8Array };
}

/** A stand-in Bedrock runtime that records requests and counts calls in flight. */
function fakeBedrock({ failures = [], delayMs = 0, answer }: FakeOptions = {}) {
  const requests: { modelId?: string; contentType?: string; accept?: string; body: { inputText: string; dimensions: number; normalize: boolean } }[] = [];
  let inFlight = 0;
  const stats = { maxInFlight: 0 };
  const client: BedrockRuntimeLike = {
    async send(command: InvokeModelCommand) {
      const { modelId, contentType, accept } = command.input;
      const body = JSON.parse(String(command.input.body)) as (typeof requests)[number]['body'];
      requests.push({ modelId, contentType, accept, body });
      inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        const failure = failures.shift();
        if (failure) throw failure;
        return answer ? answer(body) : titanAnswer(vectorFor(body.inputText, body.dimensions));
      } finally {
        inFlight--;
      }
    },
  };
  return { client, requests, stats };
}

function embedderOver(client: BedrockRuntimeLike, options: Partial<BedrockEmbedderOptions> = {}) {
  const sleeps: number[] = [];
  const embedder = new BedrockEmbedder(client, {
    dimensions: 256,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...options,
  });
  return { embedder, sleeps };
}

const norm = (vector: Float32Array) => Math.hypot(...vector);

describe('BedrockEmbedder', () => {
  it('accepts the SDK client as its client', () => {
    expectTypeOf<BedrockRuntimeClient>().toMatchTypeOf<BedrockRuntimeLike>();
  });

  it('asks Titan V2 for normalised vectors of the configured size, one text per call', async () => {
    const { client, requests } = fakeBedrock();
    const { embedder } = embedderOver(client, { dimensions: 512 });
    const vectors = await embedder.embed(['police equipment', 'coral reef ecology']);
    expect(embedder.space).toEqual({ embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 512 });
    expect(requests).toEqual([
      {
        modelId: 'amazon.titan-embed-text-v2:0',
        contentType: 'application/json',
        accept: 'application/json',
        body: { inputText: 'police equipment', dimensions: 512, normalize: true },
      },
      {
        modelId: 'amazon.titan-embed-text-v2:0',
        contentType: 'application/json',
        accept: 'application/json',
        body: { inputText: 'coral reef ecology', dimensions: 512, normalize: true },
      },
    ]);
    expect(vectors.map((vector) => vector?.length)).toEqual([512, 512]);
    for (const vector of vectors) expect(norm(vector!)).toBeCloseTo(1, 5);
    // Order is kept: each vector points along its own text's length.
    expect(vectors[0]![16]).toBe(1);
    expect(vectors[1]![18]).toBe(1);
  });

  it('answers null for blank texts without calling the model', async () => {
    const { client, requests } = fakeBedrock();
    const { embedder } = embedderOver(client);
    const vectors = await embedder.embed(['', '  \n\t', 'grants']);
    expect(vectors[0]).toBeNull();
    expect(vectors[1]).toBeNull();
    expect(vectors[2]).toHaveLength(256);
    expect(requests).toHaveLength(1);
  });

  it("truncates a text to Titan's 50,000 characters, never splitting a surrogate pair", async () => {
    const { client, requests } = fakeBedrock();
    const { embedder } = embedderOver(client);
    await embedder.embed(['x'.repeat(60_000), `${'x'.repeat(49_999)}😀tail`]);
    expect(requests[0]!.body.inputText).toHaveLength(50_000);
    expect(requests[1]!.body.inputText).toBe('x'.repeat(49_999));
  });

  it('keeps at most maxConcurrency calls in flight', async () => {
    const { client, requests, stats } = fakeBedrock({ delayMs: 5 });
    const { embedder } = embedderOver(client, { maxConcurrency: 3 });
    const vectors = await embedder.embed(Array.from({ length: 20 }, (_, i) => `text ${'x'.repeat(i)}`));
    expect(requests).toHaveLength(20);
    expect(stats.maxInFlight).toBe(3);
    expect(vectors.every((vector) => vector?.length === 256)).toBe(true);
  });

  it('retries throttling and 5xx answers, then succeeds', async () => {
    const { client, requests } = fakeBedrock({
      failures: [serviceError('ThrottlingException', 429), serviceError('ModelNotReadyException', 429), serviceError('InternalServerException', 500)],
    });
    const { embedder, sleeps } = embedderOver(client);
    const [vector] = await embedder.embed(['police equipment']);
    expect(vector).toHaveLength(256);
    expect(requests).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
  });

  it('retries a call that got no answer: a model or SDK timeout, a connection reset or refused', async () => {
    const networkError = (code: string) => Object.assign(new Error(`socket ${code}`), { code });
    const { client, requests } = fakeBedrock({
      failures: [
        serviceError('ModelTimeoutException', 408),
        Object.assign(new Error('Connection timed out after 3000 ms'), { name: 'TimeoutError' }),
        networkError('ECONNRESET'),
        networkError('ECONNREFUSED'),
      ],
    });
    const { embedder, sleeps } = embedderOver(client);
    const [vector] = await embedder.embed(['police equipment']);
    expect(vector).toHaveLength(256);
    expect(requests).toHaveLength(5);
    expect(sleeps).toHaveLength(4);
  });

  it('backs off exponentially with full jitter, up to a ceiling', async () => {
    const failures = Array.from({ length: 6 }, () => serviceError('ServiceUnavailableException', 503));
    const jitter = [0.9, 0.1, 0.5, 0.99, 0.3, 0.7];
    const { client } = fakeBedrock({ failures: [...failures] });
    const { embedder, sleeps } = embedderOver(client, { baseDelayMs: 100, maxDelayMs: 1_000, random: () => jitter[sleeps.length]! });
    await embedder.embed(['police equipment']);
    const ceilings = [100, 200, 400, 800, 1_000, 1_000];
    expect(sleeps).toEqual(ceilings.map((ceiling, i) => ceiling * jitter[i]!));

    const steady = embedderOver(fakeBedrock({ failures: [...failures] }).client, { baseDelayMs: 100, maxDelayMs: 1_000, random: () => 0.999 });
    await steady.embedder.embed(['police equipment']);
    for (let i = 1; i < 4; i++) expect(steady.sleeps[i]!).toBeGreaterThan(steady.sleeps[i - 1]!);
  });

  it('gives up after the configured retries with an error that names the failure but not the text', async () => {
    const secret = 'Jane Doe, 12 Elm Street, SSN 123-45-6789';
    const { client, requests } = fakeBedrock({
      failures: Array.from({ length: 10 }, () => serviceError('ThrottlingException', 429, `Too many requests for ${secret}`)),
    });
    const { embedder, sleeps } = embedderOver(client, { retries: 2 });
    const failure = await embedder.embed([secret]).catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/gave up after 3 attempts embedding text 1 of 1: ThrottlingException \(HTTP 429\)/);
    expect((failure as Error).message).not.toContain('Jane');
    expect(requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('does not retry an error that will not go away', async () => {
    const { client, requests } = fakeBedrock({ failures: [serviceError('ValidationException', 400, 'Malformed input request')] });
    const { embedder, sleeps } = embedderOver(client);
    await expect(embedder.embed(['police equipment'])).rejects.toThrow(/failed embedding text 1 of 1: ValidationException \(HTTP 400\)/);
    expect(requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('stops starting calls once one has failed', async () => {
    const { client, requests } = fakeBedrock({ failures: [serviceError('AccessDeniedException', 403)], delayMs: 2 });
    const { embedder } = embedderOver(client, { maxConcurrency: 2 });
    await expect(embedder.embed(Array.from({ length: 50 }, (_, i) => `text ${i}`))).rejects.toThrow(/AccessDeniedException/);
    expect(requests.length).toBeLessThan(5);
  });

  it('rejects answers that are not an embedding of the configured size, and re-normalises good ones', async () => {
    const cases: [{ body?: Uint8Array }, RegExp][] = [
      [titanAnswer([1, 2, 3]), /without an embedding of 256 finite numbers/],
      [{ body: encode({ embedding: [...new Array(255).fill(1), null] }) }, /without an embedding of 256 finite numbers/],
      [{ body: new TextEncoder().encode('<html>') }, /not JSON/],
      [titanAnswer(new Array(256).fill(0)), /zero vector/],
    ];
    for (const [answer, error] of cases) {
      const { embedder } = embedderOver(fakeBedrock({ answer: () => answer }).client);
      await expect(embedder.embed(['police equipment'])).rejects.toThrow(error);
    }
    const { embedder } = embedderOver(fakeBedrock({ answer: () => titanAnswer(new Array(256).fill(3)) }).client);
    const [vector] = await embedder.embed(['police equipment']);
    expect(norm(vector!)).toBeCloseTo(1, 5);
  });

  it('refuses dimensions Titan V2 does not offer and nonsensical limits', () => {
    const { client } = fakeBedrock();
    expect(() => new BedrockEmbedder(client, { dimensions: 300 as TitanDimensions })).toThrow(/256, 512, 1024/);
    expect(() => new BedrockEmbedder(client, { dimensions: 256, maxConcurrency: 0 })).toThrow(/maxConcurrency/);
    expect(() => new BedrockEmbedder(client, { dimensions: 256, retries: -1 })).toThrow(/retries/);
    for (const dimensions of [256, 512, 1024] as const) {
      expect(new BedrockEmbedder(client, { dimensions }).space.dimensions).toBe(dimensions);
    }
  });
});
