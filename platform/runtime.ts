import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Redis, ReplyError } from 'ioredis';
import { TOPICS } from '../schemas/topics.js';
import { withinDeadline } from './async/deadline.js';
import type { Config } from './config/config.js';
import { withKeyHashSecret } from './config/key-hash-secret.js';
import { acquireDataDir, type DataDirOwnership, type OwnerRole } from './data-dir/ownership.js';
import type { Db } from './db/db.js';
import { migrate } from './db/migrate.js';
import { connectPostgres } from './db/postgres.js';
import type { EventLog } from './events/event-log.js';
import { checkEventLogEndpoints, openEventLog } from './events/open-event-log.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { openWatermarks, type Watermarks } from './projection/watermarks.js';
import { redisTakesWrites } from './redis/write-probe.js';
import { ExitCode, reachBackend } from './startup.js';

/** The backends of one process, chosen from the configuration; routes and projections only see this. */
export interface Runtime {
  config: Config;
  db: Db;
  eventLog: EventLog;
  redis?: Redis;
  metrics: Metrics;
  /** On the embedded default: this process's hold on DATA_DIR. */
  owner?: DataDirOwnership;
  /** Applied positions of the projections, published by every projector's commit. */
  watermarks(): Promise<Watermarks>;
  close(): Promise<void>;
}

export interface OpenOptions {
  log?: (line: string) => void;
  /**
   * Where lines go that an operator should act on (existing topics left as they are: another
   * partition count than designed, fewer copies, settings it could not give them); `log` when not given.
   */
  warn?: (line: string) => void;
  /** Who takes an embedded DATA_DIR: a long-running service, or a short command (the default). */
  role?: OwnerRole;
  /** Shown to other processes that find DATA_DIR taken. */
  description?: string;
  /**
   * Whether this process connects REDIS_URL (default true). Only the API uses Redis (its rate
   * limits and the refusals store); the projector and the commands pass false, so a Redis that is
   * down can neither stop their start nor make them unready.
   */
  redis?: boolean;
  /**
   * Whether this process creates the topics the log lacks (default true). An export only reads
   * the log and passes false: a TOPIC_PREFIX naming no environment made it create every topic in
   * the cluster, then write an empty file and exit 0.
   */
  ensureTopics?: boolean;
}

/** How long a backend may take to answer at start-up before the process gives up on it. */
const STARTUP_TIMEOUT_MS = 8_000;
/** Creating the topics waits for their partition leaders, which a busy cluster elects slowly. */
const TOPIC_CREATION_TIMEOUT_MS = 30_000;

/** Where the embedded database lives in DATA_DIR. */
export const embeddedDatabaseDir = (dataDir: string) => join(dataDir, 'pg');

/** Whether DATA_DIR holds an embedded database (opening one that does not creates it). */
export const holdsEmbeddedDatabase = (dataDir: string) => existsSync(join(embeddedDatabaseDir(dataDir), 'PG_VERSION'));

/**
 * For a tool that only reads what is there (export, replay, ledger:verify): with no DATABASE_URL
 * and no database in DATA_DIR, says so and exits 2, instead of creating an empty one and reporting
 * nothing found (usually DATA_DIR is unset or names another folder).
 */
export function exitUnlessThereIsADatabase(config: Config, tool: string, nothing: string, options: { onlyTheLog?: boolean } = {}): void {
  // On Kafka the log is there whatever DATA_DIR holds: a tool that reads only the log finds it.
  if (config.databaseUrl || (options.onlyTheLog && config.kafkaBrokers) || holdsEmbeddedDatabase(config.dataDir)) return;
  process.stderr.write(`error: no embedded database in DATA_DIR ${config.dataDir}: ${nothing} (set DATA_DIR to the service's folder, or DATABASE_URL); ${tool} creates none\n`);
  process.exit(ExitCode.invalidInput);
}

/**
 * The database: Postgres at DATABASE_URL, or the embedded one in DATA_DIR, which this process then
 * owns until the database is closed (another process gets DataDirBusyError).
 */
