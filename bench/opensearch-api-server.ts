// The bench's API server over OpenSearch: the local HTTP server and route handlers of `npm start`,
// with the search index swapped for the OpenSearch adapter the Lambdas use (thin HTTP client,
// unsigned on loopback) on indices the bench filled. Keys and usage counts live in a small embedded
// stack of its own, so this process never touches the embedded API server's data folder.
// usage: tsx bench/opensearch-api-server.ts <opensearch url> <alias prefix> <state dir> <k-NN window>
import { OpenSearchHttpClient } from '../lambdas/adapters/aws/opensearch-client';
import { OpenSearchIndex } from '../lambdas/adapters/aws/opensearch-index';
import { localAuthorizer, localRoutes } from '../local/api-routes';
import { startEmbeddedStack } from '../local/embedded-stack';
import { closeOnSignals, createApiServer, listen } from '../local/http-server';
import { ensureLocalKeys } from '../local/local-keys';

const [url, aliasPrefix, stateDir, window] = process.argv.slice(2);
if (!url || !aliasPrefix || !stateDir || !window)
  throw new Error('usage: tsx bench/opensearch-api-server.ts <opensearch url> <alias prefix> <state dir> <k-NN window>');

const stack = await startEmbeddedStack({ dataDir: stateDir, seed: false });
const index = new OpenSearchIndex(new OpenSearchHttpClient({ node: url }), {
  space: stack.services.embedder.space,
  endpoint: url,
  aliasPrefix,
  vectors: { window: Number(window) },
});
const { file } = await ensureLocalKeys(stack.services, stateDir);
const server = createApiServer(localRoutes({ ...stack.services, index }), localAuthorizer(stack.services));
const baseUrl = await listen(server, 0, '127.0.0.1');
console.log(`keys in ${file}`);
console.log(`API ready at ${baseUrl}`);

closeOnSignals(server, () => stack.close());
