import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { migrate, type Migration } from '../../platform/db/migrate.js';
import { openRuntime } from '../../platform/runtime.js';
import { testEnvironment } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A migration at start-up while another session reads the table it changes (an export, an
 * analyst's query, the previous build's processes still serving): its ALTER waits for the
 * table's ACCESS EXCLUSIVE lock, and every later statement on the table queues behind it.
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
});
afterAll(async () => {
  await database?.drop();
});

const migration = (name: string, sql: string): Migration => ({ name, source: `${name}.sql`, sql: () => sql });
const created = migration('20990101_0000_busy', 'CREATE TABLE busy (id int PRIMARY KEY); INSERT INTO busy VALUES (1)');
const altered = migration('20990101_0001_busy_note', 'ALTER TABLE busy ADD COLUMN note text');

async function session(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

describe('a migration whose table another session is reading', () => {
  it('gives up its lock wait and retries, so reads of the table go on meanwhile; it applies once the table is free', async () => {
    expect(await migrate(database.db, () => {}, { migrations: [created] })).toEqual([created.name]);
    const longRead = await session(database.url);
    const reader = await session(database.url);
    const lines: string[] = [];
    try {
      await longRead.query('BEGIN');
      await longRead.query('SELECT * FROM busy');
      const migrating = migrate(database.db, (line) => lines.push(line), { migrations: [created, altered], lockTimeoutMs: 200 });
      migrating.catch(() => {});
      await waitFor(async () => (await reader.query("SELECT 1 FROM pg_locks WHERE locktype = 'relation' AND mode = 'AccessExclusiveLock' AND NOT granted")).rowCount! > 0, {
        what: 'the migration waiting for the table',
      });
      // A reader waits for at most the migration's lock timeout, however long the long read holds
      // the table. Without that timeout the ALTER stays queued and this read waits out its own.
      await reader.query("SET lock_timeout = '5s'");
      for (let read = 0; read < 3; read++) {
        await expect(reader.query('SELECT id FROM busy')).resolves.toMatchObject({ rows: [{ id: 1 }] });
      }
      await waitFor(() => lines.some((line) => line.includes('trying again')), { what: 'the migration to say it tries again' });
      await longRead.query('COMMIT');
      expect(await migrating).toEqual([altered.name]);
      const { rows } = await reader.query("SELECT column_name FROM information_schema.columns WHERE table_name = 'busy' ORDER BY ordinal_position");
      expect(rows.map((row) => row.column_name)).toEqual(['id', 'note']);
    } finally {
      await longRead.end().catch(() => {});
      await reader.end().catch(() => {});
    }
  }, 60_000);

  it('does not bound the wait for another process migrating (the advisory lock): it waits for its turn', async () => {
    const other = await session(database.url);
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_advisory_xact_lock(7311992)');
      const lines: string[] = [];
      const migrating = migrate(database.db, (line) => lines.push(line), { migrations: [created, altered], lockTimeoutMs: 50 });
      let settled = false;
      void migrating.then(() => (settled = true), () => (settled = true));
      await waitFor(async () => (await other.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rowCount === 1, { what: 'the migration waiting for its turn' });
      expect(settled).toBe(false);
      expect(lines.filter((line) => line.includes('trying again'))).toEqual([]);
      await other.query('COMMIT');
      expect(await migrating).toEqual([]);
    } finally {
      await other.end().catch(() => {});
    }
  }, 60_000);
});


describe('a service starting while another process migrates for longer than DATABASE_QUERY_TIMEOUT_MS', () => {
  it('waits for its turn and migrates, as npm run migrate does, instead of failing its start on the statement limit', async () => {
    const fresh = await createTestDatabase({ migrate: false });
    const other = await session(fresh.url);
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_advisory_xact_lock(7311992)');
      const config = loadConfig(testEnvironment(fresh, 'tmigrateturn.', { eventLog: 'sql', env: { DATABASE_QUERY_TIMEOUT_MS: '300' } }));
      const starting = openRuntime(config, { role: 'service', redis: false });
      let failed: unknown;
      starting.catch((error: unknown) => (failed = error));
      await waitFor(async () => (await other.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rowCount === 1, { what: 'the start waiting for its turn' });
      // Well past the service's statement limit (and its client's second of grace).
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(failed).toBeUndefined();
      await other.query('COMMIT');
      const runtime = await starting;
      try {
        const { rows } = await runtime.db.query<{ applied: string }>('SELECT count(*)::text AS applied FROM schema_migrations');
        expect(Number(rows[0]!.applied)).toBeGreaterThan(0);
        // The service's own sessions keep their limit.
        const limit = await runtime.db.query<{ timeout: string }>("SELECT current_setting('statement_timeout') AS timeout");
        expect(limit.rows[0]!.timeout).toBe('300ms');
      } finally {
        await runtime.close();
      }
    } finally {
      await other.end().catch(() => {});
      await fresh.drop();
    }
  }, 60_000);
});
