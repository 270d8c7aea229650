import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { APIGatewayRequestAuthorizerEvent, Context, DynamoDBRecord, SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EmfMetrics } from '../../lambdas/adapters/aws/emf-metrics';
import { ServiceError } from '../../lambdas/core/errors';
import { METRIC_NAMES, METRICS_NAMESPACE } from '../../lambdas/core/metric-names';
import { parseListQuery } from '../../lambdas/core/query/list-query';
import { measuredEmbedder, measuredSearchIndex } from '../../lambdas/core/search/measured';
import type { DeliveryPorts } from '../../lambdas/core/use-cases/deliver-webhook';
import { createKey } from '../../lambdas/core/use-cases/manage-keys';
import { type ApiEvent, jsonResult, logger } from '../../lambdas/http/api-gateway';
import { authenticatedRoute } from '../../lambdas/http/authenticated-route';
import { ANY_ORIGIN } from '../../lambdas/http/cors';
import { apiHandler, type HandlerTracer, lambdaHandler, type Telemetry } from '../../lambdas/http/lambda-handler';
import { requestAuthorizerHandler } from '../../lambdas/http/request-authorizer';
import { streamIndexerHandler } from '../../lambdas/http/stream-indexer';
import { webhookSenderHandler } from '../../lambdas/http/webhook-sender';
import type { Delivery } from '../../lambdas/ports/delivery-log';
import type { ApiKeyRecord, KeyStore } from '../../lambdas/ports/key-store';
import type { SearchIndex } from '../../lambdas/ports/search-index';
import type { Services } from '../../lambdas/ports/services';
import type { UsageMeter } from '../../lambdas/ports/usage-meter';
import type { WebhookStore, WebhookSubscription } from '../../lambdas/ports/webhook-store';
import { ACCOUNT_ROUTES, API_ROUTES } from '../../lib/api-routes';
import { PROJECT_ROOT } from '../../lib/project-root';
import { countingEmbedder, memoryEmbeddingCache } from '../support/embedding-doubles';
import { inMemoryDeliveryLog } from '../support/in-memory-delivery-log';
import { recordingMetrics } from '../support/recording-metrics';

/**
 * Powertools on the Lambdas: the handler wrapper (logger context, X-Ray subsegment, one metrics
 * flush per invocation), the API request log line and route metrics, the EMF adapter's output,
 * and each metric where it is recorded, with doubles for Tracer and the metrics port and the
 * real Powertools Logger and Metrics writing to a captured stdout.
 */

const ROUTE = 'GET /grants-api/{id}';
const KEY = 'gcf_live_0123456789abcdefghijABCDEFGHIJ01';
const KEY_ID = 'key_AbCdEfGhIjKlMnOp';

