import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { stackConfig } from '../../ops/config.js';
import { alive } from '../../ops/processes.js';
import { stackDown, stackUp } from '../../ops/stack.js';

/**
 * Endpoints of the real stack for tests, found in this order:
 *  1. the environment: KAFKA_BROKERS, SCHEMA_REGISTRY_URL, DATABASE_ADMIN_URL (or DATABASE_URL)
 *     and REDIS_URL, used as given;
 *  2. containers through testcontainers, when a Docker engine answers;
 *  3. the local stack of ops/ (started if it is not running).
 */
export interface StackEndpoints {
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
  /** A Postgres URL with the right to create databases. */
  postgresAdminUrl: string;
  redisUrl: string;
}

type Log = (line: string) => void;

/** What resolveStack must undo at the end of the run. */
let cleanup: ((log: Log) => Promise<void>) | undefined;

function fromEnvironment(env: NodeJS.ProcessEnv): StackEndpoints | undefined {
  const { KAFKA_BROKERS: kafka, SCHEMA_REGISTRY_URL: registry, REDIS_URL: redis } = env;
  if (!kafka && !registry) return undefined;
  const postgres = env.DATABASE_ADMIN_URL || env.DATABASE_URL;
  if (!kafka || !registry || !postgres || !redis) {
    const missing = [
      !kafka && 'KAFKA_BROKERS',
      !registry && 'SCHEMA_REGISTRY_URL',
      !postgres && 'DATABASE_ADMIN_URL (or DATABASE_URL)',
      !redis && 'REDIS_URL',
    ].filter(Boolean);
    throw new Error(`the environment names only part of a stack: also set ${missing.join(', ')}, ` +
      'or unset KAFKA_BROKERS and SCHEMA_REGISTRY_URL to let the tests find one');
  }
  return {
    kafkaBrokers: kafka.split(',').map((broker) => broker.trim()).filter(Boolean),
    schemaRegistryUrl: registry,
    postgresAdminUrl: postgres,
    redisUrl: redis,
  };
}

async function dockerAnswers(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

/** The same stack in containers; Kafka advertises a fixed host port chosen up front. */
async function startContainers(log: Log): Promise<StackEndpoints> {
  const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers');
  const host = (await getContainerRuntimeClient()).info.containerRuntime.host;
  const kafkaPort = await freePort();
  log('starting Kafka, Apicurio Registry, Postgres and Redis containers');
  const [kafka, registry, postgres, redis] = await Promise.all([
    new GenericContainer('apache/kafka:3.9.1')
      .withExposedPorts({ container: 9092, host: kafkaPort })
      .withEnvironment({
        CLUSTER_ID: 'fVwxVwVqatFHFTmYTf-2kg',
        KAFKA_NODE_ID: '1',
        KAFKA_PROCESS_ROLES: 'broker,controller',
        KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
        // Clients use the host-facing listener; the broker talks to itself on BROKER.
        KAFKA_LISTENERS: 'PLAINTEXT://:9092,BROKER://:9094,CONTROLLER://:9093',
        KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://${host}:${kafkaPort},BROKER://localhost:9094`,
        KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'PLAINTEXT:PLAINTEXT,BROKER:PLAINTEXT,CONTROLLER:PLAINTEXT',
        KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
        KAFKA_INTER_BROKER_LISTENER_NAME: 'BROKER',
        KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
        KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
        KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
      })
      .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
      .start(),
    new GenericContainer('apicurio/apicurio-registry:3.0.9')
      .withExposedPorts(8080)
      .withWaitStrategy(Wait.forHttp('/apis/ccompat/v7/subjects', 8080).forStatusCode(200))
      .start(),
    new GenericContainer('postgres:15')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
      .withExposedPorts(5432)
      // The entrypoint starts a temporary server first; the second message is the real one.
      .withWaitStrategy(Wait.forLogMessage('database system is ready to accept connections', 2))
      .start(),
    new GenericContainer('redis:7')
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
      .start(),
  ]);
  cleanup = async () => {
    await Promise.all([kafka, registry, postgres, redis].map((container) => container.stop()));
  };
  return {
    kafkaBrokers: [`${host}:${kafkaPort}`],
    schemaRegistryUrl: `http://${registry.getHost()}:${registry.getMappedPort(8080)}/apis/ccompat/v7`,
    postgresAdminUrl: `postgres://postgres@${postgres.getHost()}:${postgres.getMappedPort(5432)}/postgres`,
    redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
  };
}

/**
 * The ops/ stack. Every test run using it leaves a lease file (its pid) in the stack folder, so
 * the run that started the stack does not stop it under another run that is still going.
 */
async function useOpsStack(log: Log): Promise<StackEndpoints> {
  const config = stackConfig();
  const leases = join(config.dir, 'leases');
  const lease = join(leases, String(process.pid));
  const otherUsers = () => readdirSync(leases).map(Number).filter((pid) => pid !== process.pid && alive(pid));
  mkdirSync(leases, { recursive: true });
  // Taken before stackUp, so a run that started the stack sees this one even while it waits.
  writeFileSync(lease, '');
  for (const name of readdirSync(leases)) {
    if (!alive(Number(name))) rmSync(join(leases, name), { force: true }); // runs that were killed
  }
  const { env, started } = await stackUp(log, config).catch((error: unknown) => {
    rmSync(lease, { force: true });
    throw error;
  });
  cleanup = async (teardownLog) => {
    rmSync(lease, { force: true });
    if (started.length === 0) return; // found running: somebody else's to stop
    if (process.env.KEEP_STACK === '1') {
      teardownLog('KEEP_STACK=1: leaving running the stack this run started (npm run stack:down stops it)');
      return;
    }
    const others = otherUsers();
    if (others.length > 0) {
      teardownLog(`leaving the stack running: test run(s) ${others.join(', ')} still use it`);
      return;
    }
    await stackDown(teardownLog, config);
  };
  return {
    kafkaBrokers: env.KAFKA_BROKERS.split(','),
    schemaRegistryUrl: env.SCHEMA_REGISTRY_URL,
    postgresAdminUrl: config.postgresUrl,
    redisUrl: env.REDIS_URL,
  };
}

export async function resolveStack(log: Log): Promise<StackEndpoints> {
  const given = fromEnvironment(process.env);
  if (given) {
    log('using the stack named by the environment');
    return given;
  }
  if (await dockerAnswers()) return startContainers(log);
  return useOpsStack(log);
}

/**
 * For the end of the run: stops the containers this run started, and the ops/ stack if this run
 * started it (unless KEEP_STACK=1 or another test run still uses it). A stack that was found
 * running is left alone.
 */
export async function stopStackIfStartedHere(log: Log): Promise<void> {
  const undo = cleanup;
  cleanup = undefined;
  await undo?.(log);
}
