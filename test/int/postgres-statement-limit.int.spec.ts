import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPostgres } from '../../platform/db/postgres.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/**
 * A service's statement that runs past DATABASE_QUERY_TIMEOUT_MS on a busy server: the service
 * stops waiting for it, and the server must stop running it too. Given up only by the client,
 * it ran on (holding its locks and its connection) while the pool opened a new session for the
 * next caller, so a slow database gathered more and more backends until it refused connections.
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(async () => {
  await database?.drop();
});

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

describe('a statement that runs past the query timeout', () => {
  it('is cancelled by the server: nothing given up on goes on running there', async () => {
    const db = connectPostgres(database.url, { max: 2, queryTimeoutMs: 300 });
    try {
      for (let round = 0; round < 4; round++) {
        await expect(db.query('SELECT pg_sleep(30) AS statement_limit_probe')).rejects.toMatchObject({ code: '57014' });
        await expect(db.transaction((tx) => tx.query('SELECT pg_sleep(30) AS statement_limit_probe'))).rejects.toMatchObject({ code: '57014' });
      }
      const running = await admin((client) =>
        client.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE '%statement_limit_probe%' AND pid <> pg_backend_pid()"),
      );
      expect(running.rows).toEqual([]);
    } finally {
      await db.close();
    }
  }, 60_000);

  it('leaves commands (no query timeout) to the server, database or role settings', async () => {
    const db = connectPostgres(database.url);
    try {
      const { rows } = await db.query<{ timeout: string }>("SELECT current_setting('statement_timeout') AS timeout");
      expect(rows[0]!.timeout).toBe('0');
    } finally {
      await db.close();
    }
  });
});

describe('a session whose client host vanishes', () => {
  it('is probed by the server after 10 s idle, not after its default 2 hours', async () => {
    const db = connectPostgres(database.url, { queryTimeoutMs: 60_000 });
    try {
      const settings = "SELECT current_setting('tcp_keepalives_idle') AS idle, current_setting('tcp_keepalives_interval') AS every, current_setting('tcp_keepalives_count') AS count";
      expect((await db.query(settings)).rows[0]).toEqual({ idle: '10', every: '5', count: '3' });
    } finally {
      await db.close();
    }
  });
});
