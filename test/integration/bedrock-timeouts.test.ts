import { createServer, type Http2Server, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bedrockEmbedder } from '../../lambdas/composition/aws-search';

/**
 * The Bedrock client the functions build (composition root) against a Bedrock Runtime endpoint
 * that accepts the call and never answers: each call gives up at its request timeout, is retried
 * (by the SDK once, then by the adapter with backoff), and the embed fails with a TimeoutError
 * instead of waiting for the function's own timeout.
 */
describe('Bedrock calls that never answer', () => {
  let server: Http2Server;
  let calls = 0;
  const sessions = new Set<ServerHttp2Session>();
  const env = { EMBEDDING_MODEL: 'amazon.titan-embed-text-v2:0', EMBEDDING_DIMENSIONS: '256' } as NodeJS.ProcessEnv;

  beforeAll(async () => {
    server = createServer(() => {
      calls++;
    });
    server.on('session', (session) => sessions.add(session));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    process.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    process.env.AWS_REGION ??= 'us-east-1';
    process.env.AWS_ACCESS_KEY_ID ??= 'test';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  });

  afterAll(async () => {
    delete process.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME;
    // The client keeps its HTTP/2 session open; close() would wait for it.
    for (const session of sessions) session.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('times each call out, retries it, and fails with the timeout after the last attempt', async () => {
    const embedder = bedrockEmbedder(env, { retries: 1, maxDelayMs: 10 }, { requestMs: 300, connectionMs: 300 });
    const started = Date.now();
    const failure = await embedder.embed(['police radios']).catch((error: unknown) => error as Error);
    const elapsed = Date.now() - started;
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/gave up after 2 attempts embedding text 1 of 1: TimeoutError/);
    // Two adapter attempts, each the SDK's first call and one retry: four calls of 300 ms.
    expect(calls).toBe(4);
    expect(elapsed).toBeGreaterThanOrEqual(1_100);
    expect(elapsed).toBeLessThan(10_000);
  });
});