function lambdaContext(requestId = 'lambda-request-1'): Context {
  return {
    awsRequestId: requestId,
    functionName: 'gcf-dev-GetGrant',
    functionVersion: '$LATEST',
    memoryLimitInMB: '512',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:gcf-dev-GetGrant',
    logGroupName: '/aws/lambda/x',
    logStreamName: 's',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => 10_000,
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

function apiEvent(overrides: Partial<ApiEvent> = {}): ApiEvent {
  return {
    resource: '/v1/grants-api/{id}',
    path: '/functions/v1/grants-api/g-1',
    httpMethod: 'GET',
    headers: { Authorization: `Bearer ${KEY}` },
    multiValueHeaders: { Authorization: [`Bearer ${KEY}`] },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: { id: 'g-1' },
    stageVariables: null,
    body: '{"secret":"a body never logged"}',
    isBase64Encoded: false,
    requestContext: { requestId: 'apigw-request-1', authorizer: { keyId: KEY_ID, tier: 'pro' } } as unknown as ApiEvent['requestContext'],
    ...overrides,
  };
}

/** Every JSON line written to stdout while `run` runs (Powertools writes logs and EMF there). */
async function stdoutLines(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return chunks
    .join('')
    .split('\n')
    .filter((line) => line.trim().startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function fakeTracer() {
  const events: string[] = [];
  const facade = {
    name: 'facade',
    addNewSubsegment: (name: string) => {
      events.push(`open ${name}`);
      return { name, close: () => events.push(`close ${name}`) };
    },
  };
  let current: { name: string } = facade;
  const tracer = {
    getSegment: () => current,
    setSegment: (segment: { name: string }) => {
      current = segment;
      events.push(`segment ${segment.name}`);
    },
    annotateColdStart: () => events.push('annotate ColdStart'),
    addServiceNameAnnotation: () => events.push('annotate Service'),
    addErrorAsMetadata: (error: Error) => events.push(`error ${error.message}`),
    putAnnotation: (key: string, value: string) => events.push(`annotate ${key}=${value}`),
  } as unknown as HandlerTracer;
  return { tracer, events };
}

function telemetry(tracer?: HandlerTracer) {
  const metrics = recordingMetrics();
  const t: Telemetry = { logger, metrics, ...(tracer ? { tracer } : {}) };
  return { telemetry: t, metrics };
}

afterEach(() => vi.restoreAllMocks());

describe('lambdaHandler', () => {
  it('runs the function in an X-Ray subsegment named after it, then flushes the metrics once', async () => {
    const { tracer, events } = fakeTracer();
    const { telemetry: t, metrics } = telemetry(tracer);
    const handler = lambdaHandler('indexer', t, async (event: { n: number }) => {
      t.metrics.record(METRIC_NAMES.indexerLagSeconds, 'Seconds', event.n);
      return event.n * 2;
    });
    await expect(handler({ n: 21 }, lambdaContext())).resolves.toBe(42);
    expect(events).toEqual(['open ## indexer', 'segment ## indexer', 'annotate ColdStart', 'annotate Service', 'close ## indexer', 'segment facade']);
    expect(metrics.flushes).toEqual([[{ name: 'IndexerLagSeconds', unit: 'Seconds', value: 21, dimensions: {} }]]);
  });

  it('records an error on the subsegment, still closes it and flushes, and rethrows', async () => {
    const { tracer, events } = fakeTracer();
    const { telemetry: t, metrics } = telemetry(tracer);
    const handler = lambdaHandler('deadline-scan', t, async () => {
      throw new Error('table unavailable');
    });
    await expect(handler({}, lambdaContext())).rejects.toThrow('table unavailable');
    expect(events).toEqual(expect.arrayContaining(['error table unavailable', 'close ## deadline-scan', 'segment facade']));
    expect(metrics.flushes).toHaveLength(1);
  });

  it('puts the Lambda request id and cold start on every log line of the invocation', async () => {
    const { telemetry: t } = telemetry();
    const handler = lambdaHandler('webhook-sender', t, async () => {
      logger.info('inside');
    });
    const [line] = await stdoutLines(() => handler({}, lambdaContext('lambda-request-7')));
    expect(line).toMatchObject({
      level: 'INFO',
      message: 'inside',
      function_request_id: 'lambda-request-7',
      function_name: 'gcf-dev-GetGrant',
      cold_start: expect.any(Boolean),
    });
  });
});

describe('apiHandler (every route)', () => {
  const ok = async () => jsonResult(200, { id: 'g-1' });

  it('records Requests, Errors (0) and Latency with the route dimension, flushed with the invocation', async () => {
    const { telemetry: t, metrics } = telemetry();
    await stdoutLines(() => apiHandler(ROUTE, t, ok, ANY_ORIGIN)(apiEvent(), lambdaContext()));
    expect(metrics.flushes).toHaveLength(1);
    expect(metrics.flushes[0]).toEqual([
      { name: 'Requests', unit: 'Count', value: 1, dimensions: { route: ROUTE } },
      { name: 'Errors', unit: 'Count', value: 0, dimensions: { route: ROUTE } },
      { name: 'Latency', unit: 'Milliseconds', value: expect.any(Number), dimensions: { route: ROUTE } },
    ]);
  });

  it('counts a 5xx as an Error, and a route that throws still answers the JSON error body', async () => {
    const { telemetry: t, metrics } = telemetry();
    const failing = apiHandler(
      ROUTE,
      t,
      async () => {
        throw new Error('boom');
      },
      ANY_ORIGIN,
    );
    let answer: Awaited<ReturnType<typeof failing>> | undefined;
    await stdoutLines(async () => {
      answer = await failing(apiEvent(), lambdaContext());
    });
    expect(answer).toMatchObject({ statusCode: 500, headers: { 'X-Request-Id': 'apigw-request-1' } });
    // API Gateway's request id, for the caller to quote: the same id the request's log lines carry.
    expect(JSON.parse(answer!.body)).toEqual({ error: { code: 'INTERNAL', message: 'Internal error; it has been logged', request_id: 'apigw-request-1' } });
    expect(metrics.recorded.find((m) => m.name === 'Errors')).toMatchObject({ value: 1, dimensions: { route: ROUTE } });
  });

  it('logs one request line: route, status, latency, request ids, key id prefix and tier; never the key, a header or the body', async () => {
    const { telemetry: t } = telemetry();
    const lines = await stdoutLines(() => apiHandler(ROUTE, t, ok, ANY_ORIGIN)(apiEvent(), lambdaContext('lambda-request-2')));
    const requests = lines.filter((line) => line.message === 'request');
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      level: 'INFO',
      service: expect.any(String),
      route: ROUTE,
      status: 200,
      latencyMs: expect.any(Number),
      requestId: 'apigw-request-1',
      function_request_id: 'lambda-request-2',
      keyIdPrefix: 'key_AbCd',
      tier: 'pro',
      cold_start: expect.any(Boolean),
    });
    const written = JSON.stringify(lines);
    expect(written).not.toContain(KEY);
    expect(written).not.toContain(KEY_ID);
    expect(written).not.toContain('a body never logged');
    expect(written).not.toContain('Bearer');
  });

  it("drops the invocation's keys afterwards, so the next invocation's lines carry its own", async () => {
    const { telemetry: t } = telemetry();
    await stdoutLines(() => apiHandler(ROUTE, t, ok, ANY_ORIGIN)(apiEvent(), lambdaContext()));
    const [line] = await stdoutLines(() =>
      lambdaHandler('other', t, async () => {
        logger.info('later');
      })({}, lambdaContext()),
    );
    expect(line).not.toHaveProperty('route');
    expect(line).not.toHaveProperty('requestId');
  });

  it('annotates the subsegment with the route', async () => {
    const { tracer, events } = fakeTracer();
    const { telemetry: t } = telemetry(tracer);
    await stdoutLines(() => apiHandler(ROUTE, t, ok, ANY_ORIGIN)(apiEvent(), lambdaContext()));
    expect(events).toEqual(expect.arrayContaining([`open ## ${ROUTE}`, `annotate route=${ROUTE}`, `close ## ${ROUTE}`]));
  });

  it("puts the CORS headers for the request's Origin on every answer, 2xx and 5xx, and none for an origin not allowed", async () => {
    const { telemetry: t } = telemetry();
    const origins = ['https://app.example.org'];
    const withOrigin = (origin: string) => ({ ...apiEvent(), headers: { ...apiEvent().headers, origin } });
    const answers: Awaited<ReturnType<ReturnType<typeof apiHandler>>>[] = [];
    await stdoutLines(async () => {
      answers.push(await apiHandler(ROUTE, t, ok, origins)(withOrigin('https://app.example.org'), lambdaContext()));
      answers.push(
        await apiHandler(
          ROUTE,
          t,
          async () => {
            throw new Error('boom');
          },
          origins,
        )(withOrigin('https://app.example.org'), lambdaContext()),
      );
      answers.push(await apiHandler(ROUTE, t, ok, origins)(withOrigin('https://elsewhere.example'), lambdaContext()));
      answers.push(await apiHandler(ROUTE, t, ok, ANY_ORIGIN)(apiEvent(), lambdaContext()));
    });
    expect(answers.map((a) => [a.statusCode, a.headers?.['Access-Control-Allow-Origin'], a.headers?.Vary])).toEqual([
      [200, 'https://app.example.org', 'Origin'],
      [500, 'https://app.example.org', 'Origin'],
      [200, undefined, 'Origin'],
      [200, '*', undefined],
    ]);
    expect(answers[1]!.headers?.['Access-Control-Expose-Headers']).toContain('X-Request-Id');
    expect(Object.keys(answers[2]!.headers ?? {}).filter((name) => name.startsWith('Access-Control-'))).toEqual([]);
  });

  it('called without a Lambda context (the local server), is the bare route: no log line, no metrics', async () => {
    const { telemetry: t, metrics } = telemetry();
    const lines = await stdoutLines(() => apiHandler(ROUTE, t, ok, ANY_ORIGIN)(apiEvent()));
    expect(lines).toEqual([]);
    expect(metrics.recorded).toEqual([]);
    expect(metrics.flushes).toEqual([]);
  });
});

describe('QuotaRejections', () => {
  function services(allowed: boolean, metrics = recordingMetrics()): Services {
    const meter: UsageMeter = {
      consume: async () => ({ allowed, used: 1000 }),
      used: async () => 1000,
      record: async () => {},
      history: async () => [],
      hourly: async () => [],
    };
    return { meter, clock: { now: () => new Date('2026-11-22T10:00:00Z') }, metrics } as unknown as Services;
  }

  it('counts a request refused for the daily quota where the route catches it, and nothing else', async () => {
    const metrics = recordingMetrics();
    const refused = await authenticatedRoute(
      'api',
      () => services(false, metrics),
      async () => jsonResult(200, {}),
    )(apiEvent());
    expect(refused.statusCode).toBe(429);
    expect(metrics.recorded).toEqual([{ name: 'QuotaRejections', unit: 'Count', value: 1, dimensions: {} }]);
    const admitted = await authenticatedRoute(
      'api',
      () => services(true, metrics),
      async () => jsonResult(200, {}),
    )(apiEvent());
    expect(admitted.statusCode).toBe(200);
    const failed = await authenticatedRoute(
      'api',
      () => services(true, metrics),
      async () => {
        throw new ServiceError(404, 'NOT_FOUND', 'no');
      },
    )(apiEvent());
    expect(failed.statusCode).toBe(404);
    expect(metrics.recorded).toHaveLength(1);
  });

  it('records nothing where the services have no metrics (the local server)', async () => {
    const { metrics: _none, ...withoutMetrics } = services(false);
    await expect(
      authenticatedRoute(
        'api',
        () => withoutMetrics as Services,
        async () => jsonResult(200, {}),
      )(apiEvent()),
    ).resolves.toMatchObject({ statusCode: 429 });
  });
});

describe('SearchLatency and EmbeddingLatency', () => {
  const ticking = () => {
    let t = 0;
    return () => (t += 5);
  };
  const index: SearchIndex = { query: async () => ({ total: 0, results: [] }), upsert: async () => {}, remove: async () => {} };

  it('times each search by mode; listings without a search term are not searches', async () => {
    const metrics = recordingMetrics();
    const measured = measuredSearchIndex(index, metrics, ticking());
    for (const mode of ['keyword', 'semantic', 'hybrid']) {
      await measured.query('grant', parseListQuery('grant', { search: ['police'], search_mode: [mode] }, '2026-11-22') as never);
    }
    await measured.query('grant', parseListQuery('grant', {}, '2026-11-22') as never);
    expect(metrics.recorded).toEqual(
      ['keyword', 'semantic', 'hybrid'].map((mode) => ({ name: 'SearchLatency', unit: 'Milliseconds', value: 5, dimensions: { searchMode: mode } })),
    );
  });

  it('times a search that fails too', async () => {
    const metrics = recordingMetrics();
    const failing = measuredSearchIndex(
      {
        ...index,
        query: async () => {
          throw new Error('down');
        },
      },
      metrics,
      ticking(),
    );
    await expect(failing.query('grant', parseListQuery('grant', { search: ['police'] }, '2026-11-22') as never)).rejects.toThrow('down');
    expect(metrics.recorded).toHaveLength(1);
  });

  it('times each call to the embedding model', async () => {
    const metrics = recordingMetrics();
    const embedder = measuredEmbedder(countingEmbedder(), metrics, ticking());
    await embedder.embed(['police equipment']);
    await embedder.embed(['a', 'b', 'c']);
    expect(metrics.recorded).toEqual([
      { name: 'EmbeddingLatency', unit: 'Milliseconds', value: 5, dimensions: {} },
      { name: 'EmbeddingLatency', unit: 'Milliseconds', value: 5, dimensions: {} },
    ]);
    expect(embedder.space).toEqual(countingEmbedder().space);
  });

  it('counts each failed call to the embedding model, and times it', async () => {
    const metrics = recordingMetrics();
    const failing = measuredEmbedder(
      {
        space: countingEmbedder().space,
        embed: async () => {
          throw new Error('throttled');
        },
      },
      metrics,
      ticking(),
    );
    await expect(failing.embed(['police equipment'])).rejects.toThrow('throttled');
    expect(metrics.recorded).toEqual([
      { name: 'EmbeddingFailures', unit: 'Count', value: 1, dimensions: {} },
      { name: 'EmbeddingLatency', unit: 'Milliseconds', value: 5, dimensions: {} },
    ]);
  });
});

describe('IndexerLagSeconds', () => {
  it('is the largest age in the batch: now minus the oldest ApproximateCreationDateTime', async () => {
    const metrics = recordingMetrics();
    const ports = {
      index: { query: async () => ({ total: 0, results: [] }), upsert: async () => {}, remove: async () => {} },
      outbox: { append: async () => {}, scan: async function* () {} },
      clock: { now: () => new Date('2026-11-22T10:00:00Z') },
      embeddings: { embedder: countingEmbedder(), cache: memoryEmbeddingCache() },
    };
    const now = Date.parse('2026-11-22T10:00:00Z') / 1000;
    // Items that are not records (e.g. outbox events) are skipped by the indexer but still count for lag.
    const records = [now - 3, now - 42, now - 1].map(
      (created, i): DynamoDBRecord => ({
        eventName: 'INSERT',
        dynamodb: { Keys: { pk: { S: `event#${i}` }, sk: { S: 'event' } }, ApproximateCreationDateTime: created, SequenceNumber: String(i) },
      }),
    );
    await streamIndexerHandler(() => ports, metrics)({ Records: records }, lambdaContext(), () => {});
    expect(metrics.recorded).toEqual([{ name: 'IndexerLagSeconds', unit: 'Seconds', value: 42, dimensions: {} }]);
  });
});

describe('webhook metrics', () => {
  const SUBSCRIPTION = {
    subscription_id: 'whk_1',
    key_id: 'key_1',
    url: 'https://hooks.example.com/gcf',
    events: ['grant.created'],
    days_before: 7,
    state: 'active',
    disabled_reason: null,
    secret: 'whsec_secret',
    previous_secret: null,
    previous_secret_valid_until: null,
    created_at: '2026-11-01T00:00:00.000Z',
    updated_at: '2026-11-01T00:00:00.000Z',
  } as WebhookSubscription;

  function sender(statuses: number[], schedule: number[] = []) {
    const deliveries = new Map<string, Delivery>();
    const log = inMemoryDeliveryLog(deliveries);
    const ports: DeliveryPorts = {
      log,
      webhooks: { get: async () => SUBSCRIPTION, update: async () => SUBSCRIPTION } as unknown as WebhookStore,
      queue: { maxDelaySeconds: 900, send: async () => {}, deadLetter: async () => {} },
      transport: { send: async () => ({ status: statuses.shift() ?? 500, retryAfter: null, responseExcerpt: '', latencyMs: 3, error: null }) },
      resolver: { resolve: async () => ['93.184.216.34'] },
      clock: { now: () => new Date('2026-11-22T10:00:00Z') },
      random: () => 0.5,
    };
    for (const id of ['dlv_1', 'dlv_2', 'dlv_3', 'dlv_4']) {
      deliveries.set(id, {
        delivery_id: id,
        subscription_id: 'whk_1',
        event_id: 'evt_1',
        event: 'grant.created',
        body: '{}',
        status: 'pending',
        attempts: 0,
        last_status_code: null,
        last_error: null,
        last_latency_ms: null,
        last_response: null,
        next_attempt_at: null,
        created_at: '2026-11-22T09:00:00.000Z',
        updated_at: '2026-11-22T09:00:00.000Z',
        delivered_at: null,
      });
    }
    const metrics = recordingMetrics();
    const handler = webhookSenderHandler(() => ports, { mode: 'aws', schedule }, metrics);
    const send = (ids: string[]) =>
      handler(
        {
          Records: ids.map((id, i) => ({ messageId: `m-${i}`, body: JSON.stringify({ delivery_id: id }), attributes: { ApproximateReceiveCount: '1' } })),
        } as unknown as SQSEvent,
        lambdaContext(),
        () => {},
      );
    return { send, metrics, deliveries };
  }

  it('counts each attempt by outcome: delivered, failed (last attempt, or 410 Gone); a redelivered message counts nothing', async () => {
    const { send, metrics } = sender([204, 500, 410]);
    await send(['dlv_1']);
    await send(['dlv_2']);
    await send(['dlv_3']);
    await send(['dlv_1']);
    expect(metrics.recorded.map((m) => m.name)).toEqual(['WebhookDelivered', 'WebhookFailed', 'WebhookFailed']);
  });

  it('counts a failed attempt with retries left as WebhookRetried, then its outcome', async () => {
    const { send, metrics, deliveries } = sender([503, 204], [0]);
    await send(['dlv_1']);
    expect(deliveries.get('dlv_1')).toMatchObject({ status: 'retrying' });
    await send(['dlv_1']);
    expect(metrics.recorded.map((m) => m.name)).toEqual(['WebhookRetried', 'WebhookDelivered']);
    expect(metrics.recorded.every((m) => m.unit === 'Count' && m.value === 1)).toBe(true);
  });
});

describe('the authorizer logs', () => {
  it('name the key by its id prefix, never the key', async () => {
    const byId = new Map<string, ApiKeyRecord>();
    const keys = {
      create: async (key: ApiKeyRecord) => {
        byId.set(key.key_id, { ...key });
      },
      findByHash: async (hash: string) => [...byId.values()].find((k) => k.current_hash === hash) ?? null,
      get: async (id: string) => byId.get(id) ?? null,
    } as unknown as KeyStore;
    const clock = { now: () => new Date('2026-11-22T10:00:00Z') };
    const { key, record } = await createKey(keys, { tier: 'pro', owner: 'acme', label: '' }, randomBytes, clock.now());
    const { telemetry: t } = telemetry();
    const authorize = lambdaHandler(
      'authorizer',
      t,
      requestAuthorizerHandler(() => ({ keys, clock })),
    );
    const event = (authorization: string) =>
      ({
        type: 'REQUEST',
        methodArn: 'arn:aws:execute-api:eu-west-1:1:abc/functions/GET/v1/grants-api',
        headers: { authorization },
        multiValueHeaders: { authorization: [authorization] },
      }) as unknown as APIGatewayRequestAuthorizerEvent;
    const lines = await stdoutLines(async () => {
      await authorize(event(`Bearer ${key}`), lambdaContext());
      // Another last character (a random key may end in x itself): a key that is not valid.
      await authorize(event(`Bearer ${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`), lambdaContext()).catch(() => undefined);
    });
    expect(lines.find((line) => line.message === 'authorized')).toMatchObject({ keyIdPrefix: record.key_id.slice(0, 8), tier: 'pro' });
    expect(lines.some((line) => line.message === 'refused a request')).toBe(true);
    const written = JSON.stringify(lines);
    expect(written).not.toContain(key);
    expect(written).not.toContain(key.slice(0, -1));
    expect(written).not.toContain(record.key_id);
  });
});

describe('EmfMetrics (Powertools Metrics)', () => {
  it('writes one EMF line per set of dimensions at flush, in the service namespace, with `service` on each', async () => {
    const emf = new EmfMetrics(new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'gcf-test' }));
    emf.record(METRIC_NAMES.requests, 'Count', 1, { route: ROUTE });
    emf.record(METRIC_NAMES.latency, 'Milliseconds', 12.5, { route: ROUTE });
    emf.record(METRIC_NAMES.searchLatency, 'Milliseconds', 7, { searchMode: 'hybrid' });
    emf.record(METRIC_NAMES.searchLatency, 'Milliseconds', 9, { searchMode: 'hybrid' });
    emf.record(METRIC_NAMES.quotaRejections, 'Count', 1);
    const before = await stdoutLines(async () => {});
    expect(before).toEqual([]);
    const lines = await stdoutLines(async () => emf.flush());
    expect(lines).toHaveLength(3);
    const [route, search, plain] = lines as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
    expect(route).toMatchObject({
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: 'GcfDataService',
            Dimensions: [['service', 'route']],
            Metrics: [
              { Name: 'Requests', Unit: 'Count' },
              { Name: 'Latency', Unit: 'Milliseconds' },
            ],
          },
        ],
      },
      service: 'gcf-test',
      route: ROUTE,
      Requests: 1,
      Latency: 12.5,
    });
    expect(search).toMatchObject({ _aws: { CloudWatchMetrics: [{ Dimensions: [['service', 'mode']] }] }, mode: 'hybrid', SearchLatency: [7, 9] });
    expect(plain).toMatchObject({
      _aws: { CloudWatchMetrics: [{ Dimensions: [['service']], Metrics: [{ Name: 'QuotaRejections', Unit: 'Count' }] }] },
      QuotaRejections: 1,
    });
    expect(plain).not.toHaveProperty('route');
    expect(await stdoutLines(async () => emf.flush())).toEqual([]);
  });

  it('writes nothing, and has Powertools warn of nothing, when nothing was recorded', async () => {
    const warn = vi.spyOn(console, 'warn');
    const emf = new EmfMetrics(new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'gcf-test', logger: new Logger({ serviceName: 'warn-check' }) }));
    const lines = await stdoutLines(async () => emf.flush());
    expect(lines).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });
});

