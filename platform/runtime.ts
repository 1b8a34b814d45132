import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Config } from './config/config.js';
import { withKeyHashSecret } from './config/key-hash-secret.js';
import type { Db } from './db/db.js';
import { migrate } from './db/migrate.js';
import { openPglite } from './db/pglite.js';
import { connectPostgres } from './db/postgres.js';
import type { EventLog } from './events/event-log.js';
import { openEventLog } from './events/open-event-log.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';

/** The backends of one process, chosen from the configuration; routes and projections only see this. */
export interface Runtime {
  config: Config;
  db: Db;
  eventLog: EventLog;
  redis?: Redis;
  metrics: Metrics;
  close(): Promise<void>;
}

export async function openDatabase(config: Config): Promise<Db> {
  return config.databaseUrl ? connectPostgres(config.databaseUrl) : openPglite(join(config.dataDir, 'pg'));
}

export async function openRuntime(config: Config, options: { log?: (line: string) => void } = {}): Promise<Runtime> {
  config = await withKeyHashSecret(config);
  const metrics = createMetrics();
  const db = await openDatabase(config);
  await migrate(db, options.log);
  const eventLog = await openEventLog(config, db, metrics);
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false })
    : undefined;
  if (redis) await redis.connect();
  return {
    config,
    db,
    eventLog,
    redis,
    metrics,
    async close() {
      await eventLog.close();
      if (redis) redis.disconnect();
      await db.close();
    },
  };
}
