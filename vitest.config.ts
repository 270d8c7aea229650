import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    // A suite's setup may embed a catalogue of its own with the sentence-embedding model.
    hookTimeout: 600_000,
    globalSetup: ['test/warm-embedding-cache.ts'],
    // Integration suites each start a server; run files in separate forks, two at a time (2 cores).
    pool: 'forks',
    maxWorkers: 2,
    // Every test stack without a data folder shares one vector cache: the sentence-embedding
    // model embeds each synthetic catalogue once per machine, not once per suite.
    env: { GCF_EMBEDDING_CACHE: '.cache/test-embeddings.sqlite' },
  },
});
