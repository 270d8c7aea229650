import { createHash, createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenSearchHttpClient, OpenSearchResponseError } from '../../lambdas/adapters/aws/opensearch-client';
import { type StandInOpenSearch, type StandInRequest, startStandInOpenSearch } from '../support/stand-in-opensearch';

/**
 * The thin OpenSearch client of the Lambdas against the stand-in domain on loopback: each method's
 * request and answer, the error shapes the adapter inspects (as @opensearch-project/opensearch
 * gives them), retries, and SigV4 signatures checked by an independent computation.
 */

let openSearch: StandInOpenSearch;
beforeAll(async () => {
  openSearch = await startStandInOpenSearch();
});
afterAll(() => openSearch.close());
beforeEach(() => openSearch.reset());

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session-token-of-the-role' };
const unsigned = (options: { maxRetries?: number; requestTimeoutMs?: number } = {}) => new OpenSearchHttpClient({ node: openSearch.endpoint, ...options });
const calls = () => openSearch.requests.map((r) => `${r.method} ${r.path}`);
const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** SigV4 recomputed from the request as the domain received it (AWS's documented algorithm, nothing shared with the client). */
function expectedSignature(request: StandInRequest, secret: string): { signature: string; credentialScope: string; signedHeaders: string } {
  const authorization = request.authorization ?? '';
  const match = /^AWS4-HMAC-SHA256 Credential=[^/]+\/(\d{8})\/([^/]+)\/es\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!match) throw new Error(`not a SigV4 Authorization header: ${authorization}`);
  const [, day, region, signedHeaders] = match as unknown as [string, string, string, string];
  const amzDate = String(request.headers['x-amz-date']);
  const canonicalHeaders = signedHeaders
    .split(';')
    .map((name) => `${name}:${String(request.headers[name]).trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const canonicalUri = request.path
    .split('/')
    .map((part) => encodeURIComponent(part))
    .join('/');
  const canonicalRequest = [request.method, canonicalUri, '', canonicalHeaders, signedHeaders, sha256(request.body)].join('\n');
  const credentialScope = `${day}/${region}/es/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, credentialScope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), 'es'), 'aws4_request');
  return { signature: hmac(key, stringToSign).toString('hex'), credentialScope, signedHeaders };
}

