import { readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelFilesOf } from '../../local/admin-channel/channel-protocol';
import { freshStateFolder, rawFrames } from '../support/admin-channel';
import { runAdmin, runAdminJson } from '../support/admin-cli';
import { type RunningLocalServer, startLocalServer } from '../support/local-server';

/**
 * Admin commands while `npm start` owns the state folder: the CLI sends them over the admin
 * channel (a Unix socket in the folder) and the server runs them on its own stack, so their
 * effects are live at once. The stopped-folder side is test/integration/admin-json.test.ts.
 */

const fixture = (name: string) => join(process.cwd(), 'test', 'fixtures', 'ingest', name);

let dataDir: string;
let server: RunningLocalServer;
let receiver: Server;
let receiverUrl: string;
const received: { event: string; id: string }[] = [];

beforeAll(async () => {
  dataDir = freshStateFolder('gcf-admin-channel-');
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      const payload = JSON.parse(body) as { event: string };
      received.push({ event: payload.event, id: String(req.headers['webhook-id']) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  server = await startLocalServer(['--data-dir', dataDir, '--grants', '30']);
});
afterAll(async () => {
  await server?.stop();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
});

/** The command with --json on the test's state folder. */
const json = (...args: string[]) => runAdminJson(args, dataDir);

/** The commands the server logged as run over the channel, in order. */
function commandsRun(): string[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.includes('"admin command"'))
    .map((line) => (JSON.parse(line) as { command: string }).command);
}

const bearer = (key: string) => ({ headers: { Authorization: `Bearer ${key}` } });
const developerKey = () => (JSON.parse(readFileSync(join(dataDir, 'keys.json'), 'utf8')) as { developer: string }).developer;

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('admin commands sent to a running npm start', () => {
  it('the channel is a socket in a folder only its owner enters, with a fresh token of mode 600', () => {
    const files = channelFilesOf(dataDir);
    expect(statSync(files.folder).mode & 0o777).toBe(0o700);
    expect(statSync(files.socket).isSocket()).toBe(true);
    expect(statSync(files.socket).mode & 0o777).toBe(0o600);
    expect(statSync(files.token).mode & 0o777).toBe(0o600);
    expect(readFileSync(files.token, 'utf8')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('ingest --strict --json: the summary with its rejections and exit 3; the records are served at once', async () => {
    const ingest = await json(
      'ingest',
      fixture('sam-opportunities-v2.json'),
      fixture('malformed-lines.jsonl'),
      '--strict',
      '--rejections',
      join(dataDir, 'rejections.tsv'),
    );
    expect(ingest.code).toBe(3);
    expect(ingest.document).toMatchObject({ rejected: 2, byKind: { contract: { created: 3 }, grant: { created: 1 } } });
    expect(ingest.document.rejections.map((r: { location: string }) => r.location)).toEqual(['malformed-lines.jsonl:2', 'malformed-lines.jsonl:3']);
    expect(ingest.stderr).toMatch(/^admin: --strict: 2 records were rejected/m);
    expect(readFileSync(join(dataDir, 'rejections.tsv'), 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
    const stats = await json('local', 'stats');
    expect(stats.code).toBe(0);
    expect(stats.document.imported.sources).toEqual([fixture('sam-opportunities-v2.json'), fixture('malformed-lines.jsonl')]);
    const served = (await (await fetch(`${server.baseUrl}/contracts-api?opportunity_type=all&count_only=true`, bearer(developerKey()))).json()) as {
      pagination: { total: number };
    };
    expect(served.pagination.total).toBe(stats.document.records.contract);
    expect(commandsRun()).toEqual(expect.arrayContaining(['ingest', 'local stats']));
  });

  it('keys: a key made over the channel authenticates at once, and a revoked one is refused at once', async () => {
    const created = await json('keys', 'create', '--tier', 'developer', '--owner', 'ops@acme.org', '--label', 'live');
    expect(created.document).toMatchObject({
      key_id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^gcf_live_/),
      tier: 'developer',
      replayed: false,
    });
    const keyId = created.document.key_id as string;
    expect((await fetch(`${server.baseUrl}/grants-api?limit=1`, bearer(created.document.key))).status).toBe(200);
    expect((await json('keys', 'list')).document).toEqual(expect.arrayContaining([expect.objectContaining({ key_id: keyId, state: 'active' })]));
    const rotated = await json('keys', 'rotate', keyId, '--grace-hours', '0');
    expect(rotated.document.key).not.toBe(created.document.key);
    expect((await fetch(`${server.baseUrl}/grants-api?limit=1`, bearer(rotated.document.key))).status).toBe(200);
    expect((await json('keys', 'set-tier', keyId, 'pro')).document).toMatchObject({ key_id: keyId, tier: 'pro' });
    expect((await json('keys', 'usage', keyId)).document).toMatchObject({ key_id: keyId, tier: 'pro', daily_quota: 10_000 });
    expect((await json('keys', 'revoke', keyId)).document).toMatchObject({ key_id: keyId, revoked_at: expect.any(String) });
    // The server's key cache is the one the command changed: no minute of grace for a revoked key.
    expect((await fetch(`${server.baseUrl}/grants-api?limit=1`, bearer(rotated.document.key))).status).toBe(401);
    expect(commandsRun()).toEqual(expect.arrayContaining(['keys create', 'keys list', 'keys rotate', 'keys set-tier', 'keys usage', 'keys revoke']));
    // The log names commands, never what was given to them.
    const logged = server
      .output()
      .split('\n')
      .filter((line) => line.includes('"admin command"'))
      .join('\n');
    expect(logged).not.toMatch(/acme\.org|gcf_live_|fixtures|key_/);
  });

  it('keys create --idempotency-key: two calls at once (the server runs them in turn) make one key', async () => {
    const calls = await Promise.all(
      [1, 2].map(() => json('keys', 'create', '--tier', 'basic', '--owner', 'twice@acme.org', '--idempotency-key', 'provision-42')),
    );
    expect(calls.map((c) => c.code)).toEqual([0, 0]);
    expect(calls[0]!.document.key_id).toBe(calls[1]!.document.key_id);
    expect(calls.map((c) => c.document.replayed).sort()).toEqual([false, true]);
    expect(calls.filter((c) => c.document.key !== null)).toHaveLength(1);
    const owned = (await json('keys', 'list')).document.filter((k: { owner: string }) => k.owner === 'twice@acme.org');
    expect(owned).toHaveLength(1);
  });

  it('webhooks: the server delivers to a subscription added over the channel, and every webhook command answers', async () => {
    const keyId = (await json('keys', 'create', '--tier', 'developer', '--owner', 'hooks@acme.org')).document.key_id as string;
    const added = await json('webhooks', 'add', '--key-id', keyId, '--url', receiverUrl, '--events', 'grant.created,grant.updated');
    expect(added.document).toMatchObject({
      subscription_id: expect.stringMatching(/^whk_/),
      state: 'active',
      secret: expect.stringMatching(/^whsec_/),
      existing: false,
    });
    const id = added.document.subscription_id as string;
    expect((await json('webhooks', 'add', '--key-id', keyId, '--url', receiverUrl, '--if-missing')).document).toMatchObject({
      subscription_id: id,
      existing: true,
      secret: null,
    });
    // A change right after: the running server fans it out and delivers it (no restart).
    expect((await json('ingest', fixture('grants-gov-search2.json'))).code).toBe(0);
    const delivered = await until('a grant.created delivery', () => received.find((r) => r.event === 'grant.created'));
    const deliveries = await json('webhooks', 'deliveries', id);
    expect(deliveries.document).toEqual(
      expect.arrayContaining([expect.objectContaining({ event: 'grant.created', status: 'delivered', last_status_code: 204 })]),
    );
    const deliveryId = deliveries.document.find((d: { event_id: string }) => d.event_id === delivered.id)?.delivery_id ?? deliveries.document[0].delivery_id;
    const before = received.length;
    expect((await json('webhooks', 'replay', deliveryId)).document).toMatchObject({ delivery_id: deliveryId, queued: true, sent_by: 'npm start' });
    await until('the replayed delivery', () => (received.length > before ? true : undefined));
    expect((await json('webhooks', 'list')).document).toEqual([expect.objectContaining({ subscription_id: id })]);
    expect((await json('webhooks', 'test', id)).document).toMatchObject({ status: 204, verdict: 'delivered' });
    expect((await json('webhooks', 'disable', id)).document).toMatchObject({ state: 'disabled' });
    expect((await json('webhooks', 'enable', id)).document).toMatchObject({ state: 'active' });
    expect((await json('webhooks', 'rotate-secret', id)).document).toMatchObject({ rotating: true, secret: expect.stringMatching(/^whsec_/) });
    // The server fans events out as they happen, so the outbox holds none for the command.
    expect((await json('webhooks', 'fan-out')).document).toEqual({ change_events: 0, deliveries_queued: 0, sent_by: 'npm start' });
    expect((await json('scan-deadlines')).document).toEqual({ reminders_queued: expect.any(Number), sent_by: 'npm start' });
    expect(commandsRun()).toEqual(
      expect.arrayContaining(['webhooks add', 'webhooks deliveries', 'webhooks replay', 'webhooks test', 'webhooks fan-out', 'scan-deadlines']),
    );
  });

  it('reindex and local reindex rebuild the index while the server keeps answering', async () => {
    const total = async () =>
      (
        (await (await fetch(`${server.baseUrl}/grants-api?opportunity_type=all&count_only=true`, bearer(developerKey()))).json()) as {
          pagination: { total: number };
        }
      ).pagination.total;
    const before = await total();
    // Requests all through both rebuilds: every one answers with the whole catalogue.
    let rebuilding = true;
    const seen: number[] = [];
    const polling = (async () => {
      while (rebuilding) seen.push(await total());
    })();
    expect((await json('reindex')).document).toEqual({ rebuilt: true });
    expect((await json('local', 'reindex')).document).toEqual({ rebuilt: true });
    rebuilding = false;
    await polling;
    expect(seen.length).toBeGreaterThan(5);
    expect(new Set(seen)).toEqual(new Set([before]));
    expect(await total()).toBe(before);
    expect(commandsRun()).toEqual(expect.arrayContaining(['reindex', 'local reindex']));
  });

  it("usage errors are the CLI's own (exit 2, nothing sent); a command for another folder is refused by the server", async () => {
    const runs = commandsRun().length;
    const usage = await runAdmin(['keys', 'create', '--tier', 'nope', '--owner', 'x', '--data-dir', dataDir]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/unknown tier/);
    expect(commandsRun()).toHaveLength(runs);
    // The server's credentials are not the caller's: a stage is reached from the caller's shell.
    const aws = await rawFrames(dataDir, { argv: ['keys', 'list', '--target', 'aws', '--stage', 'prod'], cwd: process.cwd() });
    expect(aws.frames).toEqual([
      {
        type: 'stderr',
        text: 'admin: the admin channel runs --target local commands only: run --target aws ones from your own shell, with your own credentials\n',
      },
      { type: 'exit', code: 1 },
    ]);
    // Relative paths would be resolved against the server's folder, not the caller's.
    expect((await rawFrames(dataDir, { argv: ['local', 'stats'], cwd: 'relative/folder' })).frames).toEqual([
      { type: 'refused', reason: 'not an admin request' },
    ]);
    const { frames } = await rawFrames(dataDir, { argv: ['local', 'stats', '--data-dir', '/tmp'], cwd: process.cwd() });
    expect(frames.at(-1)).toEqual({ type: 'exit', code: 1 });
    expect(
      frames
        .filter((f) => f.type === 'stderr')
        .map((f) => f.text)
        .join(''),
    ).toMatch(/^admin: this server \(npm start\) serves .+, not \/tmp$/m);
  });
});

describe('the admin channel refuses what is not an admin command with the token', () => {
  it('no token, or a wrong one: refused, and nothing runs', async () => {
    const runs = commandsRun().length;
    const argv = ['keys', 'create', '--tier', 'free', '--owner', 'intruder@example.org'];
    for (const token of [null, 'x'.repeat(43), '']) {
      const { frames } = await rawFrames(dataDir, { argv, cwd: process.cwd() }, { token });
      expect(frames).toEqual([{ type: 'refused', reason: 'wrong or missing token' }]);
    }
    const garbage = await rawFrames(dataDir, 'not json at all');
    expect(garbage.frames).toEqual([]);
    expect(commandsRun()).toHaveLength(runs);
    expect((await json('keys', 'list')).document.some((k: { owner: string }) => k.owner === 'intruder@example.org')).toBe(false);
  });

  it('the API port does not expose it: a request with the token is an ordinary 404, and a raw frame is not HTTP', async () => {
    const runs = commandsRun().length;
    const token = readFileSync(channelFilesOf(dataDir).token, 'utf8');
    const frame = JSON.stringify({ type: 'run', token, argv: ['keys', 'create', '--tier', 'free', '--owner', 'port@example.org'], cwd: process.cwd() });
    const origin = new URL(server.baseUrl).origin;
    for (const path of ['/', '/admin', '/admin-channel', '/functions/v1/admin']) {
      const response = await fetch(`${origin}${path}`, {
        method: 'POST',
        body: frame,
        headers: { 'content-type': 'application/json', Authorization: `Bearer ${developerKey()}` },
      });
      expect([404, 405]).toContain(response.status);
    }
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(server.baseUrl).port), '127.0.0.1', () => socket.write(`${frame}\n\n`));
      let answer = '';
      socket.on('data', (chunk) => {
        answer += chunk.toString();
      });
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(commandsRun()).toHaveLength(runs);
    expect((await json('keys', 'list')).document.some((k: { owner: string }) => k.owner === 'port@example.org')).toBe(false);
  });
});
