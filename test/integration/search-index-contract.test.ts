import { Client } from '@opensearch-project/opensearch';
import { describe, it } from 'vitest';
import { OpenSearchIndex } from '../../lambdas/adapters/aws/opensearch-index';
import { SqliteSearchIndex } from '../../lambdas/adapters/embedded/sqlite-search-index';
import { CONTRACT_SPACE, describeSearchIndexContract } from '../contract/search-index-contract';

/**
 * The search-index contract against each adapter. SQLite runs everywhere; OpenSearch runs when
 * OPENSEARCH_URL names a live domain, as `npm run test:engines` sets it to the OpenSearch 2.19 node
 * it starts (or any domain with security off), in indices of its own that are deleted afterwards.
 */

describeSearchIndexContract('SQLite FTS5 + exact k-NN', async () => {
  const index = new SqliteSearchIndex({ filename: ':memory:', space: CONTRACT_SPACE });
  return { index, settle: async () => {}, close: async () => index.close() };
});

const openSearchUrl = process.env.OPENSEARCH_URL;
if (openSearchUrl) {
  describeSearchIndexContract(`OpenSearch at ${openSearchUrl}`, async () => {
    const client = new Client({ node: openSearchUrl });
    const prefix = `gcf-contract-${Date.now()}`;
    // A window under the contract's crowd of 3,000, so the suite sees it fill.
    const window = 1_000;
    const index = new OpenSearchIndex(client, { space: CONTRACT_SPACE, endpoint: openSearchUrl, aliasPrefix: prefix, vectors: { window } });
    return {
      index,
      window,
      settle: async () => {
        await client.indices.refresh({ index: `${prefix}-*` });
      },
      close: async () => {
        await client.indices.delete({ index: `${prefix}-*` });
      },
    };
  });
} else if (process.env.GCF_ENGINES_REQUIRED) {
  describe('SearchIndex contract: OpenSearch', () => {
    it('runs against the engine npm run test:engines starts', () => {
      throw new Error('OPENSEARCH_URL is not set: npm run test:engines sets it to the OpenSearch node it starts');
    });
  });
} else {
  describe('SearchIndex contract: OpenSearch', () => {
    it.skip('skipped here: `npm run test:engines` runs it against a real OpenSearch 2.19 node (or set OPENSEARCH_URL to a live domain)', () => {});
  });
}
