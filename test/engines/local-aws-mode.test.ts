import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DynamoKeyStore } from '../../lambdas/adapters/aws/dynamo-key-store';
import { DynamoWebhookStore } from '../../lambdas/adapters/aws/dynamo-webhook-store';
import { CURSOR_KEY_FILE } from '../../lambdas/adapters/embedded/file-cursor-key';
import { LocalSecretSealer } from '../../lambdas/adapters/embedded/local-secret-sealer';
import { hashApiKey } from '../../lambdas/core/auth/api-keys';
import type { Grant } from '../../lambdas/core/records';
import { addSubscription } from '../../lambdas/core/use-cases/manage-webhooks';
import { verifyServiceSignature } from '../../lambdas/core/webhooks/signature';
import { systemClock, utcDate } from '../../lambdas/ports/clock';
import { LOCAL_AWS_REGION, LOCAL_AWS_TABLE_NAME, TABLE_CREDENTIALS_FILE } from '../../local/aws-mode/local-aws-resources';
import { catalogueWithGrants, generateFunders, generateGrants } from '../../local/synthetic-catalogue';
import { runAdmin } from '../support/admin-cli';
import { matches, sortRecords } from '../support/oracle';
import { describeOnEngine } from './engine-suite';

/**
 * `npm start -- --engines` end to end, over real HTTP: the server in a child process on the
 * engines `npm run test:engines` started (it reuses them and leaves them running), seeded with a
 * small synthetic catalogue through the emulated stream. Expected records come from the same
 * deterministic generator the server seeded from.
 */

const GRANTS = 200;
/** Given with --cors-origins: the functions read it from CORS_ALLOWED_ORIGINS, as the CDK sets it. */
const APP_ORIGIN = 'https://app.example.org';
const STARTUP_MS = 240_000;

interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

