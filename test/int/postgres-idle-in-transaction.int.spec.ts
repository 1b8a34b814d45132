import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idleInTransactionAtMost } from '../../platform/db/postgres.js';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { applyBatch } from '../../platform/projection/runner.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { exportReadModel } from '../../services/export/export-read-model.js';
import { postbackEvents } from '../support/postback-events.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A process paused or wedged inside a transaction (SIGSTOP, a frozen container) keeps its session
 * open: the kernel still answers the server's keepalives. Without a bound the server waits for
 * it for good, and its locks (a projector's offset rows, the admin-command turn) and its
 * connection with it.
 */
const LOCK_KEY = 7_311_900;
let t: TestRuntime;

beforeAll(async () => {
  t = await createTestRuntime({ env: { DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '300', DATABASE_POOL_SIZE: '1' } });
});
afterAll(async () => {
  await t?.close();
});

/** Whether a session of the test database with this pid is still there, asked on a session outside the runtime's pool. */
const sessionExists = async (pid: number) =>
  (await t.database.db.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rows.length > 0;

describe('a session of the service left idle in a transaction', () => {
  it('is ended by the server, its locks let go, and the pool answers the next caller on a new session', async () => {
    let stalledPid = 0;
    const stalled = t.runtime.db.transaction(async (tx) => {
      stalledPid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
      // The process "stalls": it sends nothing until its session is gone.
      await waitFor(async () => !(await sessionExists(stalledPid)), { timeoutMs: 15_000, what: 'the server to end the session idle in its transaction' });
      await tx.query('SELECT 1');
    });
    await expect(stalled).rejects.toThrow();
    const { rows: free } = await t.database.db.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [LOCK_KEY]);
    expect(free[0]!.locked).toBe(true);
    await t.database.db.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
    // A pool of one: the next caller gets a new session, not the ended one.
    const { rows } = await t.runtime.db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(rows[0]!.pid).not.toBe(stalledPid);
    expect((await t.runtime.db.transaction((tx) => tx.query<{ one: number }>('SELECT 1 AS one'))).rows).toEqual([{ one: 1 }]);
  });

  it('a transaction that waits on other work on purpose sets its own bound', async () => {
    const bound = await t.runtime.db.transaction(async (tx) => {
      const session = (await tx.query<{ timeout: string }>("SELECT current_setting('idle_in_transaction_session_timeout') AS timeout")).rows[0]!.timeout;
      await tx.exec(idleInTransactionAtMost(0));
      const own = (await tx.query<{ timeout: string }>("SELECT current_setting('idle_in_transaction_session_timeout') AS timeout")).rows[0]!.timeout;
      return { session, own };
    });
    expect(bound).toEqual({ session: '300ms', own: '0' });
    // Only for that transaction.
    const { rows } = await t.runtime.db.query<{ timeout: string }>("SELECT current_setting('idle_in_transaction_session_timeout') AS timeout");
    expect(rows[0]!.timeout).toBe('300ms');
  });

  it('a read model export paced by a slow file keeps its snapshot: it holds no lock a writer waits for', async () => {
    // More than one page (5,000 rows), so the export goes back to its snapshot after a slow write.
    const events = postbackEvents(10_500).map((event, offset): LoggedEvent => ({
      topic: 'postbacks', partition: 0, offset: String(offset), key: event.key, type: event.type, value: event.value, schemaId: 1, timestamp: new Date(0),
    }));
    // In fetch-sized batches: deciding one batch's events is the projector's work between two statements.
    for (let from = 0; from < events.length; from += 500) {
      await applyBatch(t.runtime.db, ledgerProjection, { topic: 'postbacks', partition: 0, events: events.slice(from, from + 500) });
    }
    const dir = mkdtempSync(join(tmpdir(), 'idle-export-'));
    try {
      const slowDisk = {
        start() {},
        // The disk takes longer than the session bound over the first page (blocking, as a stalled write would).
        update(done: number) {
          if (done > 5_000) return;
          const until = performance.now() + 900;
          while (performance.now() < until);
        },
        stop() {},
      };
      const result = await exportReadModel(t.runtime.db, { readModel: 'postback_log', format: 'ndjson', out: join(dir, 'log.ndjson') }, slowDisk);
      expect(result.rows).toBe(10_500);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

