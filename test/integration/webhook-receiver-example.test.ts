import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReceivedEvent, webhookReceiver } from '../../docs/examples/webhook-receiver';
import { deliveryHeaders, webhookBody } from '../../lambdas/core/webhooks/delivery-policy';
import { newWebhookSecret } from '../../lambdas/core/webhooks/signature';
import { PROJECT_ROOT } from '../../lib/project-root';

/**
 * The receiver docs/webhooks.md shows (docs/examples/webhook-receiver.ts), over real HTTP, fed the
 * exact headers and body the sender makes (deliveryHeaders): a delivery is handled once however
 * often it arrives, and a replay is refused, whether its timestamp is old, its id changed or its
 * body changed, as is a delivery signed with another secret.
 */

const secret = newWebhookSecret();
const handled: ReceivedEvent[] = [];
let server: Server;
let url = '';

const subscription = { secret, previous_secret: null, previous_secret_valid_until: null };
const body = webhookBody('grant.created', { id: 'g-1', title: 'Rural clinics' });

async function post(payload: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(url, { method: 'POST', headers, body: payload });
  await response.arrayBuffer();
  return response.status;
}

beforeAll(async () => {
  server = webhookReceiver(secret, (event) => handled.push(event));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('the documented webhook receiver', () => {
  it('is the code docs/webhooks.md shows', () => {
    const example = readFileSync(join(PROJECT_ROOT, 'docs/examples/webhook-receiver.ts'), 'utf8');
    const page = readFileSync(join(PROJECT_ROOT, 'docs/webhooks.md'), 'utf8');
    expect(page).toContain(example.slice(example.indexOf('import { createServer')).trim());
  });

  it('handles a delivery once, however often it arrives (retries keep the event id)', async () => {
    const headers = deliveryHeaders(body, subscription, 'evt-once', new Date());
    expect(await post(body, headers)).toBe(204);
    expect(await post(body, deliveryHeaders(body, subscription, 'evt-once', new Date()))).toBe(204);
    expect(handled).toEqual([{ id: 'evt-once', event: 'grant.created', data: { id: 'g-1', title: 'Rural clinics' } }]);
  });

  it('refuses a replay: a timestamp over 5 minutes old, a changed id, a changed body', async () => {
    const captured = deliveryHeaders(body, subscription, 'evt-captured', new Date(Date.now() - 6 * 60_000));
    expect(await post(body, captured)).toBe(401);
    const fresh = deliveryHeaders(body, subscription, 'evt-fresh', new Date());
    expect(await post(body, { ...fresh, 'webhook-id': 'evt-other' })).toBe(401);
    expect(await post(body.replace('Rural clinics', 'Urban clinics'), fresh)).toBe(401);
    expect(await post(body, { ...fresh, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) + 1) })).toBe(401);
    expect(handled.map((event) => event.id)).toEqual(['evt-once']);
  });

  it('refuses a delivery signed with another secret, or with no Standard Webhooks headers', async () => {
    const forged = deliveryHeaders(body, { ...subscription, secret: newWebhookSecret() }, 'evt-forged', new Date());
    expect(await post(body, forged)).toBe(401);
    const { 'webhook-signature': _dropped, ...unsigned } = deliveryHeaders(body, subscription, 'evt-unsigned', new Date());
    expect(await post(body, unsigned)).toBe(401);
    expect(handled.map((event) => event.id)).toEqual(['evt-once']);
  });
});