describeOnEngine('npm start -- --engines (the AWS adapters on one machine)', 'OPENSEARCH_URL', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gcf-local-aws-'));
  let server: ChildProcess;
  let output = '';
  let baseUrl = '';
  let tableEndpoint = '';
  /** The table's credential of this start, which the server keeps in the state folder (never prints). */
  let tableCredentials = { accessKeyId: '', secretAccessKey: '' };
  let keys: Record<string, string> = {};
  let grants: Grant[] = [];
  let receiver: Server;
  let receiverUrl = '';
  const received: Received[] = [];

  const get = async (path: string, key: string | null = keys.developer!) => {
    const response = await fetch(`${baseUrl}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    return { status: response.status, body: (await response.json()) as Record<string, any>, headers: response.headers };
  };
  const post = async (path: string, body: string) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.developer}`, 'content-type': 'application/json' },
      body,
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  async function eventually<T>(probe: () => Promise<T | undefined>, what: string, ms = 60_000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  beforeAll(async () => {
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

    server = spawn(
      process.execPath,
      ['--import', 'tsx', 'bin/local.ts', '--engines', '--grants', String(GRANTS), '--data-dir', dataDir, '--cors-origins', APP_ORIGIN],
      {
        env: { ...process.env, PORT: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    server.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    server.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    baseUrl = await eventually(
      async () => {
        if (server.exitCode !== null) throw new Error(`npm start -- --engines exited with ${server.exitCode}:\n${output}`);
        return /API ready at (\S+)/.exec(output)?.[1];
      },
      'the server to be ready',
      STARTUP_MS,
    );
    tableEndpoint = /table gcf-records at (\S+)/.exec(output)![1]!;
    tableCredentials = JSON.parse(readFileSync(join(dataDir, TABLE_CREDENTIALS_FILE), 'utf8')) as typeof tableCredentials;
    keys = JSON.parse(readFileSync(join(dataDir, 'keys.json'), 'utf8')) as Record<string, string>;
    const spec = { ...catalogueWithGrants(GRANTS), today: utcDate(systemClock) };
    grants = [...generateGrants(spec, generateFunders(spec))].flat();
  }, STARTUP_MS + 10_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    await new Promise<void>((resolve) => receiver?.close(() => resolve()));
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('says what it runs: the engines it reused, the local embedder in place of Bedrock, the search indices it bootstrapped', () => {
    expect(output).toMatch(/opensearch: reusing the one at http:\/\/127\.0\.0\.1:\d+/);
    expect(output).toMatch(/elasticmq: reusing the one at http:\/\/127\.0\.0\.1:\d+/);
    expect(output).toContain('in place of Bedrock');
    expect(output).toMatch(/search indices: grant (created|found) gcf-grants-v\d+/);
  });

  it('lists the seeded grants from OpenSearch, all of them with opportunity_type=all, newest first', async () => {
    const all = await get('/grants-api?opportunity_type=all&count_only=true');
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ total: grants.length, total_relation: 'eq' });
    const page = await get('/grants-api?opportunity_type=all&limit=5');
    expect(page.status).toBe(200);
    const expected = [...grants].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id)).slice(0, 5);
    expect(page.body.results.map((r: Grant) => r.created_at)).toEqual(expected.map((g) => g.created_at));
    expect(page.body.results.map((r: Grant) => r.id).every((id: string) => grants.some((g) => g.id === id))).toBe(true);
  });

  it('counts facets with OpenSearch aggregations over the whole result set, as a plain count of the seeded grants says', async () => {
    const { status, body } = await get('/grants-api?opportunity_type=all&facets=status,states,deadline_within&limit=1');
    expect(status).toBe(200);
    expect(body.results).toHaveLength(1);
    const today = utcDate(systemClock);
    expect(body.facets.status).toEqual(
      ['open', 'forecasted', 'closed'].map((value) => ({
        value,
        count: grants.filter((g) => matches(g, { opportunity_type: 'all', status: value }, today)).length,
      })),
    );
    expect(body.facets.deadline_within.map((v: { value: string }) => v.value)).toEqual(['7', '30', '90', 'later', 'none', 'passed']);
    expect(body.facets.deadline_within.reduce((sum: number, v: { count: number }) => sum + v.count, 0)).toBe(grants.length);
    expect(body.facets.states).toContainEqual({ value: 'national', count: grants.filter((g) => g.states.length === 0).length });
    for (const { value, count } of body.facets.states.slice(0, 4)) {
      expect((await get(`/grants-api?opportunity_type=all&states=${value}&count_only=true`)).body.pagination.total, `states=${value}`).toBe(count);
      expect(count).toBe(grants.filter((g) => (value === 'national' ? g.states.length === 0 : (g.states as string[]).includes(value))).length);
    }
  });

  it("walks every grant by cursor through the list function on OpenSearch, signed with the state folder's key", async () => {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await get(
        `/grants-api?${new URLSearchParams({ opportunity_type: 'all', sort_by: 'deadline_date', order: 'asc', limit: '30', ...(cursor ? { cursor } : {}) })}`,
      );
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      ids.push(...page.body.results.map((r: Grant) => r.id));
      cursor = page.body.pagination.next_cursor;
    } while (cursor);
    expect(ids).toEqual(sortRecords(grants, 'deadline_date', 'asc').map((g) => g.id));
    expect(statSync(join(dataDir, CURSOR_KEY_FILE)).mode & 0o777).toBe(0o600);
  });

  it('exports a list as CSV through the list function on OpenSearch, in the sort order, and continues it by cursor', async () => {
    const csvOf = async (query: string) => {
      const response = await fetch(`${baseUrl}/grants-api?${query}`, { headers: { authorization: `Bearer ${keys.developer}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      const lines = (await response.text()).split('\r\n').filter(Boolean);
      return { ids: lines.slice(1).map((line) => line.split(',')[0]), headers: response.headers };
    };
    const expected = sortRecords(grants, 'deadline_date', 'asc').map((g) => g.id);
    const whole = await csvOf('opportunity_type=all&sort_by=deadline_date&order=asc&format=csv');
    expect(whole.ids).toEqual(expected);
    expect(whole.headers.get('x-export-complete')).toBe('true');
    const first = await csvOf('opportunity_type=all&sort_by=deadline_date&order=asc&format=csv&limit=40');
    expect(first.ids).toEqual(expected.slice(0, 40));
    const rest = await csvOf(
      `opportunity_type=all&sort_by=deadline_date&order=asc&format=csv&cursor=${encodeURIComponent(first.headers.get('x-export-next-cursor')!)}`,
    );
    expect(rest.ids).toEqual(expected.slice(40));
  });

  it('gets a grant by id from the table, and answers 404 for an unknown one', async () => {
    const grant = grants[17]!;
    const found = await get(`/grants-api/${grant.id}`);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ id: grant.id, title: grant.title, funder_name: grant.funder_name });
    expect(await get('/grants-api/00000000-0000-4000-8000-000000000000')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
  });

  it("counts a tier's requests against its daily quota in the table, as the functions do without API Gateway's usage plans", async () => {
    const first = await get('/funders-api?limit=1', keys.basic!);
    const second = await get('/funders-api?limit=1', keys.basic!);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(Number(first.headers.get('x-ratelimit-remaining')) - 1);
    expect(await get('/funders-api?limit=1', keys.free!)).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
  });

  it('finds a grant by the words of its title (BM25 on OpenSearch)', async () => {
    const grant = grants.find((g) => g.opportunity_type === 'open' && grants.filter((o) => o.title === g.title).length === 1)!;
    const { status, body } = await get(`/grants-api?search=${encodeURIComponent(grant.title)}&opportunity_type=all&limit=5`);
    expect(status).toBe(200);
    expect(body.meta.sort_by).toBe('relevance');
    expect(body.results[0]).toMatchObject({ id: grant.id, title: grant.title });
  });

  it("finds a grant by meaning (k-NN on OpenSearch with the local embedder's vectors)", async () => {
    const grant = grants.find(
      (g) => g.opportunity_type === 'open' && g.status === 'posted' && grants.filter((o) => o.description === g.description).length === 1,
    )!;
    const { status, body } = await post('/semantic-search', JSON.stringify({ query: grant.description, limit: 3 }));
    expect(status).toBe(200);
    expect(body.results[0]).toMatchObject({ id: grant.id, title: grant.title });
    expect(body.results[0].relevance).toBeGreaterThan(0.9);
    expect(body.results[0].relevance).toBeLessThanOrEqual(1);
  });

  it("answers CORS for the origins given: preflights without a key, the functions' answers for a listed origin only, and the docs page", async () => {
    expect(output).toContain(`CORS: ${APP_ORIGIN} (--cors-origins)`);
    const preflight = await fetch(`${baseUrl}/semantic-search`, {
      method: 'OPTIONS',
      headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect([preflight.headers.get('access-control-allow-origin'), preflight.headers.get('access-control-allow-methods')]).toEqual([
      APP_ORIGIN,
      'POST, OPTIONS',
    ]);
    const listed = await fetch(`${baseUrl}/grants-api?limit=1`, { headers: { origin: APP_ORIGIN, authorization: `Bearer ${keys.developer}` } });
    expect([listed.status, listed.headers.get('access-control-allow-origin'), listed.headers.get('vary')]).toEqual([200, APP_ORIGIN, 'Accept, Origin']);
    const other = await fetch(`${baseUrl}/grants-api?limit=1`, { headers: { origin: 'https://elsewhere.example', authorization: `Bearer ${keys.developer}` } });
    expect([other.status, other.headers.get('access-control-allow-origin')]).toEqual([200, null]);
    const docs = await fetch(`${baseUrl}/docs`);
    expect([docs.status, docs.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    const script = await fetch(`${baseUrl}/docs/scalar.js`);
    expect([script.status, script.headers.get('content-type'), (await script.text()).length > 4_000_000]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      true,
    ]);
  });

  it("answers bad input with the service's 400 error body, and a bad key with the gateway's 401", async () => {
    const bad = await get('/grants-api?limit=abc');
    expect([bad.status, bad.body]).toEqual([
      400,
      {
        error: {
          code: 'INVALID_PARAMETER',
          message: 'Invalid parameter: limit',
          details: [{ field: 'limit', issue: 'must be an integer from 1 to 100' }],
          request_id: bad.headers.get('x-request-id'),
        },
      },
    ]);
    expect(await get('/grants-api/not-a-uuid')).toMatchObject({ status: 400, body: { error: { code: 'INVALID_PARAMETER' } } });
    expect(await post('/semantic-search', '{"query":')).toMatchObject({ status: 400, body: { error: { code: 'INVALID_PARAMETER' } } });
    const refused = await get('/grants-api', 'gcf_live_00000000000000000000000000000000');
    expect([refused.status, refused.body]).toEqual([
      401,
      { error: { code: 'UNAUTHORIZED', message: 'Missing or invalid API key', request_id: refused.headers.get('x-request-id') } },
    ]);
  });

  it('indexes what the admin CLI writes to the table through the emulated stream, and delivers its grant.created webhooks through ElasticMQ', async () => {
    const dynamo = new DynamoDBClient({ endpoint: tableEndpoint, region: LOCAL_AWS_REGION, credentials: tableCredentials });
    const keyStore = new DynamoKeyStore(dynamo, LOCAL_AWS_TABLE_NAME);
    const developer = (await keyStore.findByHash(hashApiKey(keys.developer!)))!;
    const { secret } = await addSubscription(
      {
        webhooks: new DynamoWebhookStore(dynamo, LOCAL_AWS_TABLE_NAME, new LocalSecretSealer(dataDir)),
        keys: keyStore,
        resolver: { resolve: async () => ['127.0.0.1'] },
      },
      { keyId: developer.key_id, url: `${receiverUrl}/hooks`, events: ['grant.created'] },
      'local',
      new Date(),
    );
    dynamo.destroy();

    const ingest = await runAdmin(['ingest', 'test/fixtures/ingest/grants-gov-extract-v2.xml', '--target', 'aws', '--table-name', LOCAL_AWS_TABLE_NAME], {
      AWS_REGION: LOCAL_AWS_REGION,
      AWS_ACCESS_KEY_ID: tableCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: tableCredentials.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: tableEndpoint,
      AWS_PROFILE: undefined,
    });
    expect(ingest.code, ingest.stderr).toBe(0);
    expect(ingest.stdout).toContain('3 imported, 0 rejected');

    const title = 'Pilot Effectiveness Trials for Suicide Prevention Interventions in Youth (R34 Clinical Trial Required)';
    const indexed = await eventually(async () => {
      const { body } = await get(
        `/grants-api?search=${encodeURIComponent('suicide prevention interventions youth pilot trials')}&opportunity_type=all&limit=3`,
      );
      return body.results?.[0]?.title === title ? (body.results[0] as Grant) : undefined;
    }, 'the imported grant in the search index');
    expect(await get(`/grants-api/${indexed.id}`)).toMatchObject({ status: 200, body: { id: indexed.id, title } });

    const delivery = await eventually(async () => received.find((r) => JSON.parse(r.body).data?.id === indexed.id), 'the grant.created webhook');
    expect(delivery.path).toBe('/hooks');
    expect(JSON.parse(delivery.body)).toMatchObject({ event: 'grant.created', data: { id: indexed.id, title } });
    expect(verifyServiceSignature(delivery.body, delivery.headers['x-service-signature'] as string, secret)).toBe(true);
    await eventually(async () => (received.length >= 3 ? true : undefined), 'a webhook for each of the 3 imported grants');
    expect(new Set(received.map((r) => JSON.parse(r.body).event))).toEqual(new Set(['grant.created']));

    // Nothing secret reaches the server's output.
    for (const key of Object.values(keys)) expect(output).not.toContain(key);
    expect(output).not.toContain(secret);
  });

  it('stops what it started on SIGTERM, leaving the engines it reused running', async () => {
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('stopping…');
    expect(output).not.toMatch(/opensearch: stopped|elasticmq: stopped/);
    const health = await fetch(`${process.env.OPENSEARCH_URL}/_cluster/health`);
    expect(health.ok).toBe(true);
  });
});
