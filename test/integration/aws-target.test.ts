import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDeliveryLog } from '../../lambdas/adapters/aws/dynamo-delivery-log';
import { DynamoWebhookStore } from '../../lambdas/adapters/aws/dynamo-webhook-store';
import { INDEX_ALIASES, OpenSearchIndex } from '../../lambdas/adapters/aws/opensearch-index';
import { LocalSecretSealer } from '../../lambdas/adapters/embedded/local-secret-sealer';
import { hashApiKey } from '../../lambdas/core/auth/api-keys';
import { recordIdOf } from '../../lambdas/core/ingest/identity';
import type { Grant } from '../../lambdas/core/records';
import { RESOURCE_KINDS } from '../../lambdas/core/records';
import { createKey } from '../../lambdas/core/use-cases/manage-keys';
import { reindexRecords } from '../../lambdas/core/use-cases/reindex-records';
import type { WebhookSubscription } from '../../lambdas/ports/webhook-store';
import { type EmbeddedStack, LOCAL_TABLE_NAME, startEmbeddedStack } from '../../local/embedded-stack';
import { adminAwsEnv } from '../support/admin-aws-env';
import { countingEmbedder, memoryEmbeddingCache } from '../support/embedding-doubles';
import { type StandInApiGateway, startStandInApiGateway } from '../support/stand-in-api-gateway';
import { type StandInBedrock, startStandInBedrock } from '../support/stand-in-bedrock';
import { type StandInOpenSearch, startStandInOpenSearch } from '../support/stand-in-opensearch';
import { type StandInSqs, startStandInSqs } from '../support/stand-in-sqs';

/**
 * The admin CLI's AWS target (ingest, reindex, keys) and the OpenSearch backfill, against local
 * stand-ins reached through the SDK's endpoint overrides: the table is dynalite (the DynamoDB
 * API), the search domain and API Gateway's management API are loopback stand-ins that keep what
 * they are sent.
 */

const SMALL = { funders: 12, grants: 60, contracts: 25, awardedGrants: 6, awardedContracts: 3 };
let stack: EmbeddedStack;
let openSearch: StandInOpenSearch;
beforeAll(async () => {
  // The CLI runs in child processes: they reach the table on its guarded loopback endpoint.
  stack = await startEmbeddedStack({ seed: SMALL, tableEndpoint: true });
  openSearch = await startStandInOpenSearch();
});
afterAll(async () => {
  await openSearch?.close();
  await stack?.close();
});

async function storedRecords() {
  const records = new Map<string, unknown>();
  for (const kind of RESOURCE_KINDS) {
    for await (const page of stack.services.store.scan(kind)) for (const record of page) records.set(`${INDEX_ALIASES[kind]}/${record.id}`, record);
  }
  return records;
}

