import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Grant } from '../../lambdas/core/records';
import { replayDelivery } from '../../lambdas/core/use-cases/deliver-webhook';
import { createKey } from '../../lambdas/core/use-cases/manage-keys';
import { addSubscription, rotateSecret } from '../../lambdas/core/use-cases/manage-webhooks';
import { verifyServiceSignature, verifyWebhookSignature } from '../../lambdas/core/webhooks/signature';
import type { Delivery } from '../../lambdas/ports/delivery-log';
import { type EmbeddedStack, startEmbeddedStack } from '../../local/embedded-stack';
import { DEFAULT_CATALOGUE, generateFunders, generateGrants } from '../../local/synthetic-catalogue';
import { openApiConformance } from '../support/openapi-conformance';

/**
 * Webhooks end to end on the embedded stack: a record written through the store becomes a change
 * event, fanned out to subscriptions and POSTed to a real receiver on loopback, with a fast retry
 * schedule. The receiver misbehaves on request.
 */

interface Received {
  path: string;
  body: string;
  headers: IncomingMessage['headers'];
}

let stack: EmbeddedStack;
let receiver: Server;
let base: string;
let keyId: string;
let grants: Grant[];
const received: Received[] = [];
/** Per path: how many of its next requests fail (500), or 'down' for all of them. */
const failures = new Map<string, number | 'down' | 'hang'>();

