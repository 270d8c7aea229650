import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshStateFolder } from '../support/admin-channel';
import { runAdmin, runAdminJson } from '../support/admin-cli';
import { type RunningLocalServer, startLocalServer } from '../support/local-server';

/**
 * A key's traffic as its owner will see it: requests over real HTTP to `npm start`, then the
 * hourly usage and the recent-requests log read back with the admin CLI (over the server's admin
 * channel, so on the server's own stack).
 */

let dataDir: string;
let server: RunningLocalServer;
beforeAll(async () => {
  dataDir = freshStateFolder('gcf-key-traffic-');
  server = await startLocalServer(['--data-dir', dataDir, '--grants', '30']);
});
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const json = (...args: string[]) => runAdminJson(args, dataDir);

describe('per-key traffic over the local server', () => {
  it('shows each request in the log and in the hourly usage, without query strings', async () => {
    const created = await json('keys', 'create', '--tier', 'basic', '--owner', 'traffic@acme.org', '--label', 'traffic');
    const { key_id: keyId, key } = created.document as { key_id: string; key: string };
    const calls = ['/grants-api?limit=1&search=confidential', '/funders-api?limit=1', '/grants-api?limit=999'];
    const sent: { path: string; status: number; requestId: string }[] = [];
    for (const call of calls) {
      const response = await fetch(`${server.baseUrl}${call}`, { headers: { Authorization: `Bearer ${key}` } });
      await response.arrayBuffer();
      // The path as the caller sent it (the API's base path included), without the query.
      sent.push({ path: new URL(`${server.baseUrl}${call}`).pathname, status: response.status, requestId: response.headers.get('x-request-id')! });
    }
    expect(sent.map((s) => s.status)).toEqual([200, 200, 400]);

    const log = await json('keys', 'requests', keyId);
    expect(log.code).toBe(0);
    expect(log.document.key_id).toBe(keyId);
    expect(
      log.document.entries.map((e: { request_id: string; path: string; status: number; method: string }) => [e.request_id, e.method, e.path, e.status]),
    ).toEqual([...sent].reverse().map((s) => [s.requestId, 'GET', s.path, s.status]));
    expect(log.document.entries[0].latency_ms).toBeGreaterThan(0);
    expect(log.document.next_cursor).toBeNull();
    expect(JSON.stringify(log.document)).not.toMatch(/confidential|limit=|gcf_live_/);

    // Paged: two, then the oldest after the cursor the first page printed.
    const first = await json('keys', 'requests', keyId, '--limit', '2');
    expect(first.document.entries.map((e: { request_id: string }) => e.request_id)).toEqual([sent[2]!.requestId, sent[1]!.requestId]);
    const older = await json('keys', 'requests', keyId, '--limit', '2', '--cursor', first.document.next_cursor);
    expect(older.document).toMatchObject({ entries: [{ request_id: sent[0]!.requestId, path: sent[0]!.path }], next_cursor: null });
    expect(sent[0]!.path).toMatch(/\/grants-api$/);

    const hourly = await json('keys', 'usage', keyId, '--by', 'hour', '--days', '1');
    const hours = hourly.document.hours as { hour: string; requests: number; responses: number; errors: number; errors_4xx: number; errors_5xx: number }[];
    // Three requests in this hour (or, across an hour's turn, in two).
    const sum = (pick: (h: (typeof hours)[number]) => number) => hours.reduce((total, h) => total + pick(h), 0);
    expect([sum((h) => h.requests), sum((h) => h.responses), sum((h) => h.errors), sum((h) => h.errors_4xx), sum((h) => h.errors_5xx)]).toEqual([
      3, 3, 1, 1, 0,
    ]);
    expect(hours[0]!.hour).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}$/);

    const daily = await json('keys', 'usage', keyId);
    expect(daily.document.days[0]).toMatchObject({ requests: 3, responses: 3, errors: 1, errors_4xx: 1, errors_5xx: 0, rate_limited: 0 });
  });

  it('refuses a cursor it did not print (exit 2) and an unknown key (exit 1)', async () => {
    const badCursor = await runAdmin(['keys', 'requests', 'key_x', '--cursor', 'not-a-cursor', '--data-dir', dataDir]);
    expect([badCursor.code, badCursor.stderr]).toEqual([2, expect.stringContaining('not a cursor this command printed')]);
    const unknown = await runAdmin(['keys', 'requests', 'key_unknown', '--data-dir', dataDir]);
    expect([unknown.code, unknown.stderr.trim()]).toEqual([1, 'admin: no key key_unknown']);
    const hourly = await runAdmin(['keys', 'usage', 'key_unknown', '--by', 'minute', '--data-dir', dataDir]);
    expect(hourly.code).toBe(2);
  });
});
