import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Integration suites each start a server; run files in separate forks, two at a time (2 cores).
    pool: 'forks',
    maxWorkers: 2,
  },
});
