import { afterAll, beforeAll, expect, it } from 'vitest';
import { OpenSearchHttpClient } from '../../lambdas/adapters/aws/opensearch-client';
import { OpenSearchIndex, REBUILD_REMEDY } from '../../lambdas/adapters/aws/opensearch-index';
import { REINDEX_REMEDY } from '../../lambdas/adapters/aws/opensearch-indices';
import { createIndexBody, IDENTIFIER_KEYS_FIELD, MAPPING_VERSION } from '../../lambdas/adapters/aws/opensearch-mappings';
import { type ListQuery, parseListQuery } from '../../lambdas/core/query/list-query';
import { type Grant, RESOURCE_KINDS } from '../../lambdas/core/records';
import type { VectorSpace } from '../../lambdas/ports/embedder';
import { describeOnEngine } from './engine-suite';

/**
 * The index's life on a real OpenSearch 2.19 node (`npm run test:engines` sets OPENSEARCH_URL),
 * through the thin HTTP client the Lambdas use (the contract suite uses the official client):
 * the deploy-time bootstrap, the settings the engine keeps, writes through `_bulk`, and a rebuild
 * that swaps the alias to a fresh index while the old one serves until the swap, and the upgrade
 * of an index made with an older mapping version.
 */

const SPACE: VectorSpace = { embedder: 'engine-test', dimensions: 4 };
const TODAY = '2026-11-22';

const grant = (n: number, title: string): Grant => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  title,
  description: 'Radios and body cameras for police departments.',
  amount_min: null,
  amount_max: null,
  deadline_date: '2027-01-31',
  status: 'posted',
  geography: null,
  funder_id: '00000000-0000-4000-8000-999999999999',
  funder_name: 'Department of Justice',
  listing_url: null,
  created_at: '2026-01-01T00:00:00.000Z',
  categories: [],
  opportunity_type: 'open',
  project_end_date: null,
  archive_date: null,
  states: [],
  source: 'engine-test',
  source_id: String(n),
  eligible_applicants: [],
  requires_501c3: null,
  assistance_listings: [],
  agency_code: null,
});

const search = (text: string) => parseListQuery('grant', { search: [text], search_mode: ['keyword'] }, TODAY) as ListQuery & { kind: 'grant' };

