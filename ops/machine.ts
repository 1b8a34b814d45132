import { Redis } from 'ioredis';
import pg from 'pg';
import type { StackConfig } from './config.js';

/**
 * The stack's Postgres and Redis are the machine's own services: the stack never starts or stops
 * them, it only checks they answer and creates the project's databases.
 */

export function safeUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

async function withPostgres<T>(config: StackConfig, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: config.postgresUrl, connectionTimeoutMillis: 3_000 });
  client.on('error', () => {}); // a dropped connection surfaces through the query instead
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

export interface PostgresState {
  answers: boolean;
  missing: string[];
  error?: string;
}

export async function postgresState(config: StackConfig): Promise<PostgresState> {
  try {
    return await withPostgres(config, async (client) => {
      const found = await client.query<{ datname: string }>(
        'SELECT datname FROM pg_database WHERE datname = ANY($1::text[])',
        [config.databases],
      );
      const present = new Set(found.rows.map((row) => row.datname));
      return { answers: true, missing: config.databases.filter((name) => !present.has(name)) };
    });
  } catch (error) {
    return { answers: false, missing: config.databases, error: (error as Error).message };
  }
}

/** Creates the project's databases that do not exist yet; returns the names it created. */
export async function ensureDatabases(config: StackConfig): Promise<string[]> {
  const state = await postgresState(config);
  if (!state.answers) {
    throw new Error(`Postgres at ${safeUrl(config.postgresUrl)} does not answer (${state.error}). ` +
      'Start the machine\'s Postgres, or point STACK_POSTGRES_URL at one where this user may create databases.');
  }
  const created: string[] = [];
  await withPostgres(config, async (client) => {
    for (const name of state.missing) {
      try {
        await client.query(`CREATE DATABASE "${name}"`);
        created.push(name);
      } catch (error) {
        // Another run created it in the meantime.
        if ((error as { code?: string }).code !== '42P04') throw error;
      }
    }
  });
  return created;
}

/** Undefined when Redis answers PING, else why not. */
export async function redisProblem(config: StackConfig): Promise<string | undefined> {
  const redis = new Redis(config.redisUrl, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on('error', () => {}); // reported through connect() or ping()
  try {
    await redis.connect();
    const pong = await redis.ping();
    return pong === 'PONG' ? undefined : `PING answered ${pong}`;
  } catch (error) {
    return (error as Error).message;
  } finally {
    redis.disconnect();
  }
}
