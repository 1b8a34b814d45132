import { defineConfig } from 'vitest/config';

const common = {
  exclude: ['node_modules/**', '.stack/**', '.data/**'],
  // Starts (or finds) the real stack once: Kafka, the schema registry, Postgres and Redis.
  globalSetup: ['test/support/global-setup.ts'],
  setupFiles: ['test/support/children-cleanup.ts'],
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    // Two test files at a time (the machine has two cores): the unit files first, then the others.
    poolOptions: {
      // A unit file in a fresh worker cost more than its tests (about a second of module loading
      // each): they share two workers, each file starting from what earlier files loaded.
      threads: { isolate: false, maxThreads: 2, minThreads: 1 },
      // The integration tests start servers, processes and connections: each file in a process of its own.
      forks: { maxForks: 2, minForks: 1 },
    },
    projects: [
      { test: { ...common, name: 'unit', include: ['test/unit/**/*.spec.ts'], pool: 'threads', sequence: { groupOrder: 0 } } },
      { test: { ...common, name: 'int', include: ['test/int/**/*.spec.ts'], pool: 'forks', sequence: { groupOrder: 1 } } },
    ],
  },
});
