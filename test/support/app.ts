import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../platform/config/config.js';
import { openRuntime, type Runtime } from '../../platform/runtime.js';
import { buildApp } from '../../services/api/app.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { dataDirWithCluster } from './embedded-cluster.js';

export interface TestRuntime {
  runtime: Runtime;
  database: TestDatabase;
  config: Config;
  /** The unique topic prefix of this runtime, so parallel test files never share topics. */
  topicPrefix: string;
  close(): Promise<void>;
}

export interface TestRuntimeOptions {
  /**
   * `kafka`: the real Kafka and schema registry; `sql`: the event log in the test database;
   * `embedded`: the embedded default (log and read models in a DATA_DIR of its own, no Redis).
   */
  eventLog?: 'kafka' | 'sql' | 'embedded';
  /** Extra environment variables, as the service would read them. */
  env?: Record<string, string>;
}

/** The config a test process runs with: its own database and topic prefix, the real stack's endpoints. */
export function testEnvironment(database: TestDatabase, topicPrefix: string, options: TestRuntimeOptions = {}) {
  const stack = inject('stack');
  return {
    DATABASE_URL: database.url,
    KEY_HASH_SECRET: 'test-key-hash-secret-0123456789abcdef',
    REDIS_URL: stack.redisUrl,
    TOPIC_PREFIX: topicPrefix,
    LOG_LEVEL: 'silent',
    // Every test request comes from one address: the per-address limits have tests of their own.
    QUERY_RATE_LIMIT: '1000000',
    CLICK_RATE_LIMIT: '1000000',
    POSTBACK_REFUSALS_PER_ADDRESS: '1000000',
    // A loaded machine can stall a Redis reply past the service's 500 ms, moving a count into the
    // process; tests that pause Redis on purpose set it back.
    REDIS_COMMAND_TIMEOUT_MS: '5000',
    ...(options.eventLog === 'kafka'
      ? { KAFKA_BROKERS: stack.kafkaBrokers.join(','), SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl }
      : {}),
    ...options.env,
  };
}

/**
 * The embedded default's settings for a test: the same per-address limits and secret as the
 * stack's (testEnvironment), nothing naming a backend.
 */
function embeddedEnvironment(dataDir: string, options: TestRuntimeOptions) {
  return {
    DATA_DIR: dataDir,
    KEY_HASH_SECRET: 'test-key-hash-secret-0123456789abcdef',
    LOG_LEVEL: 'silent',
    QUERY_RATE_LIMIT: '1000000',
    CLICK_RATE_LIMIT: '1000000',
    POSTBACK_REFUSALS_PER_ADDRESS: '1000000',
    ...options.env,
  };
}

/**
 * The embedded default in a temporary DATA_DIR. Its `database` is the runtime's own engine: no
 * URL another process could use, and no server whose connections a test could cut.
 */
async function createEmbeddedTestRuntime(options: TestRuntimeOptions): Promise<TestRuntime> {
  const dataDir = dataDirWithCluster('offer-ledger-test-');
  const config = loadConfig(embeddedEnvironment(dataDir, options));
  const runtime = await openRuntime(config);
  const notAServer = async (): Promise<never> => {
    throw new Error('the embedded default has no database server to cut off');
  };
  const close = async () => {
    try {
      await runtime.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  };
  return {
    runtime,
    database: { db: runtime.db, url: '', name: dataDir, dropConnections: notAServer, whileRefusing: notAServer, drop: close },
    config,
    topicPrefix: '',
    close,
  };
}

/** A Runtime on a fresh database with real Redis (and real Kafka when asked), or the embedded default. */
export async function createTestRuntime(options: TestRuntimeOptions = {}): Promise<TestRuntime> {
  if (options.eventLog === 'embedded') return createEmbeddedTestRuntime(options);
  const database = await createTestDatabase();
  const topicPrefix = `t${randomBytes(4).toString('hex')}.`;
  const config = loadConfig(testEnvironment(database, topicPrefix, options));
  const runtime = await openRuntime(config);
  return {
    runtime,
    database,
    config,
    topicPrefix,
    async close() {
      await runtime.close();
      await database.drop();
    },
  };
}

/** The API over a test runtime, for `app.inject` tests. */
export async function createTestApp(options: TestRuntimeOptions = {}): Promise<TestRuntime & { app: FastifyInstance }> {
  const testRuntime = await createTestRuntime(options);
  const app = await buildApp({ runtime: testRuntime.runtime });
  return {
    ...testRuntime,
    app,
    async close() {
      await app.close();
      await testRuntime.close();
    },
  };
}
