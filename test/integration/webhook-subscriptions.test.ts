import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../lambdas/core/use-cases/manage-keys';
import { addSubscription, enableSubscription, listedSubscription, rotateSecret, type WebhookPorts } from '../../lambdas/core/use-cases/manage-webhooks';
import { DestinationRefused } from '../../lambdas/core/webhooks/destination-policy';
import { WEBHOOK_EVENTS } from '../../lambdas/core/webhooks/events';
import { WebhookConflict } from '../../lambdas/ports/webhook-store';
import { type EmbeddedStack, startEmbeddedStack } from '../../local/embedded-stack';
import { runAdmin } from '../support/admin-cli';

/**
 * Webhook subscriptions: the lifecycle through the store the AWS adapter uses (dynalite), with the
 * AWS mode's URL rules checked against a fixed resolver, and the admin CLI end to end.
 */

describe('webhook subscriptions (use cases on the embedded store)', () => {
  let stack: EmbeddedStack;
  let ports: WebhookPorts;
  let developerKey: string;
  const dns: Record<string, string[]> = {
    'hooks.example.com': ['93.184.216.34'],
    'rebind.example.com': ['93.184.216.34'],
    'loopback.example.com': ['127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
  };
  const now = new Date('2026-11-22T10:00:00Z');

  beforeAll(async () => {
    stack = await startEmbeddedStack({ seed: false });
    ports = { webhooks: stack.webhooks, keys: stack.services.keys, resolver: { resolve: async (host) => dns[host] ?? [] } };
    developerKey = (await createKey(stack.services.keys, { tier: 'developer', owner: 'dev@example.org', label: '' }, randomBytes, now)).record.key_id;
  });
  afterAll(async () => stack?.close());

  it("stores a developer key's https subscription with every event by default, and never lists its secret", async () => {
    const { secret, subscription } = await addSubscription(ports, { keyId: developerKey, url: 'https://hooks.example.com/gcf' }, 'aws', now);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{44}$/);
    expect(subscription).toMatchObject({
      key_id: developerKey,
      url: 'https://hooks.example.com/gcf',
      events: [...WEBHOOK_EVENTS],
      days_before: 7,
      state: 'active',
      secret,
    });
    expect(await stack.webhooks.get(subscription.subscription_id)).toEqual(subscription);
    const listed = listedSubscription((await stack.webhooks.list(developerKey))[0]!, now);
    expect(JSON.stringify(listed)).not.toContain(secret);
  });

  it('refuses in AWS mode a name resolving to loopback or metadata, plain http, and a duplicate', async () => {
    await expect(addSubscription(ports, { keyId: developerKey, url: 'https://loopback.example.com/x' }, 'aws', now)).rejects.toThrow(
      /127\.0\.0\.1 is a loopback address/,
    );
    await expect(addSubscription(ports, { keyId: developerKey, url: 'https://metadata.example.com/x' }, 'aws', now)).rejects.toThrow(/cloud metadata/);
    await expect(addSubscription(ports, { keyId: developerKey, url: 'http://hooks.example.com/plain' }, 'aws', now)).rejects.toThrow(
      /plain http is not allowed/,
    );
    await expect(addSubscription(ports, { keyId: developerKey, url: 'http://127.0.0.1:8080/x' }, 'aws', now)).rejects.toThrow(DestinationRefused);
    await expect(addSubscription(ports, { keyId: developerKey, url: 'https://hooks.example.com/gcf' }, 'aws', now)).rejects.toThrow(
      /already has a subscription/,
    );
    expect((await stack.webhooks.list(developerKey)).map((s) => s.url)).toEqual(['https://hooks.example.com/gcf']);
  });

  it('lets only one of two concurrent adds of the same URL through', async () => {
    const attempts = await Promise.allSettled(
      [1, 2, 3].map(() => addSubscription(ports, { keyId: developerKey, url: 'https://hooks.example.com/race' }, 'aws', now)),
    );
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    for (const failed of attempts.filter((a) => a.status === 'rejected')) expect((failed as PromiseRejectedResult).reason).toBeInstanceOf(WebhookConflict);
  });

  it('checks the URL again on enable, since a name may resolve elsewhere by then', async () => {
    const { subscription } = await addSubscription(
      ports,
      { keyId: developerKey, url: 'https://rebind.example.com/x', events: ['grant.created'], daysBefore: 14 },
      'aws',
      now,
    );
    await stack.webhooks.update(subscription.subscription_id, { state: 'disabled', disabled_reason: 'test' });
    dns['rebind.example.com'] = ['10.1.2.3'];
    await expect(enableSubscription(ports, subscription.subscription_id, 'aws', now)).rejects.toThrow(/10\.1\.2\.3 is a private address/);
    expect((await stack.webhooks.get(subscription.subscription_id))!.state).toBe('disabled');
  });

  it("enabling starts the receiver's failure run afresh, so one disabled after 3 days of failures is not disabled again at once", async () => {
    const { subscription } = await addSubscription(ports, { keyId: developerKey, url: 'https://hooks.example.com/recovered' }, 'aws', now);
    await stack.webhooks.update(subscription.subscription_id, {
      state: 'disabled',
      disabled_reason: 'the receiver has failed every attempt since …',
      failing_since: '2026-11-19T10:00:00.000Z',
    });
    const enabled = await enableSubscription(ports, subscription.subscription_id, 'aws', now);
    expect(enabled).toMatchObject({ state: 'active', disabled_reason: null, failing_since: null });
    expect((await stack.webhooks.get(subscription.subscription_id))!.failing_since).toBeNull();
  });

  it('rotates the secret, keeping the old one for the grace period', async () => {
    const { secret: first, subscription } = await addSubscription(ports, { keyId: developerKey, url: 'https://hooks.example.com/rotate' }, 'aws', now);
    const { secret: second, subscription: rotated } = await rotateSecret(stack.webhooks, subscription.subscription_id, 2, now);
    expect(second).not.toBe(first);
    expect(rotated).toMatchObject({ secret: second, previous_secret: first, previous_secret_valid_until: '2026-11-22T12:00:00.000Z' });
    expect(listedSubscription(rotated, now).rotating).toBe(true);
    expect(listedSubscription(rotated, new Date('2026-11-22T12:00:01Z')).rotating).toBe(false);
  });
});