describe('OpenSearchHttpClient requests', () => {
  it('indices.create: PUT /<index> with the JSON body; the answer parsed on `body`', async () => {
    const created = await unsigned().indices.create({
      index: 'gcf-grants-v1',
      body: { mappings: { properties: { title: { type: 'text' } } }, aliases: { 'gcf-grants': {} } },
    });
    expect(created).toMatchObject({ statusCode: 200, body: { acknowledged: true, index: 'gcf-grants-v1' } });
    const [request] = openSearch.requests;
    expect(request).toMatchObject({ method: 'PUT', path: '/gcf-grants-v1' });
    expect(request!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request!.body)).toEqual({ mappings: { properties: { title: { type: 'text' } } }, aliases: { 'gcf-grants': {} } });
    expect(openSearch.aliases.get('gcf-grants')).toEqual(new Set(['gcf-grants-v1']));
  });

  it('indices.getMapping, getAlias, refresh, updateAliases and delete', async () => {
    const client = unsigned();
    openSearch.createIndex('gcf-grants-v1', { mappings: { _meta: { vector_space: 'x' } }, aliases: { 'gcf-grants': {} } });
    openSearch.createIndex('gcf-grants-v2');
    await expect(client.indices.getMapping({ index: 'gcf-grants' })).resolves.toMatchObject({
      body: { 'gcf-grants-v1': { mappings: { _meta: { vector_space: 'x' } } } },
    });
    await expect(client.indices.getAlias({ name: 'gcf-grants' })).resolves.toMatchObject({ body: { 'gcf-grants-v1': { aliases: { 'gcf-grants': {} } } } });
    await expect(client.indices.refresh({ index: 'gcf-grants-v2' })).resolves.toMatchObject({ body: { _shards: { failed: 0 } } });
    const actions: Record<string, { index: string; alias: string }>[] = [
      { remove: { index: 'gcf-grants-v1', alias: 'gcf-grants' } },
      { add: { index: 'gcf-grants-v2', alias: 'gcf-grants' } },
    ];
    await expect(client.indices.updateAliases({ body: { actions } })).resolves.toMatchObject({ body: { acknowledged: true } });
    expect(openSearch.aliases.get('gcf-grants')).toEqual(new Set(['gcf-grants-v2']));
    await expect(client.indices.delete({ index: 'gcf-grants-v1' })).resolves.toMatchObject({ body: { acknowledged: true } });
    expect(openSearch.indices.has('gcf-grants-v1')).toBe(false);
    expect(calls()).toEqual(['GET /gcf-grants/_mapping', 'GET /_alias/gcf-grants', 'GET /gcf-grants-v2/_refresh', 'POST /_aliases', 'DELETE /gcf-grants-v1']);
    expect(JSON.parse(openSearch.requests[3]!.body)).toEqual({ actions });
    for (const request of openSearch.requests.filter((r) => r.method === 'GET' || r.method === 'DELETE')) expect(request.body).toBe('');
  });

  it('bulk: POST /_bulk as NDJSON, a line per action and document, each ending in a newline', async () => {
    openSearch.createIndex('gcf-funders-v1', { aliases: { 'gcf-funders': {} } });
    openSearch.bulkStatus.set('f-2', { status: 400, error: { type: 'mapper_parsing_exception', reason: 'bad' } });
    const body = [
      { index: { _index: 'gcf-funders', _id: 'f-1' } },
      { id: 'f-1', name: 'NSF' },
      { index: { _index: 'gcf-funders', _id: 'f-2' } },
      { id: 'f-2' },
      { delete: { _index: 'gcf-funders', _id: 'f-3' } },
    ];
    const { body: answer } = await unsigned().bulk({ body });
    expect(answer).toEqual({
      took: 1,
      errors: true,
      items: [
        { index: { _id: 'f-1', status: 201 } },
        { index: { _id: 'f-2', status: 400, error: { type: 'mapper_parsing_exception', reason: 'bad' } } },
        { delete: { _id: 'f-3', status: 200 } },
      ],
    });
    const [request] = openSearch.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/_bulk' });
    expect(request!.headers['content-type']).toBe('application/x-ndjson');
    expect(request!.body).toBe(`${body.map((line) => JSON.stringify(line)).join('\n')}\n`);
    expect(openSearch.documents.get('gcf-funders/f-1')).toEqual({ id: 'f-1', name: 'NSF' });
  });

  it('search: POST /<alias>/_search with the query; msearch: POST /<alias>/_msearch as NDJSON', async () => {
    const answers: Record<string, unknown> = {
      '/gcf-grants/_search': { hits: { total: { value: 1 }, hits: [{ _id: 'g-1', _score: 2 }] } },
      '/gcf-grants/_msearch': { responses: [{ hits: { hits: [{ _id: 'g-1' }] } }, { status: 400, error: { type: 'x', reason: 'y' } }] },
    };
    openSearch.respond = (request) => ({ json: answers[request.path] });
    const client = unsigned();
    const query = { query: { match_all: {} }, size: 3 };
    await expect(client.search({ index: 'gcf-grants', body: query })).resolves.toMatchObject({ body: answers['/gcf-grants/_search'] });
    await expect(client.msearch({ index: 'gcf-grants', body: [{}, query, {}, { query: { term: { id: 'g-1' } } }] })).resolves.toMatchObject({
      body: answers['/gcf-grants/_msearch'],
    });
    const [search, msearch] = openSearch.requests;
    expect(search).toMatchObject({ method: 'POST', path: '/gcf-grants/_search' });
    expect(JSON.parse(search!.body)).toEqual(query);
    expect(msearch).toMatchObject({ method: 'POST', path: '/gcf-grants/_msearch' });
    expect(msearch!.headers['content-type']).toBe('application/x-ndjson');
    expect(msearch!.body).toBe('{}\n{"query":{"match_all":{}},"size":3}\n{}\n{"query":{"term":{"id":"g-1"}}}\n');
  });

  it('encodes each path segment', async () => {
    await unsigned()
      .indices.getMapping({ index: 'a b/c' })
      .catch(() => undefined);
    expect(calls()).toEqual(['GET /a%20b%2Fc/_mapping']);
  });
});

