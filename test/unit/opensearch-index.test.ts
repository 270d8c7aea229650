import { Client } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { INDEX_ALIASES, INDEX_MAPPINGS, OpenSearchIndex } from '../../lambdas/adapters/aws/opensearch-index';
import { ServiceError } from '../../lambdas/core/errors';
import { RECORD_SCHEMAS, RESOURCE_KINDS, type Funder } from '../../lambdas/core/records';
import { startStandInOpenSearch, type StandInOpenSearch } from '../support/stand-in-opensearch';

/**
 * The OpenSearch adapter's writes against a stand-in domain on loopback: a real HTTP exchange,
 * with the stand-in recording what it was sent and answering as OpenSearch does.
 */

let openSearch: StandInOpenSearch;
beforeAll(async () => {
  openSearch = await startStandInOpenSearch();
});
afterAll(() => openSearch.close());
beforeEach(() => openSearch.reset());

function adapter(): OpenSearchIndex {
  return new OpenSearchIndex(new Client({ node: openSearch.endpoint }), openSearch.endpoint);
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
    expect(openSearch.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['HEAD /gcf-funders', 'PUT /gcf-funders-v1', 'POST /_bulk']);
    const created = JSON.parse(openSearch.requests[1]!.body);
    expect(created.aliases).toEqual({ 'gcf-funders': {} });
    expect(created.mappings).toEqual({ dynamic: false, properties: INDEX_MAPPINGS.funder });
    expect(created.settings.index).toMatchObject({ knn: true, auto_expand_replicas: '0-1' });
    expect(openSearch.requests[2]!.body.trim().split('\n').map((line) => JSON.parse(line))).toEqual([
      { index: { _index: 'gcf-funders', _id: 'f-1' } }, funder('f-1', 'National Science Foundation'),
      { index: { _index: 'gcf-funders', _id: 'f-2' } }, funder('f-2', 'Forest Service'),
    ]);

    openSearch.requests = [];
    await index.upsert('funder', [funder('f-3', 'Indian Health Service')]);
    expect(openSearch.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /_bulk']);
  });

  it('does not recreate an index that exists', async () => {
    openSearch.indices.add(INDEX_ALIASES.grant);
    await adapter().remove('grant', ['g-1']);
    expect(openSearch.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['HEAD /gcf-grants', 'POST /_bulk']);
    expect(JSON.parse(openSearch.requests[1]!.body.trim())).toEqual({ delete: { _index: 'gcf-grants', _id: 'g-1' } });
  });

  it('fails the write, naming the documents, when OpenSearch refuses some of a bulk', async () => {
    openSearch.bulkStatus.set('f-2', { status: 400, error: { type: 'mapper_parsing_exception', reason: 'failed to parse field [created_at]' } });
    await expect(adapter().upsert('funder', [funder('f-1', 'A'), funder('f-2', 'B')]))
      .rejects.toThrow('OpenSearch refused 1 of 2 funder documents (f-2: mapper_parsing_exception failed to parse field [created_at])');
  });

  it('treats deleting a missing document as done', async () => {
    openSearch.bulkStatus.set('gone', { status: 404 });
    await expect(adapter().remove('contract', ['gone'])).resolves.toBeUndefined();
  });

  it('answers queries with 503 SEARCH_UNAVAILABLE until the search issue', async () => {
    await expect(adapter().query()).rejects.toMatchObject({ status: 503, code: 'SEARCH_UNAVAILABLE' } satisfies Partial<ServiceError>);
  });
});
