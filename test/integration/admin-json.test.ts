import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin, runAdminJson } from '../support/admin-cli';

/**
 * `--json` on every admin command, on a stopped local state: stdout is exactly one JSON document
 * with the fields docs/admin.md shows (and no hashes or other secrets than the one a command issues).
 */

const fixture = (name: string) => join(process.cwd(), 'test', 'fixtures', 'ingest', name);

let dataDir: string;
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gcf-admin-json-'));
  receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

/** The command with --json on the test's state folder. */
const json = (...args: string[]) => runAdminJson(args, dataDir);

describe('admin --json', () => {
  it('ingest: the summary with every rejection; local stats and reindex', async () => {
    const ingest = await json(
      'ingest',
      fixture('sam-opportunities-v2.json'),
      fixture('malformed-lines.jsonl'),
      '--rejections',
      join(dataDir, 'rejections.tsv'),
    );
    expect(ingest.code).toBe(0);
    expect(ingest.document).toMatchObject({ read: expect.any(Number), rejected: 2, byKind: { contract: { created: 3 }, grant: { created: 1 } } });
    expect(ingest.document.files).toHaveLength(2);
    expect(ingest.document.rejections).toEqual([
      { location: 'malformed-lines.jsonl:2', importer: null, reason: expect.stringContaining('malformed JSON line') },
      { location: 'malformed-lines.jsonl:3', importer: null, reason: expect.stringContaining('not a JSON object') },
    ]);
    const stats = await json('local', 'stats');
    expect(stats.document).toMatchObject({ records: { contract: 3, grant: 1 }, pending_change_events: { 'contract.created': 3, 'grant.created': 1 } });
    expect((await json('reindex')).document).toEqual({ rebuilt: true });
  });

  it('keys: create, list, rotate, set-tier, usage and revoke, never showing a hash', async () => {
    const created = await json('keys', 'create', '--tier', 'developer', '--owner', 'dev@acme.org', '--label', 'ci');
    expect(created.document).toMatchObject({
      key_id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^gcf_live_/),
      tier: 'developer',
      owner: 'dev@acme.org',
      label: 'ci',
      revoked_at: null,
    });
    const keyId = created.document.key_id as string;
    const listed = await json('keys', 'list');
    expect(listed.document).toEqual([expect.objectContaining({ key_id: keyId, tier: 'developer', state: 'active', last_used_at: null })]);
    const rotated = await json('keys', 'rotate', keyId);
    expect(rotated.document).toMatchObject({ key_id: keyId, key: expect.stringMatching(/^gcf_live_/), previous_valid_until: expect.any(String) });
    expect(rotated.document.key).not.toBe(created.document.key);
    expect((await json('keys', 'set-tier', keyId, 'pro')).document).toMatchObject({ key_id: keyId, tier: 'pro' });
    expect((await json('keys', 'usage', keyId)).document).toEqual({ key_id: keyId, tier: 'pro', daily_quota: 10_000, days: [] });
    expect((await json('keys', 'set-tier', keyId, 'developer')).document.tier).toBe('developer');
    const everything = JSON.stringify([created, listed, rotated].map((r) => r.document));
    expect(everything).not.toMatch(/hash|usage_key/);
  });

  it('webhooks: add, list, test, disable, enable, rotate-secret, fan-out, deliveries, replay; scan-deadlines', async () => {
    const keyId = (await json('keys', 'create', '--tier', 'developer', '--owner', 'hooks@acme.org')).document.key_id as string;
    const added = await json(
      'webhooks',
      'add',
      '--key-id',
      keyId,
      '--url',
      receiverUrl,
      '--events',
      'contract.created,grant.created',
      '--filter',
      'opportunity_type=all',
    );
    expect(added.document).toMatchObject({
      subscription_id: expect.stringMatching(/^whk_/),
      key_id: keyId,
      url: receiverUrl,
      events: ['grant.created', 'contract.created'],
      state: 'active',
      filter: 'opportunity_type=all',
      secret: expect.stringMatching(/^whsec_/),
      matches_today: { grant: 1, contract: 3 },
      rotating: false,
    });
    const id = added.document.subscription_id as string;
    const listed = await json('webhooks', 'list');
    expect(listed.document).toEqual([expect.objectContaining({ subscription_id: id, state: 'active' })]);
    expect(JSON.stringify(listed.document)).not.toMatch(/whsec_/);
    expect((await json('webhooks', 'test', id)).document).toMatchObject({ url: receiverUrl, status: 204, verdict: 'delivered', error: null });
    expect((await json('webhooks', 'disable', id)).document).toMatchObject({ subscription_id: id, state: 'disabled' });
    expect((await json('webhooks', 'enable', id)).document).toMatchObject({ subscription_id: id, state: 'active' });
    const rotated = await json('webhooks', 'rotate-secret', id);
    expect(rotated.document).toMatchObject({ subscription_id: id, rotating: true, secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.document.secret).not.toBe(added.document.secret);
    const fanned = await json('webhooks', 'fan-out');
    // Every pending change (the funders' too); only the four grant and contract events reach the subscription.
    expect(fanned.document).toEqual({ change_events: expect.any(Number), deliveries_queued: 4, sent_by: 'npm start' });
    expect(fanned.document.change_events).toBeGreaterThanOrEqual(4);
    const deliveries = await json('webhooks', 'deliveries', id);
    expect(deliveries.document).toHaveLength(4);
    expect(deliveries.document[0]).toMatchObject({ subscription_id: id, status: 'pending', attempts: 0, last_status_code: null });
    const deliveryId = deliveries.document[0].delivery_id as string;
    expect((await json('webhooks', 'replay', deliveryId)).document).toMatchObject({ delivery_id: deliveryId, subscription_id: id, queued: true });
    expect((await json('scan-deadlines')).document).toEqual({ reminders_queued: expect.any(Number), sent_by: 'npm start' });
  });

  it('a failing command still exits with its code, its message on stderr', async () => {
    const out = await runAdmin(['keys', 'revoke', 'key_doesnotexist0000', '--json', '--data-dir', dataDir]);
    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(/^admin: no key key_doesnotexist0000$/m);
  });
});
