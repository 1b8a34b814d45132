import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { connectPostgres } from '../../platform/db/postgres.js';
import { openRuntime } from '../../platform/runtime.js';
import { buildApp } from '../../services/api/app.js';
import { testEnvironment } from '../support/app.js';
import { cuttingProxy } from '../support/cutting-proxy.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Postgres sessions ended under the service (a restart, a failover, an administrator): the
 * statement or transaction on that session fails, the process lives on, and the next caller
 * gets a new session.
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

async function terminate(pid: number) {
  const admin = new pg.Client({ connectionString: inject('stack').postgresAdminUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}

describe('a Postgres session ended under the service', () => {
  it('inside a transaction: the transaction fails (no crash), and the next one runs on a new session', async () => {
    let ended = 0;
    const transaction = database.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      ended = rows[0]!.pid;
      await terminate(ended);
      // The session is gone: this statement fails, and the session's end arrives as an 'error'
      // event on a client checked out of the pool, which would end the process if unheard.
      await tx.query('SELECT 1');
    });
    await expect(transaction).rejects.toThrow();
    const next = await database.db.transaction((tx) => tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'));
    expect(next.rows[0]!.pid).not.toBe(ended);
  });
});

/** The test database behind a proxy the test can make swallow traffic, connected as a service connects (runtime.ts): new sessions give up too while the server does not answer. */
async function behindProxy(max: number) {
  const url = new URL(database.url);
  const proxy = await cuttingProxy({ host: url.hostname, port: Number(url.port) });
  url.port = String(proxy.port);
  return { proxy, db: connectPostgres(url.toString(), { max, queryTimeoutMs: 1_000, connectTimeoutMs: 3_000 }) };
}

describe('a Postgres session whose server stops answering while the connection stays open', () => {
  it('fails its statement after DATABASE_QUERY_TIMEOUT_MS and is discarded: once answers come again, statements and transactions run on new sessions', async () => {
    const { proxy, db } = await behindProxy(2);
    try {
      expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      proxy.swallow();
      // More than the pool holds, by both paths: each fails instead of waiting for good.
      const stuck = [db.query('SELECT 1'), db.query('SELECT 2'), db.transaction((tx) => tx.query('SELECT 3')), db.query('SELECT 4')];
      for (const statement of stuck) await expect(statement).rejects.toThrow(/timeout/i);
      proxy.heal();
      // The sessions that lost their answers were given up; these run on new ones (before, the
      // pool handed out the stuck sessions and every statement waited behind them for good).
      expect((await db.query<{ two: number }>('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
      expect((await db.transaction((tx) => tx.query<{ three: number }>('SELECT 3 AS three'))).rows).toEqual([{ three: 3 }]);
      expect((await Promise.all([db.query('SELECT 4'), db.query('SELECT 5')])).length).toBe(2);
    } finally {
      await db.close().catch(() => {});
      await proxy.close();
    }
  }, 60_000);
});

describe('a COPY whose server stops answering while the connection stays open', () => {
  it('fails after DATABASE_QUERY_TIMEOUT_MS without an unhandled error (the failed stream is told twice), and the next COPY runs on a new session', async () => {
    await database.db.exec('CREATE TABLE IF NOT EXISTS copy_stall (id text PRIMARY KEY)');
    const { proxy, db } = await behindProxy(2);
    const rows = (prefix: string) => Array.from({ length: 500 }, (_, index) => `${prefix}-${index}`).join('\n') + '\n';
    try {
      await db.transaction((tx) => tx.copyFrom('copy_stall', ['id'], rows('before')));
      proxy.swallow();
      // Outside a transaction and inside one: each lent session fails, is discarded, and pg
      // fails its COPY stream once more as it closes the connection.
      await expect(db.copyFrom('copy_stall', ['id'], rows('stalled-alone'))).rejects.toThrow(/timeout/i);
      await expect(db.transaction((tx) => tx.copyFrom('copy_stall', ['id'], rows('stalled-in-tx')))).rejects.toThrow(/timeout/i);
      proxy.heal();
      await db.transaction((tx) => tx.copyFrom('copy_stall', ['id'], rows('after')));
      const { rows: counted } = await database.db.query<{ prefix: string; count: string }>(
        "SELECT split_part(id, '-', 1) AS prefix, count(*)::text AS count FROM copy_stall GROUP BY 1 ORDER BY 1",
      );
      expect(counted).toEqual([{ prefix: 'after', count: '500' }, { prefix: 'before', count: '500' }]);
    } finally {
      await db.close().catch(() => {});
      await proxy.close();
    }
  }, 60_000);
});

describe('a listening session whose server stops answering while the connection stays open', () => {
  it('proves itself, is dropped (listeners told notifications may have been missed) and opened again; notifications arrive after', async () => {
    const { proxy, db } = await behindProxy(1);
    const heard: string[] = [];
    let unlisten: (() => Promise<void>) | undefined;
    try {
      unlisten = await db.listen('listen_probe_test', (payload) => heard.push(payload));
      // Opening the session is itself a possible gap.
      expect(heard).toEqual(['']);
      proxy.swallow();
      // Nothing else happens on the session: only its own probe can find it hung.
      await waitFor(() => heard.length > 1, { timeoutMs: 20_000, intervalMs: 100, what: 'the hung listening session to be given up' });
      expect(heard).toEqual(['', '']);
      proxy.heal();
      // Sent straight to the server: heard once the session is open again.
      await waitFor(async () => {
        await database.db.query(`SELECT pg_notify('listen_probe_test', 'after')`);
        return heard.includes('after');
      }, { timeoutMs: 30_000, intervalMs: 250, what: 'a notification on the reopened session' });
    } finally {
      await unlisten?.();
      await db.close().catch(() => {});
      await proxy.close();
    }
  }, 90_000);

  it('is still probed when the wall clock has been stepped back (an NTP correction) since it last heard anything', async () => {
    const { proxy, db } = await behindProxy(1);
    const heard: string[] = [];
    let unlisten: (() => Promise<void>) | undefined;
    const wallClock = Date.now.bind(Date);
    try {
      unlisten = await db.listen('listen_probe_step_test', (payload) => heard.push(payload));
      expect(heard).toEqual(['']);
      vi.spyOn(Date, 'now').mockImplementation(() => wallClock() - 10 * 60_000);
      proxy.swallow();
      await waitFor(() => heard.length > 1, { timeoutMs: 20_000, intervalMs: 100, what: 'the hung listening session to be given up' });
      expect(heard).toEqual(['', '']);
    } finally {
      vi.restoreAllMocks();
      proxy.heal();
      await unlisten?.();
      await db.close().catch(() => {});
      await proxy.close();
    }
  }, 90_000);
});

describe("a service's listening session that ends", () => {
  it('is said in the log, as the caches it empties are', async () => {
    const lines: string[] = [];
    const runtime = await openRuntime(loadConfig(testEnvironment(database, 'listen-log.')), { log: (line) => lines.push(line) });
    try {
      await runtime.watermarks();
      expect(lines.filter((line) => line.startsWith('projection notifications:'))).toEqual([]);
      await database.db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'");
      await waitFor(() => lines.some((line) => line.startsWith('projection notifications: the listening session dropped or was reopened')), { what: 'the gap to be logged' });
    } finally {
      await runtime.close();
    }
  }, 60_000);
});

describe('the admin routes of kept replay schemas while Postgres is down or hung', () => {
  it('answer 503 REPLAY_UNAVAILABLE to retry, never a 500, and list again once it answers', async () => {
    const ADMIN_TOKEN = 'admin-token-for-postgres-session-tests-0123';
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const url = new URL(database.url);
    const proxy = await cuttingProxy({ host: url.hostname, port: Number(url.port) });
    url.port = String(proxy.port);
    const runtime = await openRuntime(loadConfig({ ...testEnvironment(database, `tk${Date.now()}.`, { env: { ADMIN_TOKEN, DATABASE_QUERY_TIMEOUT_MS: '2000' } }), DATABASE_URL: url.toString() }));
    const app = await buildApp({ runtime });
    try {
      expect((await app.inject({ method: 'GET', url: '/admin/replays/kept', headers: admin })).json()).toMatchObject({ code: 'SUCCESS', data: { schemas: [] } });
      for (const fail of [() => proxy.refuse(), () => proxy.swallow()]) {
        fail();
        const kept = await app.inject({ method: 'GET', url: '/admin/replays/kept', headers: admin });
        expect(kept.statusCode, kept.body).toBe(503);
        expect(kept.json()).toMatchObject({ code: 'REPLAY_UNAVAILABLE', data: {} });
        const drop = await app.inject({ method: 'POST', url: '/admin/replays/drop', headers: admin, payload: { schemas: ['replay_20260101t000000z_0001'] } });
        expect(drop.statusCode, drop.body).toBe(503);
        expect(drop.json()).toMatchObject({ code: 'REPLAY_UNAVAILABLE', data: {} });
        proxy.heal();
        await waitFor(async () => (await app.inject({ method: 'GET', url: '/admin/replays/kept', headers: admin })).statusCode === 200, { timeoutMs: 20_000, what: 'the kept schemas listed again' });
      }
    } finally {
      await app.close();
      // The proxy first: sessions whose answers it swallowed end with it instead of waiting on a goodbye.
      await proxy.close();
      await runtime.close().catch(() => {});
    }
  }, 90_000);
});
