import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnsHostResolver } from '../../lambdas/adapters/dns-host-resolver';
import { createKeyOnce } from '../../lambdas/core/use-cases/manage-keys';
import { addSubscriptionIfMissing } from '../../lambdas/core/use-cases/manage-webhooks';
import { KeyStateConflict } from '../../lambdas/ports/key-store';
import { type EmbeddedStack, startEmbeddedStack } from '../../local/embedded-stack';
import { runAdmin } from '../support/admin-cli';

/**
 * Idempotent provisioning: `keys create --idempotency-key` and `webhooks add --if-missing`, on the
 * records table's conditional writes (dynalite, the DynamoDB adapter AWS runs), concurrent calls
 * included, and through the CLI.
 */

let stack: EmbeddedStack;

beforeAll(async () => {
  stack = await startEmbeddedStack({ seed: false });
});
afterAll(async () => stack?.close());

const request = { tier: 'developer' as const, owner: 'provisioner@acme.org', label: 'ci' };

describe('keys create with an idempotency key', () => {
  it('makes one key under two concurrent calls; the other answers with its record', async () => {
    const before = (await stack.services.keys.list()).length;
    const now = new Date();
    const [a, b] = await Promise.all([
      createKeyOnce(stack.services.keys, request, 'deploy-42', randomBytes, now),
      createKeyOnce(stack.services.keys, request, 'deploy-42', randomBytes, now),
    ]);
    expect((await stack.services.keys.list()).length).toBe(before + 1);
    expect(a.record.key_id).toBe(b.record.key_id);
    expect([a.replayed, b.replayed].sort()).toEqual([false, true]);
    const [made, replayed] = a.replayed ? [b, a] : [a, b];
    expect(made.key).toMatch(/^gcf_live_/);
    expect(replayed.key).toBeNull();
    expect((await createKeyOnce(stack.services.keys, request, 'deploy-42', randomBytes, new Date(now.getTime() + 23 * 3_600_000))).record.key_id).toBe(
      made.record.key_id,
    );
  });

  it('refuses the same idempotency key for another request, and makes a new key once it has lapsed (24 h)', async () => {
    const now = new Date();
    const first = await createKeyOnce(stack.services.keys, request, 'deploy-43', randomBytes, now);
    await expect(createKeyOnce(stack.services.keys, { ...request, tier: 'pro' }, 'deploy-43', randomBytes, now)).rejects.toThrow(KeyStateConflict);
    await expect(createKeyOnce(stack.services.keys, { ...request, tier: 'pro' }, 'deploy-43', randomBytes, now)).rejects.toThrow(
      /idempotency key deploy-43 was used for another request/,
    );
    const later = await createKeyOnce(stack.services.keys, request, 'deploy-43', randomBytes, new Date(now.getTime() + 25 * 3_600_000));
    expect(later.replayed).toBe(false);
    expect(later.record.key_id).not.toBe(first.record.key_id);
  });
});

describe('webhooks add --if-missing', () => {
  it('adds one subscription under two concurrent calls; the other answers with it, without its secret', async () => {
    const { record } = await createKeyOnce(stack.services.keys, request, 'hooks-1', randomBytes, new Date());
    const ports = { webhooks: stack.webhooks, keys: stack.services.keys, resolver: dnsHostResolver };
    const ask = { keyId: record.key_id, url: 'http://127.0.0.1:9/hook' };
    const [a, b] = await Promise.all([addSubscriptionIfMissing(ports, ask, 'local', new Date()), addSubscriptionIfMissing(ports, ask, 'local', new Date())]);
    expect(a.subscription.subscription_id).toBe(b.subscription.subscription_id);
    expect([a.existing, b.existing].sort()).toEqual([false, true]);
    expect([a.secret, b.secret].filter((secret) => secret !== null)).toHaveLength(1);
    expect(await stack.webhooks.list(record.key_id)).toHaveLength(1);
  });
});

describe('through the CLI', () => {
  it('a retried keys create and webhooks add answer with what the first made', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gcf-idempotent-'));
    const admin = async (...args: string[]) => {
      const out = await runAdmin([...args, '--json', '--data-dir', dataDir]);
      expect(out.code, out.stderr).toBe(0);
      return JSON.parse(out.stdout);
    };
    try {
      const args = ['keys', 'create', '--tier', 'developer', '--owner', 'ops@acme.org', '--idempotency-key', 'bootstrap'];
      const first = await admin(...args);
      const again = await admin(...args);
      expect(first).toMatchObject({ replayed: false, key: expect.stringMatching(/^gcf_live_/) });
      expect(again).toMatchObject({ key_id: first.key_id, replayed: true, key: null });
      expect(await admin('keys', 'list')).toHaveLength(1);
      const hook = ['webhooks', 'add', '--key-id', first.key_id, '--url', 'http://127.0.0.1:9/hook', '--if-missing'];
      const added = await admin(...hook);
      const readded = await admin(...hook);
      expect(added).toMatchObject({ existing: false, secret: expect.stringMatching(/^whsec_/) });
      expect(readded).toMatchObject({ subscription_id: added.subscription_id, existing: true, secret: null });
      const refused = await runAdmin(['webhooks', 'add', '--key-id', first.key_id, '--url', 'http://127.0.0.1:9/hook', '--data-dir', dataDir]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/already has a subscription/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