export async function openDatabase(config: Config, options: OpenOptions = {}): Promise<{ db: Db; owner?: DataDirOwnership }> {
  if (config.databaseUrl) {
    // A service gives up on a statement its server leaves unanswered (DATABASE_QUERY_TIMEOUT_MS);
    // a command (replay, export, migrate, geo:load) waits as long as its statements take.
    const queryTimeoutMs = options.role === 'service' ? config.databaseQueryTimeoutMs : 0;
    const db = connectPostgres(config.databaseUrl, {
      connectTimeoutMs: STARTUP_TIMEOUT_MS,
      queryTimeoutMs,
      idleInTransactionTimeoutMs: config.databaseIdleInTransactionTimeoutMs,
      max: config.databasePoolSize,
    });
    const check = () => db.query('SELECT 1');
    await reachBackend('DATABASE_URL', 'check that Postgres runs there and the database exists', STARTUP_TIMEOUT_MS, check, config.databaseUrl).catch(
      async (error: unknown) => {
        await db.close().catch(() => {});
        throw error;
      },
    );
    return { db };
  }
  const owner = await acquireDataDir(config.dataDir, options.role ?? 'tool', options.description ?? process.argv.slice(2).join(' '));
  try {
    // Loaded here only: the embedded engine takes about half a second to load, which every
    // process on Postgres would otherwise pay at start-up (a crashed one's restart included).
    const { openPglite } = await import('./db/pglite.js');
    // Said before and after: after a process was killed the engine first recovers its files, and a
    // service that said nothing for half a minute looks hung.
    const opening = performance.now();
    options.log?.(
      holdsEmbeddedDatabase(config.dataDir)
        ? `embedded database: opening ${embeddedDatabaseDir(config.dataDir)} (after an unclean stop it recovers first, which can take a while)`
        : `embedded database: creating ${embeddedDatabaseDir(config.dataDir)} (a new one takes several seconds)`,
    );
    const embedded = await openPglite(embeddedDatabaseDir(config.dataDir), { minFreeBytes: config.dataDirMinFreeMb * 1024 * 1024, maintenance: { log: options.log } });
    options.log?.(`embedded database: open in ${((performance.now() - opening) / 1000).toFixed(1)} s`);
    return {
      owner,
      db: {
        ...embedded,
        async close() {
          await embedded.close();
          await owner.release();
        },
      },
    };
  } catch (error) {
    await owner.release();
    throw error;
  }
}

/** Why each Redis connection went, since it was last ready: while it reconnects, a command says only that it is refused. */
const lastRedisErrors = new WeakMap<Redis, string>();

/** Why `redis` is not connected, when it is not (its last error, else its state); undefined when it is. */
export const redisDisconnection = (redis: Redis): string | undefined =>
  redis.status === 'ready' ? undefined : `not connected (${lastRedisErrors.get(redis) ?? redis.status})`;

/** How often the API asks a connected Redis whether it still answers. */
const REDIS_HEARTBEAT_MS = 3_000;

async function connectRedis(url: string, commandTimeoutMs: number, keyPrefix: string, log: ((line: string) => void) | undefined): Promise<Redis> {
  let connected = false;
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 3_000,
    // A Redis that stops answering (paused, a dropped network) fails a command instead of holding
    // the request: limits fall back to this process and diagnostics go without.
    commandTimeout: commandTimeoutMs,
    // Reconnect after a drop, but fail the first connection at once: an unreachable Redis at
    // start is a configuration problem to report, not something to wait on.
    retryStrategy: (attempt) => (connected ? Math.min(attempt * 200, 2_000) : null),
  });
  // Later errors are reported by the failing command or the readiness check; the first one says
  // why the connection failed (connect() itself only says it closed).
  let firstError: Error | undefined;
  // Once connected, an outage is said once when it starts and once when it ends: requests go on
  // meanwhile (limits count in this process), so nothing else would tell an operator.
  let down = false;
  const goneAway = (why: string) => {
    if (down) return;
    down = true;
    log?.(`Redis (REDIS_URL) unavailable: ${why}; rate limits count in this process and refusals are not kept until it answers`);
  };
  redis.on('error', (error: Error) => {
    firstError ??= error;
    lastRedisErrors.set(redis, error.message);
    if (connected) goneAway(error.message);
  });
  const answersAgain = () => {
    if (!down) return;
    down = false;
    log?.('Redis (REDIS_URL) answers again: rate limits are shared again');
  };
  redis.on('ready', answersAgain);
  redis.on('ready', () => lastRedisErrors.delete(redis));
  // A server that stops closes the connection without an error; the reconnects' errors say more.
  redis.on('close', () => {
    if (!lastRedisErrors.has(redis)) lastRedisErrors.set(redis, 'the connection closed');
  });
  // A Redis that hangs (paused, a black-holed network) keeps its connection, so no error event
  // tells of it, nor of one that answers but refuses writes (maxmemory reached with noeviction):
  // a write every few seconds does, and tells when it goes through again.
  const heartbeat = setInterval(() => {
    if (!connected || redis.status !== 'ready') return;
    redisTakesWrites(redis, keyPrefix).then(answersAgain, (error: Error) =>
      goneAway(`${error.message} (connected, ${error instanceof ReplyError ? 'refusing writes' : 'not answering'})`));
  }, REDIS_HEARTBEAT_MS).unref();
  redis.on('end', () => clearInterval(heartbeat));
  await reachBackend(
    'REDIS_URL',
    'start Redis or unset REDIS_URL (in-process limits)',
    STARTUP_TIMEOUT_MS,
    () => redis.connect().catch((error: unknown) => Promise.reject(firstError ?? error)),
    url,
  ).catch((error: unknown) => {
    clearInterval(heartbeat);
    redis.disconnect();
    throw error;
  });
  connected = true;
  return redis;
}