describe('admin webhooks (the CLI)', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'gcf-webhooks-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const admin = (...args: string[]) => runAdmin([...args, '--data-dir', dataDir]);
  const keyIdOf = (stdout: string) => /^key id (key_\w+)/m.exec(stdout)![1]!;

  it('add, list, rotate-secret, disable and enable, end to end; refusals are one clear line and exit 1', async () => {
    const developer = keyIdOf((await admin('keys', 'create', '--tier', 'developer', '--owner', 'dev@example.org')).stdout);
    const pro = keyIdOf((await admin('keys', 'create', '--tier', 'pro', '--owner', 'pro@example.org')).stdout);

    const added = await admin(
      'webhooks',
      'add',
      '--key-id',
      developer,
      '--url',
      'http://127.0.0.1:9/hook',
      '--events',
      'grant.created,grant.deadline_approaching',
      '--days-before',
      '3',
    );
    expect(added.code).toBe(0);
    const subscriptionId = /^subscription (whk_\w+) for key/m.exec(added.stdout)![1]!;
    const secret = /^secret {2}(whsec_\S+)$/m.exec(added.stdout)![1]!;
    expect(added.stdout).toContain('events  grant.created, grant.deadline_approaching; deadlines 3 days ahead');
    expect(added.stderr).toContain('shown this once');

    const refusals: [string[], RegExp][] = [
      [['--key-id', developer, '--url', 'http://127.0.0.1:9/hook'], /already has a subscription for http:\/\/127\.0\.0\.1:9\/hook/],
      [['--key-id', pro, '--url', 'http://127.0.0.1:9/other'], /webhooks need the developer tier; key \S+ is pro/],
      [['--key-id', developer, '--url', 'http://169.254.169.254/'], /169\.254\.169\.254 is a cloud metadata address/],
      [['--key-id', developer, '--url', 'http://10.0.0.1/'], /10\.0\.0\.1 is a private address/],
      [['--key-id', developer, '--url', 'http://example.com/'], /plain http is allowed only to a loopback address/],
      [['--key-id', developer, '--url', 'not a url'], /not an absolute URL/],
      [['--key-id', developer, '--url', 'https://x.example.com/', '--events', 'grant.deleted'], /unknown event grant\.deleted; use any of: grant\.created/],
      [['--key-id', 'key_doesnotexist0000', '--url', 'http://127.0.0.1:9/x'], /no key key_doesnotexist0000/],
    ];
    for (const [args, message] of refusals) {
      const refused = await admin('webhooks', 'add', ...args);
      expect(refused.code, args.join(' ')).toBe(1);
      expect(refused.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
    }
    expect((await admin('webhooks', 'add', '--key-id', developer, '--url', 'http://127.0.0.1:9/x', '--days-before', '0')).code).toBe(2); // a bad option value: usage

    const listed = await admin('webhooks', 'list');
    expect(listed.stdout.split('\n').filter((line) => line.startsWith('whk_'))).toEqual([
      expect.stringMatching(
        new RegExp(`^${subscriptionId}\\t${developer}\\tactive\\thttp://127\\.0\\.0\\.1:9/hook\\tgrant\\.created,grant\\.deadline_approaching\\t3 days\\t`),
      ),
    ]);
    expect(listed.stdout).not.toContain(secret);

    const rotated = await admin('webhooks', 'rotate-secret', subscriptionId, '--grace-hours', '1');
    expect(rotated.stdout).toMatch(/new secret issued; the old one also signs until \d{4}-/);
    expect(/^secret {2}(whsec_\S+)$/m.exec(rotated.stdout)![1]).not.toBe(secret);

    expect((await admin('webhooks', 'disable', subscriptionId)).stdout).toContain(`subscription ${subscriptionId} disabled`);
    expect((await admin('webhooks', 'list', '--key-id', developer)).stdout).toContain('\tdisabled (disabled by an operator)\t');
    expect((await admin('webhooks', 'enable', subscriptionId)).stdout).toContain(`subscription ${subscriptionId} enabled`);

    // A grant imported while no server runs waits in the outbox; the server's dispatcher sends it
    // on start. Nothing listens on port 9, so the attempt fails and the delivery log says so.
    expect((await admin('ingest', fileURLToPath(new URL('../fixtures/ingest/grants-gov-search2.json', import.meta.url)))).code).toBe(0);
    const server = await startEmbeddedStack({ dataDir, seed: false, webhooks: {} });
    await server.webhookDispatcher!.settle();
    await server.close();
    const deliveries = await admin('webhooks', 'deliveries', subscriptionId);
    const rows = deliveries.stdout.split('\n').filter((line) => line.startsWith('dlv_'));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]).toMatch(/\tgrant\.created\t[0-9a-f-]{36}\tretrying\t1\t-\t[\d.]+\tECONNREFUSED\t/);
    const deliveryId = rows[0]!.split('\t')[0]!;
    expect((await admin('webhooks', 'replay', deliveryId)).stdout).toContain(`delivery ${deliveryId} (grant.created to ${subscriptionId}) queued again`);
    expect((await admin('webhooks', 'deliveries', subscriptionId)).stdout).toMatch(new RegExp(`^${deliveryId}\\tgrant\\.created\\t\\S+\\tpending\\t0\\t`, 'm'));
    expect((await admin('scan-deadlines')).stdout).toMatch(/^\d+ deadline reminders? queued; npm start sends them$/m);
    const noSuch = await admin('webhooks', 'replay', 'dlv_nope');
    expect(noSuch.code).toBe(1);
    expect(noSuch.stderr).toContain('no delivery dlv_nope');
    const unknown = await admin('webhooks', 'enable', 'whk_nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no webhook subscription whk_nope');
  }, 240_000);

  it('add --filter stores a saved search, says how many records it matches today, and refuses a filter the list would refuse', async () => {
    const developer = keyIdOf((await admin('keys', 'create', '--tier', 'developer', '--owner', 'filters@example.org')).stdout);
    const added = await admin(
      'webhooks',
      'add',
      '--key-id',
      developer,
      '--url',
      'http://127.0.0.1:9/kansas',
      '--events',
      'grant.created,grant.deadline_approaching',
      '--filter',
      'states=KS&include_national=true',
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('filter  include_national=true&states=KS');
    expect(added.stdout).toMatch(/^matches \d+ grants today/m);
    const none = await admin(
      'webhooks',
      'add',
      '--key-id',
      developer,
      '--url',
      'http://127.0.0.1:9/none',
      '--events',
      'grant.created',
      '--filter',
      'search=qwxzzkv vbnmq',
    );
    expect(none.stdout).toContain('matches 0 grants today: none yet; accepted, it sends when a record matches');
    const listed = await admin('webhooks', 'list', '--key-id', developer);
    expect(listed.stdout.split('\n')[0]).toContain('\tfilter\t');
    expect(listed.stdout).toMatch(/\thttp:\/\/127\.0\.0\.1:9\/kansas\tgrant\.created,grant\.deadline_approaching\t7 days\tinclude_national=true&states=KS\t/);
    const refusals: [string, string][] = [
      ['states=XX', 'admin: invalid filter: states: '],
      ['colour=blue', 'admin: invalid filter: colour: is not a parameter of the grant list'],
      ['limit=5', 'admin: invalid filter: limit: shapes a page of results, not which records match: not a filter parameter'],
    ];
    for (const [filter, message] of refusals) {
      const refused = await admin(
        'webhooks',
        'add',
        '--key-id',
        developer,
        '--url',
        `http://127.0.0.1:9/${encodeURIComponent(filter)}`,
        '--events',
        'grant.created',
        '--filter',
        filter,
      );
      expect(refused.code, filter).toBe(1);
      expect(refused.stderr.trim().split('\n'), filter).toEqual([expect.stringContaining(message)]);
    }
  }, 120_000);

  it('test sends a signed webhook.test event now and prints the answer; a failing receiver, a disabled or unknown subscription exit 1', async () => {
    const received: { url: string; body: string; headers: IncomingHttpHeaders }[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ url: req.url ?? '', body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
        res.writeHead(req.url === '/down' ? 503 : 204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    try {
      const developer = keyIdOf((await admin('keys', 'create', '--tier', 'developer', '--owner', 'test@example.org')).stdout);
      const add = async (path: string) => {
        const added = await admin('webhooks', 'add', '--key-id', developer, '--url', `${base}${path}`, '--events', 'grant.created');
        return { id: /^subscription (whk_\w+) for key/m.exec(added.stdout)![1]!, secret: /^secret {2}(whsec_\S+)$/m.exec(added.stdout)![1]! };
      };
      const up = await add('/up');
      const tested = await admin('webhooks', 'test', up.id);
      expect(tested.code).toBe(0);
      expect(tested.stdout).toMatch(new RegExp(`^webhook\\.test [0-9a-f-]{36} to ${base}/up: 204 in \\d+ ms$`, 'm'));
      expect(received).toHaveLength(1);
      // Signed as every delivery is: the standardwebhooks package verifies it, and the event id is the one printed.
      expect(new Webhook(up.secret).verify(received[0]!.body, received[0]!.headers as Record<string, string>)).toMatchObject({
        event: 'webhook.test',
        data: { subscription_id: up.id },
      });
      expect(tested.stdout).toContain(`webhook.test ${String(received[0]!.headers['webhook-id'])} `);
      // A test event is not a delivery: nothing in the delivery log.
      expect((await admin('webhooks', 'deliveries', up.id)).stdout).toContain('(no deliveries)');

      const down = await add('/down');
      const failing = await admin('webhooks', 'test', down.id);
      expect(failing.code).toBe(1);
      expect(failing.stdout).toMatch(/: 503 in \d+ ms$/m);
      expect(failing.stderr).toContain('a real delivery would be retried');

      expect((await admin('webhooks', 'disable', up.id)).code).toBe(0);
      const disabled = await admin('webhooks', 'test', up.id);
      expect(disabled.code).toBe(1);
      expect(disabled.stderr.trim()).toBe(`admin: subscription ${up.id} is disabled (disabled by an operator): enable it first, then test it`);
      const unknown = await admin('webhooks', 'test', 'whk_nope');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr.trim()).toBe('admin: no subscription whk_nope');
      expect(received).toHaveLength(2);
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 120_000);
});
