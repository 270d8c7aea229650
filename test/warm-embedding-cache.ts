import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { startEmbeddedStack } from '../local/embedded-stack';
import { configuredEmbedderName } from '../local/local-embedder';
import { TEST_CATALOGUE } from './support/api-server';

/**
 * Vitest global setup: the synthetic catalogue most suites seed is embedded once, into the test
 * run's shared vector cache (GCF_EMBEDDING_CACHE, vitest.config.ts), before the suites start.
 * Otherwise, on a fresh clone, two suites at once would each embed the same 2,000 texts, and a
 * suite's setup could outlast its timeout. A marker beside the cache says which embedder and day
 * (the catalogue's texts follow the date) were warmed, so later runs skip this.
 */
export default async function warmEmbeddingCache(): Promise<void> {
  const cache = (process.env.GCF_EMBEDDING_CACHE ??= '.cache/test-embeddings.sqlite');
  const marker = `${cache}.warmed`;
  const stamp = `${configuredEmbedderName()} ${new Date().toISOString().slice(0, 10)} ${JSON.stringify(TEST_CATALOGUE)}`;
  if (existsSync(cache) && existsSync(marker) && readFileSync(marker, 'utf8') === stamp) return;
  const started = performance.now();
  const stack = await startEmbeddedStack({ seed: TEST_CATALOGUE, onProgress: (message) => console.log(`test setup: ${message}`) });
  await stack.close();
  writeFileSync(marker, stamp);
  console.log(`test setup: the test catalogue's vectors are in ${cache} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
}
