import { randomBytes } from 'node:crypto';
import { GetItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaEntries } from '../../bench/bundles';
import { lambdaEnvironment } from '../../bench/coldstart';
import { DynamoDeliveryLog } from '../../lambdas/adapters/aws/dynamo-delivery-log';
import { DynamoKeyStore } from '../../lambdas/adapters/aws/dynamo-key-store';
import { DynamoRecordStore } from '../../lambdas/adapters/aws/dynamo-record-store';
import { DynamoWebhookStore } from '../../lambdas/adapters/aws/dynamo-webhook-store';
import { OpenSearchHttpClient } from '../../lambdas/adapters/aws/opensearch-client';
import { recordKeyOf } from '../../lambdas/adapters/aws/records-table';
import { deliveryMessageOf } from '../../lambdas/adapters/aws/sqs-delivery-queue';
import { LocalSecretSealer } from '../../lambdas/adapters/embedded/local-secret-sealer';
import { FUNCTION_ENV } from '../../lambdas/composition/function-env';
import { TIER_QUOTAS_ENV } from '../../lambdas/composition/tier-quotas-env';
import { WEBHOOK_QUEUE_ENV } from '../../lambdas/composition/webhook-env';
import { issueCursor } from '../../lambdas/core/query/list-cursor';
import { parseListQuery } from '../../lambdas/core/query/list-query';
import type { Grant } from '../../lambdas/core/records';
import { createKey } from '../../lambdas/core/use-cases/manage-keys';
import { addSubscription } from '../../lambdas/core/use-cases/manage-webhooks';
import { stageConfig } from '../../lib/config';
import { RUNTIME_SDK_FLOOR } from '../../lib/constructs/service-function';
import { DEFAULT_CATALOGUE, generateFunders, generateGrants } from '../../local/synthetic-catalogue';
import { type DynaliteTable, startDynaliteTable } from '../support/dynalite-table';
import { bundleForRuntime, installRuntimeSdk, invokeBundle, type LambdaBundle, resolvedFrom, runtimeSdkAt } from '../support/runtime-sdk';
import { type StandInApiGateway, startStandInApiGateway } from '../support/stand-in-api-gateway';
import { type StandInBedrock, startStandInBedrock } from '../support/stand-in-bedrock';
import { type StandInSecretsManager, startStandInSecretsManager } from '../support/stand-in-secrets-manager';
import { describeOnEngine } from './engine-suite';

/**
 * The functions leave `@aws-sdk/*` to the Lambda runtime (bundling it would break the 400 KB
 * budget), so here every deployed bundle runs on the oldest SDK release a runtime can ship
 * (RUNTIME_SDK_FLOOR), installed by npm outside the project: each bundle must import, and the
 * functions that use each SDK package must work, against dynalite, OpenSearch 2.19, ElasticMQ, and
 * stand-ins for Bedrock, Secrets Manager and API Gateway's keys (the only doubles: none can run here).
 */

const TABLE = 'gcf-runtime-sdk';
const PREFIX = `gcf-runtime-sdk-${Date.now()}`;
const TITAN = 'amazon.titan-embed-text-v2:0';
const CURSOR_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:gcf-cursor-key';
const CURSOR_SECRET = 'k'.repeat(64);
/** The stage's tier keys, as API Gateway holds them: id -> value. */
const TIER_KEY_IDS = { free: 'tk-free', basic: 'tk-basic', pro: 'tk-pro', developer: 'tk-developer' };