describe('reindexRecords', () => {
  it('puts every stored record, whole and with its vector, into the index; a second run changes nothing and embeds nothing', async () => {
    openSearch.reset();
    const embeddings = { embedder: countingEmbedder(), cache: memoryEmbeddingCache() };
    const index = new OpenSearchIndex(new Client({ node: openSearch.endpoint }), { space: embeddings.embedder.space, endpoint: openSearch.endpoint });
    const counts = await reindexRecords(stack.services.store, { index, embeddings });
    expect(counts).toEqual({ grant: 60, contract: 25, funder: 12 });
    const expected = await storedRecords();
    expect(openSearch.documents).toEqual(expected);
    const embedded = embeddings.embedder.embedded.length;
    expect(embedded).toBeGreaterThan(80);
    const bulk = openSearch.requests
      .filter((r) => r.path === '/_bulk')
      .map((r) => r.body)
      .join('');
    expect(bulk).toMatch(/"embedding":\[(-?\d[\d.e-]*,){7}-?\d[\d.e-]*\]/);
    await reindexRecords(stack.services.store, { index, embeddings });
    expect(openSearch.documents).toEqual(expected);
    expect(embeddings.embedder.embedded.length).toBe(embedded);
    expect(
      openSearch.requests
        .filter((r) => r.method === 'PUT')
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/gcf-contracts-v1', '/gcf-funders-v1', '/gcf-grants-v1']);
  });
});

describe('admin --target aws (against local stand-ins)', () => {
  let apiGateway: StandInApiGateway;
  let bedrock: StandInBedrock;
  let sqs: StandInSqs;
  beforeAll(async () => {
    apiGateway = await startStandInApiGateway();
    bedrock = await startStandInBedrock();
    sqs = await startStandInSqs();
  });
  afterAll(async () => {
    await apiGateway?.close();
    await bedrock?.close();
    await sqs?.close();
  });
  const run = promisify(execFile);
  const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/ingest/${name}`, import.meta.url));
  const awsEnv = () => adminAwsEnv(stack, { AWS_ENDPOINT_URL_API_GATEWAY: apiGateway.endpoint, AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.endpoint });
  const admin = (...args: string[]) => run(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], { timeout: 60_000, env: awsEnv() });

  it('ingest writes to the named table; reindex then carries the records, embedded by Bedrock, into the domain', async () => {
    const ingest = await admin('ingest', fixture('nsf-awards.csv'), '--target', 'aws', '--table-name', LOCAL_TABLE_NAME);
    expect(ingest.stderr).toContain(`writing to DynamoDB table ${LOCAL_TABLE_NAME}`);
    expect(ingest.stdout).toMatch(/^grant\s+2\s+0\s+0$/m);
    const id = recordIdOf('grant', 'nsf', '2400123');
    expect((await stack.services.store.get('grant', id))?.opportunity_type).toBe('awarded');

    openSearch.reset();
    const reindex = await admin(
      'reindex',
      '--target',
      'aws',
      '--table-name',
      LOCAL_TABLE_NAME,
      '--search-endpoint',
      openSearch.endpoint,
      '--embedding-dimensions',
      '256',
    );
    expect(reindex.stdout).toMatch(/^grant\s+62 indexed$/m);
    expect(openSearch.documents.get(`gcf-grants/${id}`)).toEqual(await stack.services.store.get('grant', id));
    // Titan V2 requests, and the index made in that vector space.
    expect(bedrock.requests[0]).toMatchObject({ path: '/model/amazon.titan-embed-text-v2%3A0/invoke', body: { dimensions: 256, normalize: true } });
    expect(bedrock.requests[0]!.authorization).toMatch(/\/us-east-1\/bedrock\/aws4_request/);
    const created = openSearch.requests.find((r) => r.method === 'PUT' && r.path === '/gcf-grants-v1')!;
    expect(JSON.parse(created.body).mappings._meta.vector_space).toEqual({ embedder: 'bedrock:amazon.titan-embed-text-v2:0', dimensions: 256 });
    // A second run re-embeds nothing: every vector comes from the embedding cache in the table.
    const calls = bedrock.requests.length;
    await admin('reindex', '--target', 'aws', '--table-name', LOCAL_TABLE_NAME, '--search-endpoint', openSearch.endpoint, '--embedding-dimensions', '256');
    expect(bedrock.requests.length).toBe(calls);
    // Signed with the caller's credentials (SigV4 for service "es"), as an IAM-only domain requires.
    expect(openSearch.requests.length).toBeGreaterThan(0);
    const credential = new RegExp(`^AWS4-HMAC-SHA256 Credential=${stack.tableEndpoint!.credentials.accessKeyId}/\\d{8}/us-east-1/es/aws4_request`);
    for (const request of openSearch.requests) expect(request.authorization).toMatch(credential);
  });

  it('keys create/set-tier/revoke touch only the table; migrate-gateway-keys deletes the per-customer gateway keys of earlier versions', async () => {
    const table = ['--target', 'aws', '--table-name', LOCAL_TABLE_NAME];
    const created = await admin('keys', 'create', '--tier', 'basic', '--owner', 'acme', ...table);
    const keyId = /^key id (key_\w+)/m.exec(created.stdout)![1]!;
    await admin('keys', 'set-tier', keyId, 'pro', ...table);
    expect((await stack.services.keys.get(keyId))!.tier).toBe('pro');
    await admin('keys', 'revoke', keyId, ...table);
    expect((await stack.services.keys.get(keyId))!.revoked_at).not.toBeNull();
    expect(apiGateway.requests).toEqual([]); // no gateway key per customer key

    // A record an earlier version wrote, with its own gateway key.
    const { record } = await createKey(stack.services.keys, { tier: 'basic', owner: 'old', label: '' }, randomBytes, new Date());
    apiGateway.apiKeys.set('ak-old', { id: 'ak-old', name: 'key_old', value: 'gcfu_old', enabled: true });
    const legacy = { ...record, key_id: `${record.key_id}l`, current_hash: hashApiKey(`legacy-${record.key_id}`), usage_key: 'gcfu_old', api_key_id: 'ak-old' };
    await stack.services.keys.create(legacy);

    const dryRun = await admin('keys', 'migrate-gateway-keys', '--dry-run', ...table);
    expect(dryRun.stdout).toMatch(new RegExp(`^key id ${legacy.key_id}\tgateway key ak-old\tplanned$`, 'm'));
    expect(apiGateway.apiKeys.has('ak-old')).toBe(true);
    const migrated = await admin('keys', 'migrate-gateway-keys', ...table);
    expect(migrated.stdout).toMatch(/^1 key migrated$/m);
    expect(apiGateway.apiKeys.has('ak-old')).toBe(false);
    expect((await stack.services.keys.get(legacy.key_id))!.api_key_id ?? null).toBeNull();
    expect((await admin('keys', 'migrate-gateway-keys', ...table)).stdout).toMatch(/^0 keys migrated$/m);
  });

  it("webhooks replay queues a failed delivery on the stage's webhook queue for the sender Lambda", async () => {
    const log = new DynamoDeliveryLog(stack.dynamoClient(), LOCAL_TABLE_NAME);
    const at = '2026-11-20T10:00:00.000Z';
    await log.create({
      delivery_id: 'dlv_failed1',
      subscription_id: 'whk_1',
      event_id: 'evt-1',
      event: 'grant.created',
      body: '{"event":"grant.created","data":{}}',
      status: 'failed',
      attempts: 8,
      last_status_code: 503,
      last_error: null,
      last_latency_ms: 20,
      last_response: 'down',
      next_attempt_at: null,
      created_at: at,
      updated_at: at,
      delivered_at: null,
    });
    const queues = ['--queue-url', sqs.queueUrl('webhooks'), '--dead-letter-queue-url', sqs.queueUrl('webhooks-dlq')];
    const replayed = await admin('webhooks', 'replay', 'dlv_failed1', '--target', 'aws', '--table-name', LOCAL_TABLE_NAME, ...queues);
    expect(replayed.stdout).toContain('delivery dlv_failed1 (grant.created to whk_1) queued again; the webhook sender sends it');
    expect(sqs.drain(sqs.queueUrl('webhooks')).map((m) => [JSON.parse(m.body), m.delaySeconds])).toEqual([[{ delivery_id: 'dlv_failed1' }, 0]]);
    expect(await log.get('dlv_failed1')).toMatchObject({ status: 'pending', attempts: 0, body: '{"event":"grant.created","data":{}}' });

    await expect(admin('webhooks', 'replay', 'dlv_nope', '--target', 'aws', '--table-name', LOCAL_TABLE_NAME, ...queues)).rejects.toMatchObject({
      stderr: expect.stringContaining('no delivery dlv_nope'),
    });
    expect(sqs.sent).toEqual([]);
  });

  /** A subscription in the stage's table, as `webhooks add` stores one. */
  async function storedSubscription(
    subscription: Pick<WebhookSubscription, 'subscription_id' | 'url' | 'events' | 'days_before'>,
  ): Promise<DynamoWebhookStore> {
    const client = stack.dynamoClient();
    const store = new DynamoWebhookStore(client, LOCAL_TABLE_NAME, new LocalSecretSealer());
    const now = new Date().toISOString();
    await store.create({
      ...subscription,
      key_id: 'key_1',
      state: 'active',
      disabled_reason: null,
      secret: 'whsec_test',
      previous_secret: null,
      previous_secret_valid_until: null,
      created_at: now,
      updated_at: now,
    });
    return store;
  }

  it("webhooks test --target aws reads the subscription from the stage's table and applies the AWS destination rules", async () => {
    // Stored as a stage may hold one whose name has since come to resolve to loopback (DNS rebinding).
    const store = await storedSubscription({ subscription_id: 'whk_rebound', url: 'https://localhost:9/gcf', events: ['grant.created'], days_before: 7 });
    const refused = await admin('webhooks', 'test', 'whk_rebound', '--target', 'aws', '--table-name', LOCAL_TABLE_NAME).catch(
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(refused).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(
        /^webhook\.test [0-9a-f-]{36} to https:\/\/localhost:9\/gcf: no answer \(webhook URL refused: localhost is a loopback name\)$/m,
      ),
    });
    await expect(admin('webhooks', 'test', 'whk_nope', '--target', 'aws', '--table-name', LOCAL_TABLE_NAME)).rejects.toMatchObject({
      stderr: expect.stringContaining('no subscription whk_nope'),
    });
    await store.update('whk_rebound', { state: 'disabled', disabled_reason: 'test over', updated_at: new Date().toISOString() });
  });

  it("scan-deadlines --target aws reads the stage's search domain and queues each reminder once on its webhook queue", async () => {
    await storedSubscription({
      subscription_id: 'whk_deadlines',
      url: 'https://hooks.example.org/gcf',
      events: ['grant.deadline_approaching'],
      days_before: 5,
    });
    const client = stack.dynamoClient();
    const deadline = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const [grant] = (await stack.services.store.scan('grant')[Symbol.asyncIterator]().next()).value as Grant[];
    const due = { ...grant!, status: 'posted', deadline_date: deadline };
    openSearch.createIndex('gcf-grants-v1', { aliases: { 'gcf-grants': {} } });
    // The domain answers each day's query with the grant only when its deadline is in that day's range.
    openSearch.respond = (request) => {
      if (!request.path.includes('_search')) return undefined;
      // The window is the last pair of deadline ranges: the status clause before it has its own (lapsed: deadline before today).
      const range = JSON.stringify(JSON.parse(request.body).query);
      const after = [...range.matchAll(/"deadline_date":\{"gt":"([\d-]+)"\}/g)].at(-1)?.[1];
      const before = [...range.matchAll(/"deadline_date":\{"lt":"([\d-]+)"\}/g)].at(-1)?.[1];
      const hit = after !== undefined && before !== undefined && after < deadline && deadline < before;
      return { json: { hits: { total: { value: hit ? 1 : 0 }, hits: hit ? [{ _id: due.id, _source: due }] : [] } } };
    };
    const args = [
      'scan-deadlines',
      '--target',
      'aws',
      '--table-name',
      LOCAL_TABLE_NAME,
      '--search-endpoint',
      openSearch.endpoint,
      '--embedding-dimensions',
      '256',
      '--queue-url',
      sqs.queueUrl('webhooks'),
      '--dead-letter-queue-url',
      sqs.queueUrl('webhooks-dlq'),
    ];
    expect((await admin(...args)).stdout).toContain('1 deadline reminder queued; the webhook sender sends them');
    const [message] = sqs.drain(sqs.queueUrl('webhooks'));
    const delivery = await new DynamoDeliveryLog(client, LOCAL_TABLE_NAME).get((JSON.parse(message!.body) as { delivery_id: string }).delivery_id);
    expect(delivery).toMatchObject({ subscription_id: 'whk_deadlines', event: 'grant.deadline_approaching', status: 'pending' });
    expect(JSON.parse(delivery!.body)).toEqual({ event: 'grant.deadline_approaching', data: due });
    expect((await admin(...args)).stdout).toContain('0 deadline reminders queued');
    expect(sqs.sent).toEqual([]);
    openSearch.respond = undefined;
  });

  it('webhooks fan-out --target aws queues the change events left in the outbox, once, and empties it', async () => {
    const client = stack.dynamoClient();
    const now = new Date().toISOString();
    await new DynamoWebhookStore(client, LOCAL_TABLE_NAME, new LocalSecretSealer()).create({
      subscription_id: 'whk_changes',
      key_id: 'key_1',
      url: 'https://hooks.example.org/changes',
      events: ['grant.created'],
      days_before: 7,
      state: 'active',
      disabled_reason: null,
      secret: 'whsec_test',
      previous_secret: null,
      previous_secret_valid_until: null,
      created_at: now,
      updated_at: now,
    });
    // The seeded catalogue's and the ingest's events are still in the outbox: no fan-out ran here.
    let events = 0;
    const created = new Set<string>();
    for await (const page of stack.outbox.scan()) {
      events += page.length;
      for (const event of page) if (event.event === 'grant.created') created.add(event.event_id);
    }
    expect(created.size).toBeGreaterThan(50);
    const args = [
      'webhooks',
      'fan-out',
      '--target',
      'aws',
      '--table-name',
      LOCAL_TABLE_NAME,
      '--queue-url',
      sqs.queueUrl('webhooks'),
      '--dead-letter-queue-url',
      sqs.queueUrl('webhooks-dlq'),
    ];
    expect((await admin(...args)).stdout).toContain(`${events} change events fanned out: ${created.size} deliveries queued; the webhook sender sends them`);
    const log = new DynamoDeliveryLog(client, LOCAL_TABLE_NAME);
    const queued = sqs.drain(sqs.queueUrl('webhooks')).map((m) => (JSON.parse(m.body) as { delivery_id: string }).delivery_id);
    expect(queued).toHaveLength(created.size);
    const deliveries = await Promise.all(queued.map((id) => log.get(id)));
    expect(new Set(deliveries.map((d) => d?.event_id))).toEqual(created);
    expect(deliveries.every((d) => d?.subscription_id === 'whk_changes' && d.status === 'pending')).toBe(true);
    expect((await admin(...args)).stdout).toContain('0 change events fanned out: 0 deliveries queued');
  });
});