describe('OpenSearchHttpClient errors', () => {
  it('a 4xx is a ResponseError with the status and the parsed body, as @opensearch-project/opensearch gives it', async () => {
    const missing = await unsigned()
      .indices.getMapping({ index: 'gcf-grants' })
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(OpenSearchResponseError);
    expect(missing).toMatchObject({
      name: 'ResponseError',
      statusCode: 404,
      meta: { statusCode: 404, body: { error: { type: 'index_not_found_exception', reason: 'no such index [gcf-grants]' }, status: 404 } },
    });
    expect((missing as Error).message).toBe('OpenSearch GET /gcf-grants/_mapping answered 404 index_not_found_exception: no such index [gcf-grants]');
    openSearch.createIndex('gcf-grants-v1');
    const exists = await unsigned()
      .indices.create({ index: 'gcf-grants-v1', body: {} })
      .catch((error: unknown) => error);
    expect(exists).toMatchObject({ statusCode: 400, meta: { body: { error: { type: 'resource_already_exists_exception' } } } });
    expect((exists as Error).message).toMatch(/resource_already_exists_exception/);
    expect(openSearch.requests).toHaveLength(2);
  });

  it('a 5xx other than 502/503/504 is thrown at once; 502/503/504 are tried again, then thrown', async () => {
    openSearch.respond = () => ({ status: 500, json: { error: { type: 'exception', reason: 'boom' }, status: 500 } });
    await expect(unsigned().search({ index: 'gcf-grants', body: {} })).rejects.toMatchObject({
      name: 'ResponseError',
      statusCode: 500,
      meta: { body: { error: { reason: 'boom' } } },
    });
    expect(openSearch.requests).toHaveLength(1);

    openSearch.reset();
    openSearch.respond = () => ({ status: 503, json: { error: { type: 'cluster_block_exception', reason: 'busy' }, status: 503 } });
    await expect(unsigned({ maxRetries: 2 }).search({ index: 'gcf-grants', body: {} })).rejects.toMatchObject({ name: 'ResponseError', statusCode: 503 });
    expect(openSearch.requests).toHaveLength(3);

    openSearch.reset();
    let failures = 1;
    openSearch.respond = () => (failures-- > 0 ? { status: 502, json: { message: 'bad gateway' } } : { json: { hits: { hits: [] } } });
    await expect(unsigned().search({ index: 'gcf-grants', body: {} })).resolves.toMatchObject({ body: { hits: { hits: [] } } });
    expect(openSearch.requests).toHaveLength(2);
  });

  it('a 429 (queue full) is tried again; every retry waits a jittered delay under a ceiling that doubles', async () => {
    let failures = 3;
    openSearch.respond = () =>
      failures-- > 0
        ? { status: 429, json: { error: { type: 'es_rejected_execution_exception', reason: 'queue full' }, status: 429 } }
        : { json: { hits: { hits: [] } } };
    const waits: number[] = [];
    const client = new OpenSearchHttpClient({
      node: openSearch.endpoint,
      maxRetries: 3,
      backoff: { baseMs: 100, maxMs: 300 },
      random: () => 0.5,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    await expect(client.search({ index: 'gcf-grants', body: {} })).resolves.toMatchObject({ body: { hits: { hits: [] } } });
    expect(openSearch.requests).toHaveLength(4);
    // Half of each ceiling: 100, 200, then 400 capped at 300.
    expect(waits).toEqual([50, 100, 150]);

    openSearch.reset();
    openSearch.respond = () => ({ status: 429, json: { error: { type: 'es_rejected_execution_exception' }, status: 429 } });
    const spread: number[] = [];
    const randoms = [0, 0.999];
    const giving = new OpenSearchHttpClient({
      node: openSearch.endpoint,
      maxRetries: 2,
      random: () => randoms.shift()!,
      sleep: async (ms) => {
        spread.push(ms);
      },
    });
    await expect(giving.search({ index: 'gcf-grants', body: {} })).rejects.toMatchObject({ name: 'ResponseError', statusCode: 429 });
    // The default ceiling: 50 ms, then 100 ms; full jitter spans all of it.
    expect(spread[0]).toBe(0);
    expect(spread[1]).toBeCloseTo(99.9, 5);
  });

  it('an unreachable domain is a ConnectionError, tried maxRetries more times', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const failure = await new OpenSearchHttpClient({ node: `http://127.0.0.1:${port}`, maxRetries: 1 })
      .search({ index: 'gcf-grants', body: {} })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'ConnectionError', message: 'OpenSearch POST /gcf-grants/_search: ECONNREFUSED' });
  });

  it('a domain that does not answer in time is a TimeoutError, not tried again', async () => {
    let received = 0;
    const silent: Server = createServer(() => {
      received++;
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const node = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const failure = await new OpenSearchHttpClient({ node, requestTimeoutMs: 200 })
        .search({ index: 'gcf-grants', body: {} })
        .catch((error: unknown) => error);
      expect(failure).toMatchObject({ name: 'TimeoutError', message: 'OpenSearch POST /gcf-grants/_search: no answer within 200 ms' });
      expect(received).toBe(1);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('refuses a node that is not an http(s) URL', () => {
    expect(() => new OpenSearchHttpClient({ node: 'ftp://domain' })).toThrow('http(s) URL');
  });
});

describe('OpenSearchHttpClient SigV4 signing', () => {
  it('signs every request for the es service with the credentials it is given, the session token included', async () => {
    let asked = 0;
    const client = new OpenSearchHttpClient({
      node: openSearch.endpoint,
      signing: {
        region: 'eu-west-1',
        credentials: async () => {
          asked++;
          return CREDENTIALS;
        },
      },
    });
    openSearch.respond = (request) => (request.path.endsWith('/_search') ? { json: { hits: { hits: [] } } } : undefined);
    openSearch.createIndex('gcf-grants-v1', { aliases: { 'gcf-grants': {} } });
    await client.search({ index: 'gcf-grants', body: { query: { match: { title: 'police équipement' } } } });
    await client.bulk({ body: [{ index: { _index: 'gcf-grants', _id: 'g-1' } }, { title: 'ünïcode' }] });
    await client.indices.getMapping({ index: 'gcf-grants' });
    await client.indices.delete({ index: 'gcf-grants-v1' });
    expect(asked).toBeGreaterThanOrEqual(1);
    expect(openSearch.requests).toHaveLength(4);
    for (const request of openSearch.requests) {
      expect(request.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/es\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
      );
      expect(request.headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
      expect(String(request.headers['x-amz-date'])).toMatch(/^\d{8}T\d{6}Z$/);
      const { signature, signedHeaders } = expectedSignature(request, CREDENTIALS.secretAccessKey);
      expect(signedHeaders.split(';')).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'x-amz-security-token']));
      expect(request.authorization!.endsWith(`Signature=${signature}`), `${request.method} ${request.path}`).toBe(true);
    }
  });

  it('a signature made with another secret does not verify (the check above is not vacuous)', async () => {
    const client = new OpenSearchHttpClient({ node: openSearch.endpoint, signing: { region: 'eu-west-1', credentials: CREDENTIALS } });
    await client.indices.getMapping({ index: 'gcf-grants' }).catch(() => undefined);
    const [request] = openSearch.requests;
    expect(request!.authorization!.endsWith(`Signature=${expectedSignature(request!, CREDENTIALS.secretAccessKey).signature}`)).toBe(true);
    expect(request!.authorization!.endsWith(`Signature=${expectedSignature(request!, 'another-secret').signature}`)).toBe(false);
    expect(expectedSignature({ ...request!, body: 'tampered' }, CREDENTIALS.secretAccessKey).signature).not.toBe(
      expectedSignature(request!, CREDENTIALS.secretAccessKey).signature,
    );
  });

  it('sends no Authorization header without signing', async () => {
    await unsigned()
      .indices.getMapping({ index: 'gcf-grants' })
      .catch(() => undefined);
    expect(openSearch.requests[0]!.authorization).toBeUndefined();
  });
});
