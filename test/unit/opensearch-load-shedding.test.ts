import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenSearchHttpClient } from '../../lambdas/adapters/aws/opensearch-client';
import { INDEX_ALIASES, OpenSearchIndex } from '../../lambdas/adapters/aws/opensearch-index';
import { RetryBudget, VectorLoadShedder, withRetryBudget } from '../../lambdas/adapters/aws/opensearch-load-shedding';
import { createIndexBody } from '../../lambdas/adapters/aws/opensearch-mappings';
import { type ListQuery, parseListQuery } from '../../lambdas/core/query/list-query';
import type { VectorSpace } from '../../lambdas/ports/embedder';
import type { SemanticQuery } from '../../lambdas/ports/search-index';
import { type StandInOpenSearch, startStandInOpenSearch } from '../support/stand-in-opensearch';

/**
 * The OpenSearch adapter protecting a busy domain, against a stand-in on loopback: one retry
 * budget per query over all its calls, and vector work shed for a while after the domain says it
 * is overloaded. test/reliability/search-domain-faults-on-engine.test.ts shows the same on a real
 * node, with lists answering while searches shed.
 */

const SPACE: VectorSpace = { embedder: 'shedding-test', dimensions: 4 };
const SEMANTIC: SemanticQuery = { vector: Float32Array.of(1, 0, 0, 0), scale: { floor: 0.5, shortFloor: 0.5, lexicalFloor: 0.5, profileFloor: 0.4, upper: 1 } };
const q = (params: Record<string, string>) =>
  parseListQuery('grant', Object.fromEntries(Object.entries(params).map(([k, v]) => [k, [v]])), '2026-11-22') as ListQuery & { kind: 'grant' };
const BUSY = { status: 429, json: { error: { type: 'es_rejected_execution_exception', reason: 'search queue is full' }, status: 429 } };

let openSearch: StandInOpenSearch;
beforeAll(async () => {
  openSearch = await startStandInOpenSearch();
});
afterAll(() => openSearch.close());
beforeEach(() => {
  openSearch.reset();
  openSearch.createIndex(`${INDEX_ALIASES.grant}-v1`, createIndexBody('grant', SPACE, INDEX_ALIASES.grant) as never);
});

const searches = () => openSearch.requests.filter((r) => /\/_m?search$/.test(r.path)).length;
/** A client that retries each call up to 5 times, without waiting between attempts. */
const patientClient = () => new OpenSearchHttpClient({ node: openSearch.endpoint, maxRetries: 5, sleep: async () => undefined });

describe('vector load shedding', () => {
  it('sheds for its window from the last overload, and not before one', () => {
    let now = 1_000;
    const shedder = new VectorLoadShedder(10_000, () => now);
    expect(shedder.remainingMs()).toBe(0);
    shedder.overloaded();
    now += 4_000;
    expect(shedder.remainingMs()).toBe(6_000);
    shedder.overloaded();
    expect(shedder.remainingMs()).toBe(10_000);
    now += 10_000;
    expect(shedder.remainingMs()).toBe(0);
  });

  it('after a 429, a semantic query is a 503 at once with Retry-After, and sends nothing to the domain; keyword searches still go to it', async () => {
    const index = new OpenSearchIndex(patientClient(), { space: SPACE, shedMs: 60_000 });
    openSearch.respond = (request) => (/_m?search$/.test(request.path) ? BUSY : undefined);
    await expect(index.query('grant', q({ search: 'police', search_mode: 'semantic' }), SEMANTIC)).rejects.toMatchObject({
      status: 503,
      code: 'SEARCH_UNAVAILABLE',
    });
    const before = searches();
    const shed = await index.query('grant', q({ search: 'police', search_mode: 'semantic' }), SEMANTIC).catch((error: unknown) => error);
    expect(shed).toMatchObject({
      status: 503,
      code: 'SEARCH_UNAVAILABLE',
      headers: { 'Retry-After': '60' },
      message:
        'The search service is overloaded, so semantic search is paused for 60 s; keyword search (search_mode=keyword) and lists still work: try again shortly',
    });
    expect(searches()).toBe(before);
    // Keyword search and lists are not shed: they reach the domain (which is still busy here).
    await expect(index.query('grant', q({ search: 'police' }))).rejects.toMatchObject({ status: 503 });
    expect(searches()).toBeGreaterThan(before);
  });

  it('a query that is not overloaded (a refusal, a missing index) sheds nothing', async () => {
    const index = new OpenSearchIndex(patientClient(), { space: SPACE, shedMs: 60_000 });
    openSearch.respond = (request) =>
      /_m?search$/.test(request.path) ? { status: 400, json: { error: { type: 'parsing_exception', reason: 'bad' }, status: 400 } } : undefined;
    await expect(index.query('grant', q({ search: 'police', search_mode: 'semantic' }), SEMANTIC)).rejects.toThrow(/refused/);
    const before = searches();
    await expect(index.query('grant', q({ search: 'police', search_mode: 'semantic' }), SEMANTIC)).rejects.toThrow(/refused/);
    expect(searches()).toBeGreaterThan(before);
  });
});

describe('the retry budget of a query', () => {
  it('takes at most its retries, then refuses', () => {
    const budget = new RetryBudget(2);
    expect([budget.take(), budget.take(), budget.take()]).toEqual([true, true, false]);
  });

  it("caps the retries of all of a query's calls together: a domain answering 429 on every call sees the first attempt and two retries", async () => {
    openSearch.respond = (request) => (/_m?search$/.test(request.path) ? BUSY : undefined);
    await expect(new OpenSearchIndex(patientClient(), { space: SPACE }).query('grant', q({ search: 'police' }))).rejects.toMatchObject({ status: 503 });
    expect(searches()).toBe(3);
    openSearch.reset();
    openSearch.createIndex(`${INDEX_ALIASES.grant}-v1`, createIndexBody('grant', SPACE, INDEX_ALIASES.grant) as never);
    openSearch.respond = (request) => (/_m?search$/.test(request.path) ? BUSY : undefined);
    await expect(new OpenSearchIndex(patientClient(), { space: SPACE, retriesPerQuery: 0 }).query('grant', q({ search: 'police' }))).rejects.toMatchObject({
      status: 503,
    });
    expect(searches()).toBe(1);
  });

  it('outside a query (the indexer, the admin CLI), a call keeps its own retries', async () => {
    openSearch.respond = (request) => (/_search$/.test(request.path) ? BUSY : undefined);
    const client = patientClient();
    await expect(client.search({ index: 'gcf-grants', body: {} })).rejects.toMatchObject({ statusCode: 429 });
    expect(searches()).toBe(6);
    openSearch.requests.length = 0;
    await expect(withRetryBudget(1, () => client.search({ index: 'gcf-grants', body: {} }))).rejects.toMatchObject({ statusCode: 429 });
    expect(searches()).toBe(2);
  });
});
