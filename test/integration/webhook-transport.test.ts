import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpWebhookTransport } from '../../lambdas/adapters/http-webhook-transport';
import { deliveryHeaders, RESPONSE_BODY_LIMIT, webhookBody } from '../../lambdas/core/webhooks/delivery-policy';
import { verifyServiceSignature } from '../../lambdas/core/webhooks/signature';

/** The sender's HTTP side against a real receiver on loopback that misbehaves on request. */

let server: Server;
let port: number;
const received: { path: string; body: string; headers: IncomingMessage['headers'] }[] = [];

const behaviours: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/ok': (_req, res) => res.writeHead(204).end(),
  '/hang': () => {
    /* never answers */
  },
  '/huge': (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    const chunk = 'x'.repeat(64 * 1024);
    let sent = 0;
    const pump = () => {
      while (sent < 50 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
      if (sent < 50 * 1024 * 1024) res.once('drain', pump);
      else res.end();
    };
    pump();
  },
  '/redirect': (_req, res) => res.writeHead(302, { Location: '/ok' }).end(),
  '/garbage': (req) => req.socket.end('HTTP/1.1 ???\r\n\r\n\u0000\u0001garbage'),
  '/busy': (_req, res) => res.writeHead(503, { 'Retry-After': '120' }).end('try later'),
  '/gone': (_req, res) => res.writeHead(410).end(),
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      (behaviours[req.url ?? ''] ?? ((_q, s) => s.writeHead(404).end()))(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const secret = 'whsec_test-secret-test-secret-test-secret-0123';
function attempt(path: string, timeoutMs = 2_000, host = '127.0.0.1') {
  const body = webhookBody('grant.created', { id: 'g1', title: 'Ünïcode “title”', amount_max: 1, deadline_date: null });
  const headers = deliveryHeaders(body, { secret, previous_secret: null, previous_secret_valid_until: null }, 'evt-1', new Date());
  return { url: `http://${host}:${port}${path}`, addresses: ['127.0.0.1'], body, headers, timeoutMs };
}

describe('HTTP webhook transport', () => {
  it('POSTs the exact signed bytes and reports a 2xx', async () => {
    const result = await httpWebhookTransport.send(attempt('/ok'));
    expect(result).toMatchObject({ status: 204, error: null });
    const got = received.at(-1)!;
    expect(got.path).toBe('/ok');
    expect(verifyServiceSignature(got.body, String(got.headers['x-service-signature']), secret)).toBe(true);
    expect(got.headers['x-service-event-id']).toBe('evt-1');
    expect(got.headers['content-type']).toBe('application/json');
  });

  it('connects to the checked address, whatever the name would resolve to now', async () => {
    const result = await httpWebhookTransport.send(attempt('/ok', 2_000, 'rebinding.invalid'));
    expect(result.status).toBe(204);
    expect(received.at(-1)!.headers.host).toBe(`rebinding.invalid:${port}`);
  });

  it('cuts off a receiver that hangs at the timeout', async () => {
    const result = await httpWebhookTransport.send(attempt('/hang', 300));
    expect(result).toMatchObject({ status: null, error: 'no answer within 300 ms' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
    expect(result.latencyMs).toBeLessThan(2_000);
  });

  it('reads only the start of a huge answer', async () => {
    const result = await httpWebhookTransport.send(attempt('/huge'));
    expect(result.status).toBe(200);
    expect(result.responseExcerpt.length).toBeLessThanOrEqual(RESPONSE_BODY_LIMIT);
    expect(result.latencyMs).toBeLessThan(2_000);
  });

  it('does not follow a redirect, and survives garbage', async () => {
    const before = received.length;
    expect(await httpWebhookTransport.send(attempt('/redirect'))).toMatchObject({ status: 302 });
    expect(received.slice(before).map((r) => r.path)).toEqual(['/redirect']);
    const garbage = await httpWebhookTransport.send(attempt('/garbage'));
    expect(garbage.status).toBeNull();
    expect(garbage.error).toMatch(/HPE_|parse/i);
  });

  it('reports Retry-After, 410 and a refused connection', async () => {
    expect(await httpWebhookTransport.send(attempt('/busy'))).toMatchObject({ status: 503, retryAfter: '120', responseExcerpt: 'try later' });
    expect((await httpWebhookTransport.send(attempt('/gone'))).status).toBe(410);
    const refused = await httpWebhookTransport.send({ ...attempt('/ok'), url: 'http://127.0.0.1:9/ok' });
    expect(refused).toMatchObject({ status: null, error: 'ECONNREFUSED' });
  });
});
