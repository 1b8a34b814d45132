import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../platform/config/config.js';
import { openRuntime, type Runtime } from '../../platform/runtime.js';
import { testEnvironment } from './app.js';
import type { ServiceProcess } from './child-process.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { startPrivateKafka, type PrivateKafka } from './private-kafka.js';
import { startPrivateRedis, type PrivateRedis } from './private-redis.js';
import { restartable, startApi, startProjector, type ApiProcess, type Restartable } from './service-processes.js';
import { freePort } from './stack.js';

/**
 * What a fault test breaks: a private Kafka broker, a private Redis, a database of its own, and the
 * projector as a process of its own on them (running once this resolves). The API is started by
 * `startApi()` once the test has made its world (through `withRuntime`, while the projector applies).
 */
export interface FaultStack {
  kafka: PrivateKafka;
  redis: PrivateRedis;
  database: TestDatabase;
  /** The services' environment (KAFKA_BROKERS, REDIS_URL, DATABASE_URL, a fixed PORT, …). */
  env: Record<string, string>;
  projector: Restartable<ServiceProcess>;
  startApi(): Promise<Restartable<ApiProcess>>;
  /** Kills the services and removes the broker, Redis and database. */
  close(): Promise<void>;
}

export async function startFaultStack(): Promise<FaultStack> {
  const [kafka, redis, database] = await Promise.all([startPrivateKafka(), startPrivateRedis(), createTestDatabase()]);
  let projector: Restartable<ServiceProcess> | undefined;
  let api: Restartable<ApiProcess> | undefined;
  const close = async () => {
    await api?.kill('SIGKILL');
    await projector?.kill('SIGKILL');
    await kafka.close();
    await redis.close();
    await database.drop();
  };
  try {
    const env = testEnvironment(database, `t${randomBytes(4).toString('hex')}.`, {
      eventLog: 'kafka',
      env: {
        KAFKA_BROKERS: kafka.brokers.join(','),
        REDIS_URL: redis.url,
        PROJECTORS: 'separate',
        // Errors only: a failing backend shows in the output; request lines would flood it.
        LOG_LEVEL: 'warn',
        // Fixed, so clients reach the API at the same address after it is restarted.
        PORT: String(await freePort()),
      },
    });
    projector = await restartable(() => startProjector(env));
    return {
      kafka,
      redis,
      database,
      env,
      projector,
      async startApi() {
        api = await restartable(() => startApi(env));
        return api;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A runtime of the test's own on the services' environment (their database, broker and Redis), closed after `fn`. */
export async function withRuntime<T>(env: Record<string, string>, fn: (runtime: Runtime) => Promise<T>): Promise<T> {
  const runtime = await openRuntime(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  try {
    return await fn(runtime);
  } finally {
    await runtime.close();
  }
}
