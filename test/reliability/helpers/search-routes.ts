import { expect } from 'vitest';
import type { AnyRecord, ResourceKind } from '../../../lambdas/core/records';
import { stageConfig } from '../../../lib/config';
import { conformingFetch } from '../../support/openapi-conformance';

/** The API functions' timeout (every stage's default): a 503 must be sent before it. */
export const FUNCTION_TIMEOUT_MS = stageConfig('prod').functions.timeout.toMilliseconds();

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
  ms: number;
}

export interface SearchRoutes {
  call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer>;
  /** Every route that reads the search index, all at once (callers keep coming during an outage), each answering `expected`. */
  expectSearchesAnswer(expected: 200 | 503, label: string): Promise<Map<string, Answer>>;
  /** Get-by-id reads the store, not the index: the fourth record of each kind comes back whole. */
  expectGetByIdWorks(records: Record<ResourceKind, AnyRecord[]>, label: string): Promise<void>;
}

/**
 * The API's search routes over real HTTP, and what a 503 from them must look like: the service's
 * error body with SEARCH_UNAVAILABLE, nothing of the domain's address in it, and sent in time for
 * the API function to send it (before its own timeout, after which API Gateway would answer a
 * bare 5xx). `domainEndpoint` is the address that must not leak.
 */
export function searchRoutes(baseUrl: string, apiKey: string, domainEndpoint: string): SearchRoutes {
  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
    const started = performance.now();
    const res = await conformingFetch(`${baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${apiKey}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // left as text
    }
    return { status: res.status, body: parsed, headers: res.headers, ms: performance.now() - started };
  }

  const searches: [string, () => Promise<Answer>][] = [
    ['plain list', () => call('GET', '/grants-api?limit=5')],
    ['count_only', () => call('GET', '/contracts-api?count_only=true')],
    ['funders list', () => call('GET', '/funders-api?limit=5')],
    ['keyword search', () => call('GET', '/grants-api?search=community%20health')],
    ['semantic search (list)', () => call('GET', '/grants-api?search=community%20health&search_mode=semantic')],
    ['hybrid search', () => call('GET', '/grants-api?search=community%20health&search_mode=hybrid')],
    ['POST /semantic-search', () => call('POST', '/semantic-search', { query: 'rural broadband', limit: 5 })],
    ['POST /match-grants-api', () => call('POST', '/match-grants-api', { profile: { mission: 'community health clinics', applicant_type: 'nonprofit' } })],
  ];

  async function expectSearchesAnswer(expected: 200 | 503, label: string): Promise<Map<string, Answer>> {
    const answers = await Promise.all(searches.map(async ([name, run]) => [name, await run()] as const));
    for (const [name, answer] of answers) {
      expect(answer.status, `${label}: ${name}: ${JSON.stringify(answer.body)}`).toBe(expected);
      expect(answer.headers.get('x-ratelimit-limit'), `${label}: ${name}`).toBe('-1');
      if (expected === 503) {
        expect(answer.body, `${label}: ${name}`).toEqual({
          error: {
            code: 'SEARCH_UNAVAILABLE',
            message: expect.stringMatching(/^The search service .*try again shortly$/),
            request_id: answer.headers.get('x-request-id'),
          },
        });
        // No endpoint, port or stack trace for the caller.
        expect(JSON.stringify(answer.body), `${label}: ${name}`).not.toMatch(new RegExp(`127\\.0\\.0\\.1|${new URL(domainEndpoint).port}|\\bat \\w+ \\(`));
        expect(answer.ms, `${label}: ${name} answered in ${Math.round(answer.ms)} ms`).toBeLessThan(FUNCTION_TIMEOUT_MS - 2_000);
      }
    }
    return new Map(answers);
  }

  async function expectGetByIdWorks(records: Record<ResourceKind, AnyRecord[]>, label: string): Promise<void> {
    for (const [kind, path] of [
      ['grant', 'grants-api'],
      ['contract', 'contracts-api'],
      ['funder', 'funders-api'],
    ] as const) {
      const record = records[kind][3]!;
      const answer = await call('GET', `/${path}/${record.id}`);
      expect(answer.status, `${label}: get ${kind}`).toBe(200);
      expect(answer.body, `${label}: get ${kind}`).toEqual(record);
    }
  }

  return { call, expectSearchesAnswer, expectGetByIdWorks };
}
