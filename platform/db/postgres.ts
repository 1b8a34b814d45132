import pg from 'pg';
import { DATE_OID, INT8_OID, type Db, type QueryResult, type Sql } from './db.js';

const identity = (value: string) => value;

/** Same shapes as PGlite: see db.ts. */
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID || oid === DATE_OID) return identity;
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
};

function wrap(client: pg.Pool | pg.PoolClient): Sql {
  return {
    query<R>(text: string, params?: unknown[]): Promise<QueryResult<R>> {
      // The callback form: pg's promise form kept every result's rows alive until they reached the
      // old generation (measured: reading a 271k-row catalog in batches left ~95 MB there, ~5 MB
      // this way).
      return new Promise((resolve, reject) => {
        client.query({ text, values: params, types: typeParsers } as pg.QueryConfig, (error: Error | undefined, result: pg.QueryResult) => {
          if (error) reject(error);
          else resolve({ rows: result.rows as R[], rowCount: result.rowCount ?? 0 });
        });
      });
    },
    async exec(text: string) {
      await client.query(text);
    },
  };
}

export function connectPostgres(connectionString: string, options: { max?: number; connectTimeoutMs?: number } = {}): Db {
  // Every session in UTC, so timestamps never pick up the server's local zone.
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    options: '-c TimeZone=UTC',
    connectionTimeoutMillis: options.connectTimeoutMs ?? 0,
  });
  // A dropped idle connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const base = wrap(pool);
  return {
    engine: 'postgres',
    ...base,
    async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(wrap(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    listen: (channel, onPayload) => listenOn(connectionString, channel, onPayload),
    close: () => pool.end(),
  };
}

/**
 * LISTEN needs a session of its own (a pooled connection would be handed to others). A dropped
 * session is opened again; what was notified meanwhile is lost, so listeners also re-read state
 * after a reconnect (the watermarks do).
 */
async function listenOn(connectionString: string, channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  const connect = async () => {
    const next = new pg.Client({ connectionString, options: '-c TimeZone=UTC' });
    next.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) onPayload(message.payload);
    });
    next.on('error', () => {
      next.end().catch(() => {});
      if (!stopped) setTimeout(() => void connect().catch(() => {}), 500).unref();
    });
    await next.connect();
    await next.query(`LISTEN "${channel.replace(/"/g, '""')}"`);
    if (stopped) await next.end();
    else {
      client = next;
      onPayload('');
    }
  };
  await connect();
  return async () => {
    stopped = true;
    await client?.end().catch(() => {});
  };
}
