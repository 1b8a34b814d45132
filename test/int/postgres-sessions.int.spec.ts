import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

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
