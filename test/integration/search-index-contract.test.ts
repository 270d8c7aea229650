import { Client } from '@opensearch-project/opensearch';
import { describe, it } from 'vitest';
import { OpenSearchIndex } from '../../lambdas/adapters/aws/opensearch-index';
import { SqliteSearchIndex } from '../../lambdas/adapters/embedded/sqlite-search-index';
import { CONTRACT_SPACE, describeSearchIndexContract } from '../contract/search-index-contract';

/**
 * The search-index contract against each adapter. SQLite runs everywhere; OpenSearch runs when
 * OPENSEARCH_URL names a live domain (e.g. http://localhost:9200 with security off), in indices
 * of its own that are deleted afterwards.
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
    const index = new OpenSearchIndex(client, { space: CONTRACT_SPACE, endpoint: openSearchUrl, aliasPrefix: prefix });
    return {
      index,
      settle: async () => { await client.indices.refresh({ index: `${prefix}-*` }); },
      close: async () => { await client.indices.delete({ index: `${prefix}-*` }); },
    };
  });
} else {
  describe('SearchIndex contract: OpenSearch', () => {
    it.skip('skipped: set OPENSEARCH_URL to a live OpenSearch 2.19 domain to run the contract against it (none is available on this machine)', () => {});
  });
}