describeOnEngine('OpenSearchIndex lifecycle on OpenSearch 2.19', 'OPENSEARCH_URL', (url) => {
  const client = new OpenSearchHttpClient({ node: url });
  const prefix = `gcf-lifecycle-${Date.now()}`;
  const adapter = (space: VectorSpace = SPACE) => new OpenSearchIndex(client, { space, endpoint: url, aliasPrefix: prefix });
  const ids = async (index: OpenSearchIndex, text: string) => (await index.query('grant', search(text))).results.map((g) => g.title);

  beforeAll(async () => {
    const checks = await adapter().ensureIndices(RESOURCE_KINDS);
    expect(checks.map((check) => check.status)).toEqual(['created', 'created', 'created']);
  });

  afterAll(async () => {
    await client.indices.delete({ index: `${prefix}-*` }).catch(() => undefined);
  });

  it('bootstraps once: a second run finds the indices, and a run with another vector space reports a mismatch without touching them', async () => {
    expect((await adapter().ensureIndices(RESOURCE_KINDS)).map((check) => [check.kind, check.status, check.indices])).toEqual([
      ['grant', 'found', [`${prefix}-grants-v1`]],
      ['contract', 'found', [`${prefix}-contracts-v1`]],
      ['funder', 'found', [`${prefix}-funders-v1`]],
    ]);
    const [mismatch] = await adapter({ embedder: 'another-model', dimensions: 8 }).ensureIndices(['grant']);
    expect(mismatch).toMatchObject({ status: 'mismatch', found: SPACE });
    expect(mismatch!.message).toContain(REBUILD_REMEDY);
  });

  it('creates indices the engine accepts with every setting the mappings module asks for', async () => {
    const { body } = await client.indices.getMapping({ index: `${prefix}-grants` });
    const mapping = (body as Record<string, { mappings: { properties: Record<string, { type: string; method?: { engine: string } }> } }>)[
      `${prefix}-grants-v1`
    ]!.mappings;
    expect(mapping.properties.embedding).toMatchObject({ type: 'knn_vector', method: { engine: 'lucene' } });
    const settings = (await fetch(`${url}/${prefix}-grants-v1/_settings?flat_settings=true`).then((r) => r.json())) as Record<
      string,
      { settings: Record<string, string> }
    >;
    expect(settings[`${prefix}-grants-v1`]!.settings).toMatchObject({
      'index.knn': 'true',
      'index.max_result_window': '10100',
      'index.search.slowlog.threshold.query.warn': '1s',
      'index.indexing.slowlog.threshold.index.warn': '2s',
      'index.auto_expand_replicas': '0-1',
    });
    // A deployment's replica count (one per extra zone) is a fixed number instead.
    const zoned = new OpenSearchIndex(client, { space: SPACE, endpoint: url, aliasPrefix: `${prefix}-zoned`, replicas: 2 });
    await zoned.ensureIndices(['funder']);
    const zonedSettings = (await fetch(`${url}/${prefix}-zoned-funders-v1/_settings?flat_settings=true`).then((r) => r.json())) as Record<
      string,
      { settings: Record<string, string> }
    >;
    expect(zonedSettings[`${prefix}-zoned-funders-v1`]!.settings).toMatchObject({ 'index.number_of_replicas': '2' });
    expect(zonedSettings[`${prefix}-zoned-funders-v1`]!.settings).not.toHaveProperty('index.auto_expand_replicas');
  });

  it('writes through _bulk, finds the records once refreshed, and removes them', async () => {
    const index = adapter();
    await index.upsert('grant', [grant(1, 'Police radios'), grant(2, 'Police body cameras')], [Float32Array.of(1, 0, 0, 0), null]);
    await client.indices.refresh({ index: `${prefix}-grants` });
    expect((await ids(index, 'police')).sort()).toEqual(['Police body cameras', 'Police radios']);
    await index.remove('grant', [grant(2, '').id]);
    await client.indices.refresh({ index: `${prefix}-grants` });
    expect(await ids(index, 'police')).toEqual(['Police radios']);
  });

  it('brings an index of the first mapping version up to date: new fields added, documents found by them once reindexed', async () => {
    const oldPrefix = `${prefix}-old`;
    const body = createIndexBody('grant', SPACE, `${oldPrefix}-grants`) as {
      mappings: { _meta: Record<string, unknown>; properties: Record<string, unknown> };
    };
    // Version 1 had no identifier keys and recorded no mapping version.
    delete body.mappings._meta.mapping_version;
    delete body.mappings.properties[IDENTIFIER_KEYS_FIELD];
    await client.indices.create({ index: `${oldPrefix}-grants-v1`, body });
    const index = new OpenSearchIndex(client, { space: SPACE, endpoint: url, aliasPrefix: oldPrefix });
    const [check] = await index.ensureIndices(['grant']);
    expect(check).toMatchObject({ status: 'updated', indices: [`${oldPrefix}-grants-v1`] });
    expect(check!.message).toContain(REINDEX_REMEDY);
    const { body: mapping } = await client.indices.getMapping({ index: `${oldPrefix}-grants` });
    const upgraded = (mapping as Record<string, { mappings: { _meta: { mapping_version: number }; properties: Record<string, unknown> } }>)[
      `${oldPrefix}-grants-v1`
    ]!.mappings;
    expect(upgraded._meta.mapping_version).toBe(MAPPING_VERSION);
    expect(upgraded.properties).toHaveProperty(IDENTIFIER_KEYS_FIELD);
    // Once upgraded it is found as current, and a record written again is found by its opportunity number.
    expect((await index.ensureIndices(['grant']))[0]!.status).toBe('found');
    await index.upsert('grant', [{ ...grant(9, 'Police radios'), source_id: 'DOJ-BJA-2026-0042' }]);
    await client.indices.refresh({ index: `${oldPrefix}-grants` });
    expect(await ids(index, 'doj bja 2026 0042')).toEqual(['Police radios']);
    await client.indices.delete({ index: `${oldPrefix}-*` });
  });

  it('rebuilds into a new index and swaps the alias to it, deleting the old one', async () => {
    const index = adapter();
    const result = await index.rebuild(
      'grant',
      async (write) => {
        await write([grant(3, 'Police training')], [Float32Array.of(0, 1, 0, 0)]);
        // The old index keeps serving while the new one fills.
        expect(await ids(index, 'police')).toEqual(['Police radios']);
        await write([grant(4, 'Police vehicles')]);
      },
      { version: 'v2' },
    );
    expect(result).toEqual({ index: `${prefix}-grants-v2`, replaced: [`${prefix}-grants-v1`], documents: 2 });
    expect((await ids(adapter(), 'police')).sort()).toEqual(['Police training', 'Police vehicles']);
    const { body } = await client.indices.getAlias({ name: `${prefix}-grants` });
    expect(Object.keys(body as object)).toEqual([`${prefix}-grants-v2`]);
    await expect(fetch(`${url}/${prefix}-grants-v1`).then((r) => r.status)).resolves.toBe(404);
  });
});
