import { describe, expect, it, vi } from 'vitest';
import { type ApiEvent, jsonResult, logger } from '../../lambdas/http/api-gateway';
import { authenticatedRoute } from '../../lambdas/http/authenticated-route';
import type { RequestLog, RequestLogEntry } from '../../lambdas/ports/request-log';
import type { Services } from '../../lambdas/ports/services';
import type { UsageMeter } from '../../lambdas/ports/usage-meter';

/** What authenticatedRoute writes beside the usage figures: the key's request log, never at the response's cost. */

const KEY_ID = 'key_0123456789abcdefghij';
const NOW = new Date('2026-11-29T06:15:00Z');

function apiEvent(): ApiEvent {
  return {
    resource: '/grants-api',
    path: '/functions/v1/grants-api',
    httpMethod: 'GET',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: { search: 'private words' },
    multiValueQueryStringParameters: { search: ['private words'] },
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'apigw-request-7', authorizer: { keyId: KEY_ID, tier: 'pro' } } as unknown as ApiEvent['requestContext'],
  };
}

function services(requestLog: RequestLog, record: UsageMeter['record'] = async () => {}): Services {
  const meter: UsageMeter = { consume: async () => ({ allowed: true, used: 1 }), used: async () => 1, record, history: async () => [], hourly: async () => [] };
  return { meter, requestLog, clock: { now: () => NOW } } as unknown as Services;
}

describe('the request log of authenticated routes', () => {
  it('logs each answer with its time, method, path without query, status, latency and request id', async () => {
    const appended: [string, RequestLogEntry][] = [];
    const recorded: unknown[] = [];
    const log: RequestLog = { append: async (keyId, entry) => void appended.push([keyId, entry]), recent: async () => ({ entries: [], nextCursor: null }) };
    const route = authenticatedRoute(
      'api',
      () => services(log, async (...args) => void recorded.push(args)),
      async () => jsonResult(201, {}),
    );
    expect((await route(apiEvent())).statusCode).toBe(201);
    expect(appended).toEqual([
      [
        KEY_ID,
        { at: NOW.toISOString(), method: 'GET', path: '/functions/v1/grants-api', status: 201, latencyMs: expect.any(Number), requestId: 'apigw-request-7' },
      ],
    ]);
    expect(recorded).toEqual([[KEY_ID, '2026-11-29', { status: 201, latencyMs: expect.any(Number), at: NOW }]]);
  });

  it('answers when the log write fails, with a warning that names no key, path or query', async () => {
    const log: RequestLog = {
      append: async () => {
        throw new Error('ProvisionedThroughputExceededException');
      },
      recent: async () => ({ entries: [], nextCursor: null }),
    };
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    try {
      const { statusCode } = await authenticatedRoute(
        'api',
        () => services(log),
        async () => jsonResult(200, {}),
      )(apiEvent());
      expect(statusCode).toBe(200);
      const warning = warn.mock.calls.find(([message]) => message === 'could not log the request');
      expect(warning?.[1]).toMatchObject({ keyIdPrefix: KEY_ID.slice(0, 8) });
      const text = JSON.stringify(warning, (_key, value) => (value instanceof Error ? value.message : value));
      expect(text).not.toContain(KEY_ID);
      expect(text).not.toContain('private words');
    } finally {
      warn.mockRestore();
    }
  });

  it('writes the log and the usage figures at once, not one after the other', async () => {
    let appendStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      appendStarted = resolve;
    });
    const log: RequestLog = { append: async () => appendStarted(), recent: async () => ({ entries: [], nextCursor: null }) };
    // The usage write finishes only once the log write has begun: in sequence, the route would never answer.
    const route = authenticatedRoute(
      'api',
      () => services(log, () => started),
      async () => jsonResult(200, {}),
    );
    const answered = await Promise.race([route(apiEvent()).then((r) => r.statusCode), new Promise((resolve) => setTimeout(() => resolve('stuck'), 2_000))]);
    expect(answered).toBe(200);
  });
});