describeOnEngine(`the functions on the runtime's AWS SDK (${RUNTIME_SDK_FLOOR})`, 'OPENSEARCH_URL', (opensearchUrl) => {
  const sqsEndpoint = process.env.SQS_ENDPOINT;
  const sdk = runtimeSdkAt(RUNTIME_SDK_FLOOR);
  const sqs = new SQSClient({ endpoint: sqsEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'engines', secretAccessKey: 'engines' } });
  const bundles = new Map<string, LambdaBundle>();
  let table: DynaliteTable;
  let bedrock: StandInBedrock;
  let secrets: StandInSecretsManager;
  let apiGateway: StandInApiGateway;
  let queueUrl = '';
  let deadLetterUrl = '';
  let apiKey = '';
  let keyId = '';
  let grant: Grant;

  /** What the stage sets on every function (cdk.out: each function's Environment), pointed at the local engines. */
  const env = (name: string) =>
    lambdaEnvironment(name, {
      RECORDS_TABLE_NAME: TABLE,
      SEARCH_DOMAIN_ENDPOINT: opensearchUrl,
      SEARCH_INDEX_ALIAS_PREFIX: PREFIX,
      EMBEDDING_MODEL: TITAN,
      EMBEDDING_DIMENSIONS: '256',
      [TIER_QUOTAS_ENV]: JSON.stringify(stageConfig('dev').tierQuotas),
      [WEBHOOK_QUEUE_ENV.queueUrl]: queueUrl,
      [WEBHOOK_QUEUE_ENV.deadLetterQueueUrl]: deadLetterUrl,
      AWS_ENDPOINT_URL_DYNAMODB: table.endpoint,
      AWS_ENDPOINT_URL_SQS: sqsEndpoint!,
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrock.endpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
      AWS_ENDPOINT_URL_API_GATEWAY: apiGateway.endpoint,
      [FUNCTION_ENV.tierApiKeyIds]: JSON.stringify(TIER_KEY_IDS),
      [FUNCTION_ENV.cursorKeySecretArn]: CURSOR_SECRET_ARN,
      // X-Ray has no daemon here; the handlers' own code is what is under test.
      POWERTOOLS_TRACE_ENABLED: 'false',
      ...(process.env.RUNTIME_SDK_DEBUG ? { POWERTOOLS_LOG_LEVEL: 'DEBUG' } : {}),
    });
  const invoke = (name: string, event?: unknown) => invokeBundle(bundles.get(name)!.file, env(name), event);
  const apiEvent = (path: string, overrides: Record<string, unknown>) => ({
    httpMethod: 'GET',
    path,
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    requestContext: { requestId: 'runtime-sdk', authorizer: { keyId, tier: 'developer' } },
    ...overrides,
  });

  beforeAll(async () => {
    if (!sqsEndpoint) throw new Error('SQS_ENDPOINT is not set: npm run test:engines sets it to ElasticMQ');
    for (const lambda of lambdaEntries()) bundles.set(lambda.name, await bundleForRuntime(lambda, sdk));
    await installRuntimeSdk(
      sdk,
      [...bundles.values()].flatMap((b) => b.externals),
    );
    table = await startDynaliteTable(TABLE);
    // The floor release's Bedrock Runtime client speaks HTTP/1.1 (HTTP/2 came later).
    bedrock = await startStandInBedrock('http1');
    secrets = await startStandInSecretsManager({ [CURSOR_SECRET_ARN]: CURSOR_SECRET });
    apiGateway = await startStandInApiGateway(new Map(Object.values(TIER_KEY_IDS).map((id) => [id, { id, name: id, value: `value-of-${id}`, enabled: true }])));
    deadLetterUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `${PREFIX}-dlq` }))).QueueUrl!;
    queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: PREFIX }))).QueueUrl!;
    const dynamo = table.client();
    const created = await createKey(new DynamoKeyStore(dynamo, TABLE), { tier: 'developer', owner: 'dev@example.org', label: '' }, randomBytes, new Date());
    apiKey = created.key;
    keyId = created.record.key_id;
    const today = new Date().toISOString().slice(0, 10);
    const spec = { ...DEFAULT_CATALOGUE, funders: 1, grants: 20, awardedGrants: 0, contracts: 0, awardedContracts: 0, today };
    // One a default list shows: posted, its deadline ahead.
    const open = [...generateGrants(spec, generateFunders(spec))].flat().find((g) => g.status === 'posted' && (g.deadline_date ?? '') > today)!;
    grant = open;
    await new DynamoRecordStore(dynamo, TABLE).put('grant', [grant]);
    await addSubscription(
      {
        webhooks: new DynamoWebhookStore(dynamo, TABLE, new LocalSecretSealer()),
        keys: new DynamoKeyStore(dynamo, TABLE),
        resolver: { resolve: async () => ['93.184.215.14'] },
      },
      { keyId, url: 'https://hooks.example.org/grants', events: ['grant.created'] },
      'aws',
      new Date(),
    );
    dynamo.destroy();
  }, 600_000);

  afterAll(async () => {
    for (const url of [queueUrl, deadLetterUrl]) if (url) await sqs.send(new DeleteQueueCommand({ QueueUrl: url })).catch(() => undefined);
    sqs.destroy();
    await new OpenSearchHttpClient({ node: opensearchUrl }).indices.delete({ index: `${PREFIX}-*` }).catch(() => undefined);
    await bedrock?.close();
    await secrets?.close();
    await apiGateway?.close();
    await table?.close();
  });

  it('leaves only @aws-sdk/* external, and every such import resolves to the runtime release, outside the project', () => {
    const seen = new Set<string>();
    for (const bundle of bundles.values()) {
      for (const specifier of bundle.externals) {
        expect(specifier, bundle.lambda.name).toMatch(/^@aws-sdk\//);
        const { path, version } = resolvedFrom(bundle.file, specifier);
        expect([bundle.lambda.name, specifier, version, path.startsWith(sdk.dir)]).toEqual([bundle.lambda.name, specifier, RUNTIME_SDK_FLOOR, true]);
        seen.add(specifier);
      }
    }
    // What the functions need of the runtime: if this list grows, the checks below should grow with it.
    expect([...seen].sort()).toEqual([
      '@aws-sdk/client-api-gateway',
      '@aws-sdk/client-bedrock-runtime',
      '@aws-sdk/client-dynamodb',
      // The webhook sender's KMS calls: their imports load on the runtime release (below); KMS itself has no stand-in here.
      '@aws-sdk/client-kms',
      '@aws-sdk/client-secrets-manager',
      '@aws-sdk/client-sqs',
      '@aws-sdk/credential-provider-node',
      '@aws-sdk/lib-dynamodb',
      '@aws-sdk/util-dynamodb',
    ]);
  });

  it('loads every function: each named import exists in the runtime release', async () => {
    const failures: string[] = [];
    for (const name of bundles.keys()) await invoke(name).catch((error: Error) => failures.push(error.message));
    expect(failures).toEqual([]);
    expect(bundles.size).toBe(lambdaEntries().length);
  }, 300_000);

  it('authorizes a key with its tier key (client-api-gateway) and serves a record by id from DynamoDB (client-dynamodb, lib-dynamodb)', async () => {
    const policy = (await invoke('authorize-request', {
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:us-east-1:000000000000:api/prod/GET/grants-api',
      path: '/grants-api',
      httpMethod: 'GET',
      headers: { Authorization: `Bearer ${apiKey}` },
      multiValueHeaders: {},
      requestContext: { requestId: 'runtime-sdk' },
    })) as { policyDocument: { Statement: { Effect: string }[] }; context: { keyId: string }; usageIdentifierKey: string };
    expect(policy.policyDocument.Statement.map((s) => s.Effect)).toEqual(['Allow']);
    expect(policy.context.keyId).toBe(keyId);
    expect(policy.usageIdentifierKey).toBe('value-of-tk-developer');
    expect(apiGateway.requests).toContain('GET /apikeys/tk-developer?includeValue=true');
    const response = (await invoke('get-grant', apiEvent(`/grants-api/${grant.id}`, { pathParameters: { id: grant.id } }))) as {
      statusCode: number;
      body: string;
    };
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ id: grant.id, title: grant.title });
  }, 60_000);

  it('bootstraps the indices, indexes a stream batch (util-dynamodb, Bedrock, SigV4 credentials) and lists the record from the index', async () => {
    const bootstrap = (await invoke('bootstrap-search-index', {
      RequestType: 'Create',
      ResourceProperties: { Embedder: `bedrock:${TITAN}`, Dimensions: '256' },
    })) as { Data: Record<string, string> };
    expect(bootstrap.Data.grant).toMatch(/^created /);
    const dynamo = table.client();
    const { Item } = await dynamo.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: recordKeyOf('grant', grant.id).pk }, sk: { S: 'record' } } }));
    const streamRecord = {
      eventID: '1',
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      awsRegion: 'us-east-1',
      dynamodb: { Keys: { pk: Item!.pk, sk: Item!.sk }, NewImage: Item, SequenceNumber: '1', StreamViewType: 'NEW_AND_OLD_IMAGES' },
    };
    expect(await invoke('index-record-changes', { Records: [streamRecord] })).toEqual({ batchItemFailures: [] });
    // The embedding call was signed by the runtime's credential chain and SDK.
    expect(bedrock.requests.map((r) => [r.path, r.body.dimensions, r.authorization?.startsWith('AWS4-HMAC-SHA256')])).toEqual([
      [`/model/${encodeURIComponent(TITAN)}/invoke`, 256, true],
    ]);
    let found: { results: { id: string }[] } = { results: [] };
    for (let attempt = 0; attempt < 20 && found.results.length === 0; attempt++) {
      // The index shows a write after its next refresh (each second).
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      const response = (await invoke('list-grants', apiEvent('/grants-api', {}))) as { statusCode: number; body: string };
      expect(response.statusCode).toBe(200);
      found = JSON.parse(response.body);
    }
    expect(found.results.map((g) => g.id)).toEqual([grant.id]);
    dynamo.destroy();
  }, 120_000);

  it('reads the cursor key from Secrets Manager (client-secrets-manager) and continues a list after a cursor signed with it', async () => {
    // A cursor as a page of newer grants would have given: the grant is the first after its position.
    const query = parseListQuery('grant', {}, new Date().toISOString().slice(0, 10));
    const after = [Date.parse(grant.created_at) + 60_000, 'ffffffff-ffff-4fff-bfff-ffffffffffff'];
    const cursor = issueCursor(Buffer.from(CURSOR_SECRET), query, { after, seen: 20, today: query.today }, new Date());
    const response = (await invoke(
      'list-grants',
      apiEvent('/grants-api', { queryStringParameters: { cursor }, multiValueQueryStringParameters: { cursor: [cursor] } }),
    )) as { statusCode: number; body: string };
    expect(response.statusCode, response.body).toBe(200);
    const body = JSON.parse(response.body) as { results: { id: string }[]; pagination: { offset: number; next_cursor?: string } };
    expect(body.results.map((g) => g.id)).toEqual([grant.id]);
    expect(body.pagination.offset).toBe(20);
    expect(body.pagination.next_cursor).toBeUndefined();
    expect(secrets.requests).toEqual([{ target: 'secretsmanager.GetSecretValue', secretId: CURSOR_SECRET_ARN, signed: true }]);
    // Signed with another key, the same cursor is refused.
    const forged = issueCursor(Buffer.alloc(64, 1), query, { after, seen: 20, today: query.today }, new Date());
    const refused = (await invoke(
      'list-grants',
      apiEvent('/grants-api', { queryStringParameters: { cursor: forged }, multiValueQueryStringParameters: { cursor: [forged] } }),
    )) as { statusCode: number; body: string };
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body).error.details[0].field).toBe('cursor');
  }, 60_000);

  it('fans the change event out to the webhook queue on SQS (client-sqs)', async () => {
    const dynamo = table.client();
    const { Items = [] } = await dynamo.send(
      new ScanCommand({ TableName: TABLE, FilterExpression: 'sk = :sk', ExpressionAttributeValues: { ':sk': { S: 'event' } } }),
    );
    dynamo.destroy();
    expect(Items).toHaveLength(1);
    const records = Items.map((item, i) => ({
      eventID: String(i),
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      dynamodb: { Keys: { pk: item.pk, sk: item.sk }, NewImage: item, SequenceNumber: String(i) },
    }));
    expect(await invoke('fan-out-change-events', { Records: records })).toEqual({ batchItemFailures: [] });
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 2 }));
    expect(Messages).toHaveLength(1);
    const delivery = await new DynamoDeliveryLog(table.client(), TABLE).get(deliveryMessageOf(Messages[0]!.Body!)!.delivery_id);
    expect([delivery?.event, delivery?.status]).toEqual(['grant.created', 'pending']);
  }, 60_000);
});

describe('RUNTIME_SDK_FLOOR', () => {
  it('is an SDK v3 release no newer than the one the project pins', async () => {
    const pinned = (await import('@aws-sdk/client-dynamodb/package.json', { with: { type: 'json' } })).default.version as string;
    const parts = (v: string) => v.split('.').map(Number);
    expect(parts(RUNTIME_SDK_FLOOR)[0]).toBe(3);
    expect(parts(RUNTIME_SDK_FLOOR)[1]!).toBeLessThanOrEqual(parts(pinned)[1]!);
  });
});