/**
 * Logs each gap in the projectors' notifications after the first opening (the listening session
 * dropped, given up as hung, or reopened): an operator can tell why caches were emptied and
 * waits for read-your-writes timed out meanwhile.
 */
const sayNotificationGaps = (log: ((line: string) => void) | undefined) => (watermarks: Watermarks) => {
  watermarks.onApplied((_position, reset) => {
    if (reset === 'gap') log?.('projection notifications: the listening session dropped or was reopened; commits meanwhile may have been missed (in-process caches emptied, positions read again)');
    if (reset === 'swap') log?.('projection notifications: a replay swapped rebuilt read models into place (in-process caches emptied, positions read again)');
  });
  return watermarks;
};

/**
 * Pending migrations, as `npm run migrate` applies them: their statements, and the wait for
 * another process's migrations (the turn), run without DATABASE_QUERY_TIMEOUT_MS. A service's
 * pool gives up on a statement after that limit, so a start while another process migrated for
 * longer, or a migration statement that took longer (an index built on a large table), failed
 * with a stack trace, and every restart failed again. So a service migrates on a session of its
 * own, closed once done; the table locks are still bounded (migrate.ts).
 */
async function migrateAtStart(config: Config, db: Db, options: OpenOptions): Promise<void> {
  if (!config.databaseUrl || options.role !== 'service' || config.databaseQueryTimeoutMs === 0) {
    await migrate(db, options.log);
    return;
  }
  const unlimited = connectPostgres(config.databaseUrl, { connectTimeoutMs: STARTUP_TIMEOUT_MS, idleInTransactionTimeoutMs: config.databaseIdleInTransactionTimeoutMs, max: 1 });
  try {
    await migrate(unlimited, options.log);
  } finally {
    await unlimited.close();
  }
}

export async function openRuntime(config: Config, options: OpenOptions = {}): Promise<Runtime> {
  config = await withKeyHashSecret(config);
  const metrics = createMetrics();
  // The remote backends first: they fail in milliseconds, opening the embedded database takes seconds.
  await checkEventLogEndpoints(config);
  const redis = config.redisUrl && options.redis !== false ? await connectRedis(config.redisUrl, config.redisCommandTimeoutMs, config.topicPrefix, options.log) : undefined;
  const opened: { close(): Promise<void> | void }[] = redis ? [{ close: () => redis.disconnect() }] : [];
  try {
    const { db, owner } = await openDatabase(config, options);
    opened.unshift(db);
    await migrateAtStart(config, db, options);
    const [setting, hint] = config.kafkaBrokers
      ? ['KAFKA_BROKERS', 'check that Kafka and the schema registry (SCHEMA_REGISTRY_URL) run there, and that Kafka lets this client create and use the topics whose names start with TOPIC_PREFIX']
      : ['DATABASE_URL', 'check the database'];
    const endpoint = config.kafkaBrokers?.join(',');
    const eventLog = await reachBackend(setting, hint, STARTUP_TIMEOUT_MS, () => openEventLog(config, db, metrics), endpoint);
    opened.unshift(eventLog);
    // Every topic, once per process: appends and projections then take their topics as given.
    const topicWarnings = options.ensureTopics === false ? [] : await reachBackend(setting, hint, TOPIC_CREATION_TIMEOUT_MS, () => eventLog.ensureTopics(TOPICS), endpoint);
    for (const warning of topicWarnings) (options.warn ?? options.log)?.(warning);
    let watermarks: Promise<Watermarks> | undefined;
    return {
      config,
      db,
      eventLog,
      redis,
      metrics,
      owner,
      watermarks: () => (watermarks ??= openWatermarks(db).then(sayNotificationGaps(options.log))),
      async close() {
        if (watermarks) await (await watermarks).close();
        for (const resource of opened) await resource.close();
      },
    };
  } catch (error) {
    for (const resource of opened) await Promise.resolve(resource.close()).catch(() => {});
    throw error;
  }
}

/** How long a command's backends may take to close once it has ended. */
const CLOSE_WAIT_MS = 5_000;

/**
 * Closes a command's backends, waiting a few seconds at most: a database that stopped answering
 * holds its sessions' close for good, and the command's process exits next anyway.
 */
export async function closeBeforeExit(runtime: Runtime): Promise<void> {
  await withinDeadline(runtime.close(), CLOSE_WAIT_MS);
}
