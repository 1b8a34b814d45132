import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.spec.ts'],
    exclude: ['node_modules/**', '.stack/**', '.data/**'],
    // Starts (or finds) the real stack once: Kafka, the schema registry, Postgres and Redis.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/children-cleanup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