describe('one handler style', () => {
  it("every Lambda entry exports a handler made by lambdaHandler, each route's by apiHandler with its method and path as the route", () => {
    const routes = new Map(API_ROUTES.map((route) => [route.entry, `${route.method} ${route.path}`]));
    const accountEntries = new Set(ACCOUNT_ROUTES.map((route) => route.entry));
    const entries = readdirSync(`${PROJECT_ROOT}/lambdas/handlers`).filter((file) => file.endsWith('.ts'));
    expect(entries.length).toBeGreaterThanOrEqual(15);
    for (const file of entries) {
      const entry = `lambdas/handlers/${file}`;
      // One line whatever the formatter's wrapping: `lambdaHandler(\n  'name',` reads `lambdaHandler('name',`.
      const source = readFileSync(`${PROJECT_ROOT}/${entry}`, 'utf8').replace(/\s+/g, ' ').replace(/\( /g, '(');
      const route = routes.get(entry);
      if (route) expect(source, entry).toContain(`export const handler = apiHandler('${route}', awsTelemetry,`);
      // The account API's one function serves several gateway routes, each measured under its own name.
      else if (accountEntries.has(entry)) {
        expect(source, entry).toContain('const name = accountRouteName(event);');
        expect(source, entry).toContain('apiHandler(name, awsTelemetry,');
      } else expect(source, entry).toMatch(/export const handler = lambdaHandler\('[a-z-]+', awsTelemetry,/);
    }
  });
});