beforeAll(async () => {
  receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      received.push({ path, body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      const failing = failures.get(path);
      if (failing === 'hang') return;
      if (failing === 'down' || (typeof failing === 'number' && failing > 0)) {
        if (typeof failing === 'number') failures.set(path, failing - 1);
        res.writeHead(500).end('not now');
        return;
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  stack = await startEmbeddedStack({ seed: false, webhooks: { schedule: [0.05, 0.1, 0.15], timeoutMs: 500, subscriptionCacheMs: 0 } });
  keyId = (await createKey(stack.services.keys, { tier: 'developer', owner: 'dev@example.org', label: '' }, randomBytes, new Date())).record.key_id;
  const spec = { ...DEFAULT_CATALOGUE, funders: 3, grants: 12, awardedGrants: 0, contracts: 0, awardedContracts: 0, today: '2026-11-22' };
  grants = [...generateGrants(spec, generateFunders(spec))].flat();
});
afterAll(async () => {
  await stack?.close();
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

async function subscribe(path: string, events: string[], filter?: string) {
  return addSubscription(
    { webhooks: stack.webhooks, keys: stack.services.keys, resolver: { resolve: async () => ['127.0.0.1'] } },
    { keyId, url: `${base}${path}`, events, filter },
    'local',
    new Date(),
  );
}

async function settledDelivery(subscriptionId: string, eventId?: string): Promise<Delivery> {
  for (let i = 0; i < 200; i++) {
    await stack.webhookDispatcher!.settle();
    const found = (await stack.deliveries.list(subscriptionId, 50)).filter((d) => !eventId || d.event_id === eventId);
    const done = found.find((d) => d.status !== 'pending' && d.status !== 'retrying');
    if (done) return done;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no finished delivery for ${subscriptionId}`);
}

const receivedAt = (path: string) => received.filter((r) => r.path === path);

describe('webhook delivery on the embedded stack', () => {
  it('delivers created and updated events, signed, with the full record', async () => {
    const { secret, subscription } = await subscribe('/changes', ['grant.created', 'grant.updated']);
    const grant = grants[0]!;
    await stack.services.store.put('grant', [grant]);
    const created = await settledDelivery(subscription.subscription_id);
    expect(created).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 204, event: 'grant.created' });

    await stack.services.store.put('grant', [{ ...grant, title: `${grant.title} (amended)` }]);
    // Rewriting it unchanged is no event at all.
    await stack.services.store.put('grant', [{ ...grant, title: `${grant.title} (amended)` }]);
    await stack.webhookDispatcher!.settle();
    for (let i = 0; i < 100 && receivedAt('/changes').length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 25));

    const bodies = receivedAt('/changes').map((r) => {
      expect(verifyServiceSignature(r.body, String(r.headers['x-service-signature']), secret)).toBe(true);
      // Standard Webhooks, checked by the standardwebhooks package as a receiver would, and by our own verifier.
      expect(new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).toEqual(JSON.parse(r.body));
      expect(verifyWebhookSignature(r.body, r.headers, secret)).toBe(true);
      expect(r.headers['webhook-id']).toBe(r.headers['x-service-event-id']);
      expect(r.headers['x-service-event-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(Date.parse(String(r.headers['x-service-timestamp']))).not.toBeNaN();
      return JSON.parse(r.body) as { event: string; data: Grant };
    });
    expect(bodies.map((b) => b.event)).toEqual(['grant.created', 'grant.updated']);
    expect(bodies[0]!.data).toEqual(grant);
    expect(bodies[1]!.data.title).toBe(`${grant.title} (amended)`);
  });

  it('keeps trying a receiver that fails its first attempts, with the same event id every time', async () => {
    const { subscription } = await subscribe('/flaky', ['grant.created']);
    failures.set('/flaky', 2);
    await stack.services.store.put('grant', [grants[1]!]);
    const delivery = await settledDelivery(subscription.subscription_id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 204 });
    const attempts = receivedAt('/flaky');
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.headers['x-service-event-id'])).size).toBe(1);
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
  });

  it('sends an event a receiver never took to the dead-letter queue, loses nothing, and replay delivers it', async () => {
    const { subscription } = await subscribe('/down', ['grant.created']);
    failures.set('/down', 'down');
    await stack.services.store.put('grant', [grants[2]!]);
    const failed = await settledDelivery(subscription.subscription_id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 4, last_status_code: 500, last_response: 'not now' });
    expect(stack.webhookDispatcher!.queue.deadLetters).toContainEqual({ delivery_id: failed.delivery_id });

    failures.delete('/down');
    await replayDelivery({ log: stack.deliveries, queue: stack.webhookDispatcher!.queue, clock: stack.services.clock }, failed.delivery_id);
    const replayed = await settledDelivery(subscription.subscription_id);
    expect(replayed).toMatchObject({ delivery_id: failed.delivery_id, status: 'delivered', attempts: 1 });
    const bodies = new Set(receivedAt('/down').map((r) => r.body));
    expect(bodies.size).toBe(1);
  });

  it('cuts off a receiver that hangs, and retries it', async () => {
    const { subscription } = await subscribe('/hang', ['grant.created']);
    failures.set('/hang', 'hang');
    await stack.services.store.put('grant', [grants[3]!]);
    const delivery = await settledDelivery(subscription.subscription_id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 4, last_status_code: null, last_error: 'no answer within 500 ms' });
  });

  it("sends deadline_approaching once per record and deadline within each subscription's window; a moved deadline sends again", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    const { secret, subscription } = await subscribe('/deadlines', ['grant.deadline_approaching']);
    const { subscription: wide } = await subscribe('/deadlines-wide', ['grant.deadline_approaching']);
    await stack.webhooks.update(subscription.subscription_id, { days_before: 3 });
    await stack.webhooks.update(wide.subscription_id, { days_before: 12 });
    const soon = { ...grants[5]!, status: 'posted' as const, deadline_date: inDays(2) };
    const later = { ...grants[6]!, status: 'posted' as const, deadline_date: inDays(10) };
    const closed = { ...grants[7]!, status: 'closed' as const, deadline_date: inDays(1) };
    const today0 = { ...grants[8]!, status: 'posted' as const, deadline_date: today };
    await stack.services.store.put('grant', [soon, later, closed, today0]);

    const scan = () => stack.webhookDispatcher!.scanDeadlines();
    expect(await scan()).toBe(2 + 3);
    expect(await scan()).toBe(0);
    await stack.webhookDispatcher!.settle();
    for (let i = 0; i < 100 && receivedAt('/deadlines').length + receivedAt('/deadlines-wide').length < 5; i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    const ids = (path: string) =>
      receivedAt(path)
        .map((r) => JSON.parse(r.body) as { event: string; data: Grant })
        .map((b) => {
          expect(b.event).toBe('grant.deadline_approaching');
          return b.data.id;
        })
        .sort();
    expect(ids('/deadlines')).toEqual([soon.id, today0.id].sort());
    expect(ids('/deadlines-wide')).toEqual([soon.id, later.id, today0.id].sort());
    expect(verifyServiceSignature(receivedAt('/deadlines')[0]!.body, String(receivedAt('/deadlines')[0]!.headers['x-service-signature']), secret)).toBe(true);

    // The deadline moves: a new reminder for the new date (once more to each window it is in).
    await stack.services.store.put('grant', [{ ...soon, deadline_date: inDays(1) }]);
    expect(await scan()).toBe(2);
    expect(await scan()).toBe(0);
  });

  it('sends a saved search only the created, updated and deadline events whose record its filter matches, as the list would', async () => {
    const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    const live = (grant: Grant, states: Grant['states'], deadline: string): Grant => ({
      ...grant,
      status: 'posted',
      deadline_date: deadline,
      archive_date: null,
      created_at: new Date().toISOString(),
      states,
      geography: null,
    });
    const { subscription: kansas } = await subscribe('/kansas', ['grant.created', 'grant.updated', 'grant.deadline_approaching'], 'states=KS');
    const { subscription: everything } = await subscribe('/everything', ['grant.created']);
    await stack.webhooks.update(kansas.subscription_id, { days_before: 5 });
    expect(kansas.filter).toBe('states=KS');
    const inKansas = live(grants[9]!, ['KS'], inDays(3));
    const inTexas = live(grants[10]!, ['TX'], inDays(3));
    await stack.services.store.put('grant', [inKansas, inTexas]);
    await stack.webhookDispatcher!.settle();
    for (let i = 0; i < 100 && receivedAt('/everything').length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    const sent = (path: string) =>
      receivedAt(path)
        .map((r) => JSON.parse(r.body) as { event: string; data: Grant })
        .map((b) => `${b.event} ${b.data.id}`)
        .sort();
    expect(sent('/everything')).toEqual([`grant.created ${inKansas.id}`, `grant.created ${inTexas.id}`].sort());
    expect(sent('/kansas')).toEqual([`grant.created ${inKansas.id}`]);
    // It moves to Texas: no longer a match, so its update is not sent; a Texas grant moving to Kansas is.
    await stack.services.store.put('grant', [
      { ...inKansas, states: ['TX'] },
      { ...inTexas, states: ['KS'] },
    ]);
    await stack.webhookDispatcher!.settle();
    for (let i = 0; i < 100 && receivedAt('/kansas').length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(sent('/kansas')).toEqual([`grant.created ${inKansas.id}`, `grant.updated ${inTexas.id}`].sort());
    // Deadline reminders: both are due in 3 days; only the one in Kansas now matches.
    expect(await stack.webhookDispatcher!.scanDeadlines()).toBeGreaterThanOrEqual(1);
    await stack.webhookDispatcher!.settle();
    for (let i = 0; i < 100 && receivedAt('/kansas').length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(sent('/kansas').filter((line) => line.startsWith('grant.deadline_approaching'))).toEqual([`grant.deadline_approaching ${inTexas.id}`]);
    await stack.webhooks.update(everything.subscription_id, { state: 'disabled', disabled_reason: 'test over' });
    await stack.webhooks.update(kansas.subscription_id, { state: 'disabled', disabled_reason: 'test over' });
  });

  it('signs with both secrets during a rotation', async () => {
    const { secret: oldSecret, subscription } = await subscribe('/rotating', ['grant.created']);
    const { secret: newSecret } = await rotateSecret(stack.webhooks, subscription.subscription_id, 1, new Date());
    await stack.services.store.put('grant', [grants[4]!]);
    expect((await settledDelivery(subscription.subscription_id)).status).toBe('delivered');
    const [request] = receivedAt('/rotating');
    expect(verifyServiceSignature(request!.body, String(request!.headers['x-service-signature']), oldSecret)).toBe(true);
    expect(verifyServiceSignature(request!.body, String(request!.headers['x-service-signatures']), oldSecret)).toBe(true);
    expect(verifyServiceSignature(request!.body, String(request!.headers['x-service-signatures']), newSecret)).toBe(true);
    // Two Standard Webhooks signatures, space-separated: receivers on either secret verify.
    expect(String(request!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [oldSecret, newSecret]) {
      expect(new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).toEqual(JSON.parse(request!.body));
      expect(verifyWebhookSignature(request!.body, request!.headers, secret)).toBe(true);
    }
  });

  it("sent only deliveries the OpenAPI document's webhooks section describes: event, headers and body", () => {
    const events = new Set(received.map((r) => (JSON.parse(r.body) as { event: string }).event));
    expect([...events].sort()).toEqual(['grant.created', 'grant.deadline_approaching', 'grant.updated']);
    expect(received.flatMap((r) => openApiConformance().webhookProblems(r.headers, JSON.parse(r.body)))).toEqual([]);
  });
});
