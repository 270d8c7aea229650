import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { INDEX_ALIASES, INDEX_MAPPINGS, OpenSearchIndex } from '../../lambdas/adapters/aws/opensearch-index';
import { ServiceError } from '../../lambdas/core/errors';
import { RECORD_SCHEMAS, RESOURCE_KINDS, type Funder } from '../../lambdas/core/records';

/**
 * The OpenSearch adapter's writes against a stand-in domain on loopback: a real HTTP exchange,
 * with the stand-in recording what it was sent and answering as OpenSearch does.
 */

interface Received { method: string; path: string; body: string }

let server: Server;
let received: Received[] = [];
let existingIndices = new Set<string>();
/** Bulk item statuses to answer with, by document id (default 201 / 200). */
let bulkStatus = new Map<string, { status: number; error?: { type: string; reason: string } }>();

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    request.on('data', (chunk) => { body += chunk; });
    request.on('end', () => resolve(body));
  });
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const body = await readBody(request);
    const path = new URL(request.url!, 'http://x').pathname;
    received.push({ method: request.method!, path, body });
    const reply = (status: number, json?: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(json === undefined ? '' : JSON.stringify(json));
    };
    if (request.method === 'HEAD') return reply(existingIndices.has(path.slice(1)) ? 200 : 404);
    if (request.method === 'PUT') {
      existingIndices.add(path.slice(1));
      return reply(200, { acknowledged: true, index: path.slice(1) });
    }
    if (path === '/_bulk') {
      const lines = body.trim().split('\n').map((line) => JSON.parse(line));
      const items: unknown[] = [];
      let errors = false;
      for (let i = 0; i < lines.length; i++) {
        const [action, meta] = Object.entries(lines[i])[0] as [string, { _id: string }];
        if (action === 'index') i++;
        const outcome = bulkStatus.get(meta._id) ?? { status: action === 'index' ? 201 : 200 };
        if (outcome.status >= 300) errors = true;
        items.push({ [action]: { _id: meta._id, ...outcome } });
      }
      return reply(200, { took: 1, errors, items });
    }
    reply(400, { error: 'unexpected request' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  received = [];
  existingIndices = new Set();
  bulkStatus = new Map();
});

function adapter(): OpenSearchIndex {
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return new OpenSearchIndex(new Client({ node: endpoint }), endpoint);
}

const funder = (id: string, name: string): Funder => ({
  id, name, website: null, summary: 'Supports research.', created_at: '2024-01-01T00:00:00Z', source: 'sam.gov', source_id: id,
});

describe('OpenSearch index mappings', () => {
  it('map every public field of every kind, so no field is silently left unindexed', () => {
    for (const kind of RESOURCE_KINDS) {
      expect(Object.keys(INDEX_MAPPINGS[kind]).sort(), kind).toEqual(Object.keys(RECORD_SCHEMAS[kind].shape).sort());
    }
  });
});

describe('OpenSearchIndex writes', () => {
  it('creates the versioned index behind its alias on first write, with the mapping, then bulk-indexes full records by id', async () => {
    const index = adapter();
    await index.upsert('funder', [funder('f-1', 'National Science Foundation'), funder('f-2', 'Forest Service')]);
    expect(received.map((r) => `${r.method} ${r.path}`)).toEqual(['HEAD /gcf-funders', 'PUT /gcf-funders-v1', 'POST /_bulk']);
    const created = JSON.parse(received[1]!.body);
    expect(created.aliases).toEqual({ 'gcf-funders': {} });
    expect(created.mappings).toEqual({ dynamic: false, properties: INDEX_MAPPINGS.funder });
    expect(created.settings.index).toMatchObject({ knn: true, auto_expand_replicas: '0-1' });
    expect(received[2]!.body.trim().split('\n').map((line) => JSON.parse(line))).toEqual([
      { index: { _index: 'gcf-funders', _id: 'f-1' } }, funder('f-1', 'National Science Foundation'),
      { index: { _index: 'gcf-funders', _id: 'f-2' } }, funder('f-2', 'Forest Service'),
    ]);

    received = [];
    await index.upsert('funder', [funder('f-3', 'Indian Health Service')]);
    expect(received.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /_bulk']);
  });

  it('does not recreate an index that exists', async () => {
    existingIndices.add(INDEX_ALIASES.grant);
    await adapter().remove('grant', ['g-1']);
    expect(received.map((r) => `${r.method} ${r.path}`)).toEqual(['HEAD /gcf-grants', 'POST /_bulk']);
    expect(JSON.parse(received[1]!.body.trim())).toEqual({ delete: { _index: 'gcf-grants', _id: 'g-1' } });
  });

  it('fails the write, naming the documents, when OpenSearch refuses some of a bulk', async () => {
    bulkStatus.set('f-2', { status: 400, error: { type: 'mapper_parsing_exception', reason: 'failed to parse field [created_at]' } });
    await expect(adapter().upsert('funder', [funder('f-1', 'A'), funder('f-2', 'B')]))
      .rejects.toThrow('OpenSearch refused 1 of 2 funder documents (f-2: mapper_parsing_exception failed to parse field [created_at])');
  });

  it('treats deleting a missing document as done', async () => {
    bulkStatus.set('gone', { status: 404 });
    await expect(adapter().remove('contract', ['gone'])).resolves.toBeUndefined();
  });

  it('answers queries with 503 SEARCH_UNAVAILABLE until the search issue', async () => {
    await expect(adapter().query()).rejects.toMatchObject({ status: 503, code: 'SEARCH_UNAVAILABLE' } satisfies Partial<ServiceError>);
  });
});
