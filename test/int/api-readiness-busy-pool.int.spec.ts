import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestRuntime } from '../support/app.js';
import { waitFor } from '../support/wait-for.js';
import type { FastifyInstance } from 'fastify';

/**
 * Readiness says whether the backends answer, not whether this process is busy: a balancer that
 * took every API out while slow requests held their pools would turn a load spike into an outage.
 * The database is asked on a session of its own, outside the pool requests use.
 */
const LOCK_KEY = 7_311_901;
const POOL_SIZE = 2;
let t: TestRuntime & { app: FastifyInstance };

beforeAll(async () => {
  t = await createTestApp({ env: { DATABASE_POOL_SIZE: String(POOL_SIZE) } });
});
afterAll(async () => {
  await t?.close();
});

/** The runtime's sessions waiting for the lock a test holds: each one a pooled session taken. */
const waitingForTheLock = async () =>
  Number(
    (await t.database.db.query<{ waiting: string }>(
      "SELECT count(*) AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%'",
    )).rows[0]!.waiting,
  );

describe('/readyz while requests hold every session of the pool', () => {
  it('still reports the database ok: it is asked on a session of its own', async () => {
    const holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
      // Statements of the runtime's pool, as slow requests would run them, each holding its session until the lock is let go.
      const held = Array.from({ length: POOL_SIZE }, () => t.runtime.db.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]));
      await waitFor(async () => (await waitingForTheLock()) === POOL_SIZE, { what: 'every session of the pool to be taken' });
      const ready = await t.app.inject('/readyz');
      expect(ready.json().data.backends).toMatchObject({ database: 'ok' });
      expect(ready.statusCode).toBe(200);
      await holder.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
      await Promise.all(held);
    } finally {
      await holder.end();
    }
  });

  it('reports the database unavailable when it refuses connections, and ok again once it takes them', async () => {
    await t.database.whileRefusing(async () => {
      const unready = await t.app.inject('/readyz');
      expect(unready.statusCode).toBe(503);
      expect(unready.json().extra.backends.database).toMatch(/^unavailable: /);
    });
    const ready = await t.app.inject('/readyz');
    expect(ready.json().data.backends).toMatchObject({ database: 'ok' });
  });
});
