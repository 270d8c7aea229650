import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Grant } from '../../lambdas/core/records';
import { createKey } from '../../lambdas/core/use-cases/manage-keys';
import { addSubscription } from '../../lambdas/core/use-cases/manage-webhooks';
import type { Delivery } from '../../lambdas/ports/delivery-log';
import { type EmbeddedStack, startEmbeddedStack } from '../../local/embedded-stack';
import { DEFAULT_CATALOGUE, generateFunders, generateGrants } from '../../local/synthetic-catalogue';

/**
 * Webhooks across restarts of a state folder. A clean stop hands the next start the deliveries it
 * had queued (so that start scans neither the outbox nor the delivery log); anything else that
 * opened the folder in between (an admin command on the stopped folder, a crash) makes the next
 * start scan both, so no event and no delivery is lost either way.
 */

const WEBHOOKS = { schedule: [0.05, 0.1, 0.2, 0.4, 0.8, 1.6], timeoutMs: 500, subscriptionCacheMs: 0 };

/** Under WEBHOOKS.timeoutMs, so the slow receiver's answers still count. */
const SLOW_RECEIVER_MS = 300;

let dataDir: string;
let receiver: Server;
let base: string;
let receiverDown = true;
const received: string[] = [];
let grants: Grant[];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gcf-webhook-restart-'));
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (receiverDown) {
        res.writeHead(503).end();
        return;
      }
      received.push(req.url ?? '');
      // A slow receiver keeps an attempt under way while the next start scans the delivery log.
      if (req.url === '/slow') setTimeout(() => res.writeHead(204).end(), SLOW_RECEIVER_MS);
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const spec = { ...DEFAULT_CATALOGUE, funders: 2, grants: 4, awardedGrants: 0, contracts: 0, awardedContracts: 0, today: '2026-11-22' };
  grants = [...generateGrants(spec, generateFunders(spec))].flat();
});
afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
});

async function subscribe(stack: EmbeddedStack, path: string): Promise<string> {
  const keyId = (await createKey(stack.services.keys, { tier: 'developer', owner: 'dev@example.org', label: '' }, randomBytes, new Date())).record.key_id;
  const { subscription } = await addSubscription(
    { webhooks: stack.webhooks, keys: stack.services.keys, resolver: { resolve: async () => ['127.0.0.1'] } },
    { keyId, url: `${base}${path}`, events: ['grant.created'] },
    'local',
    new Date(),
  );
  return subscription.subscription_id;
}

async function deliveriesOf(stack: EmbeddedStack, subscriptionId: string): Promise<Delivery[]> {
  return stack.deliveries.list(subscriptionId, 50);
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * A subscription to `path` made by a server that then stops; an admin command on the stopped
 * folder (its own stack, no dispatcher) writes `grant`, whose event waits in the outbox; the next
 * start delivers it. Returns the delivery once delivered and nothing more is under way.
 */
async function deliverOfflineEvent(path: string, grant: Grant): Promise<Delivery> {
  receiverDown = false;
  const server = await startEmbeddedStack({ dataDir, seed: false, webhooks: WEBHOOKS });
  const subscriptionId = await subscribe(server, path);
  await server.close();

  const admin = await startEmbeddedStack({ dataDir, seed: false });
  await admin.services.store.put('grant', [grant]);
  await admin.close();

  const restarted = await startEmbeddedStack({ dataDir, seed: false, webhooks: WEBHOOKS });
  try {
    const delivered = await waitFor('the offline event', async () => {
      const [delivery] = await deliveriesOf(restarted, subscriptionId);
      return delivery?.status === 'delivered' ? delivery : undefined;
    });
    await restarted.webhookDispatcher!.settle();
    return delivered;
  } finally {
    await restarted.close();
  }
}

describe('webhooks across restarts of a state folder', () => {
  it('resumes a delivery still retrying at a clean stop, and delivers it once the receiver is back', async () => {
    const first = await startEmbeddedStack({ dataDir, seed: false, webhooks: WEBHOOKS });
    const subscriptionId = await subscribe(first, '/resumed');
    await first.services.store.put('grant', [grants[0]!]);
    // Failing at first: the delivery is queued for a retry when the server stops.
    await waitFor('a failed attempt', async () => ((await deliveriesOf(first, subscriptionId))[0]?.status === 'retrying' ? true : undefined));
    await first.close();

    receiverDown = false;
    const second = await startEmbeddedStack({ dataDir, seed: false, webhooks: WEBHOOKS });
    try {
      const delivered = await waitFor('the resumed delivery', async () => {
        const [delivery] = await deliveriesOf(second, subscriptionId);
        return delivery?.status === 'delivered' ? delivery : undefined;
      });
      expect(delivered.attempts).toBeGreaterThanOrEqual(2);
      expect(received.filter((path) => path === '/resumed')).toHaveLength(1);
    } finally {
      await second.close();
    }
  });

  it('delivers the events an admin command wrote while the server was stopped', async () => {
    const delivered = await deliverOfflineEvent('/offline', grants[1]!);
    expect(delivered.event).toBe('grant.created');
    expect(received.filter((path) => path === '/offline')).toHaveLength(1);
  });

  it('sends an offline event once, even when its first attempt is still under way as the start scans for unfinished deliveries', async () => {
    const delivered = await deliverOfflineEvent('/slow', grants[2]!);
    expect(delivered.attempts).toBe(1);
    expect(received.filter((path) => path === '/slow')).toHaveLength(1);
  });
});
