import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogLine } from '../../local/http-server';
import { serveOverHttp, startTestApi, type TestApi } from '../support/api-server';
import { conformingFetch } from '../support/openapi-conformance';

/**
 * Request ids over real HTTP on the local server: every response carries X-Request-Id, every
 * error body carries the same id as error.request_id, and each request gets its own.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({ seed: { funders: 5, grants: 20, contracts: 5, awardedGrants: 2, awardedContracts: 1 } });
});
afterAll(async () => api?.close());

async function call(path: string, key: string | null = api.keys.developer, init: RequestInit = {}) {
  const response = await conformingFetch(`${api.baseUrl}${path}`, {
    ...init,
    headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...(init.headers ?? {}) },
  });
  const text = await response.text();
  return { status: response.status, requestId: response.headers.get('x-request-id'), body: text ? (JSON.parse(text) as Record<string, any>) : null };
}

describe('request ids', () => {
  it('are on every response, success or error, and in every error body', async () => {
    const answers = await Promise.all([
      call('/grants-api?limit=2'),
      call('/grants-api?limit=0'),
      call('/grants-api/not-a-uuid'),
      call('/grants-api', null),
      call('/no-such-route'),
      call('/semantic-search', api.keys.developer, { method: 'POST', body: '{"query":', headers: { 'Content-Type': 'application/json' } }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 400, 400, 401, 404, 400]);
    for (const answer of answers) {
      expect(answer.requestId, String(answer.status)).toMatch(UUID);
      if (answer.status >= 400) expect(answer.body?.error?.request_id, String(answer.status)).toBe(answer.requestId);
    }
    expect(answers[0]!.body?.error).toBeUndefined();
    expect(new Set(answers.map((a) => a.requestId)).size).toBe(answers.length);
  });
});

describe('the local request log', () => {
  it('has one line a response, with its request id, route, status and latency, and no query string, header or key', async () => {
    const lines: RequestLogLine[] = [];
    const served = await serveOverHttp(api.stack.services, api.stack.services, { logRequest: (line) => lines.push(line) });
    try {
      const answers = [];
      for (const [path, key] of [
        ['/grants-api?search=clinic+for+jane+doe&limit=1', api.keys.developer],
        ['/grants-api?limit=0', api.keys.developer],
        ['/funders-api', null],
      ] as const) {
        const res = await fetch(`${served.baseUrl}${path}`, { headers: key ? { Authorization: `Bearer ${key}` } : {} });
        await res.text();
        answers.push({ status: res.status, id: res.headers.get('x-request-id') });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(lines.map((l) => [l.requestId, l.method, l.path, l.status])).toEqual([
        [answers[0]!.id, 'GET', '/functions/v1/grants-api', 200],
        [answers[1]!.id, 'GET', '/functions/v1/grants-api', 400],
        [answers[2]!.id, 'GET', '/functions/v1/funders-api', 401],
      ]);
      expect(lines.every((l) => l.latencyMs >= 0)).toBe(true);
      expect(JSON.stringify(lines)).not.toMatch(/jane|gcf_live_|Bearer/);
    } finally {
      await served.close();
    }
  });
});
