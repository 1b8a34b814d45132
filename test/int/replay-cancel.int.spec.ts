import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableChecksum } from '../../platform/projection/checksum.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import type { Db } from '../../platform/db/db.js';
import { dropSchemas, keptReplaySchemas } from '../../platform/projection/replay-schema.js';
import { replay } from '../../platform/projection/replay.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { renderSummary } from '../../services/replay/summary.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, testEnvironment, type TestRuntime } from '../support/app.js';
import { startNpmScript, startServiceProcess } from '../support/child-process.js';
import { heldImportArgs, heldImportLine } from '../support/held-import.js';
import { postbackEvents } from '../support/postback-events.js';
import { blockedBy } from '../support/blocked-by.js';
import { holdLock } from '../support/held-lock.js';
import { waitFor } from '../support/wait-for.js';

type App = Awaited<ReturnType<typeof createTestApp>>['app'];
const ADMIN_TOKEN = 'admin-token-for-replay-cancel-tests-0123456789';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

/**
 * A replay stopped by its caller (Ctrl-C of the CLI, DELETE on the admin API) stops before its
 * swap and drops its schemas: Ctrl-C of `replay --swap` once left the service to swap anyway.
 * The replay is held mid-rebuild by a lock on the log's table (the sql log), so the cancel
 * always lands while it runs; the lock is let go once the cancel is sent.
 */
describe('cancelling a replay', () => {
  let t: TestRuntime & { app: App };
  let projectors: RunningProjectors;
  let env: Record<string, string>;

  const replaySchemas = async () =>
    (await t.runtime.db.query<{ name: string }>("SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'replay%' ORDER BY 1")).rows.map((row) => row.name);
  const ledger = async () => Promise.all(ledgerProjection.tables.map((table) => tableChecksum(t.runtime.db, table)));

  /** Holds every read of the log until `release` is called. */
  async function holdTheLog() {
    const session = new pg.Client({ connectionString: t.database.url });
    await session.connect();
    await session.query('BEGIN');
    await session.query('LOCK TABLE event_log IN ACCESS EXCLUSIVE MODE');
    return {
      async release() {
        await session.query('COMMIT');
        await session.end();
      },
    };
  }

  beforeAll(async () => {
    t = await createTestApp({ eventLog: 'sql', env: { ADMIN_TOKEN } });
    env = testEnvironment(t.database, t.topicPrefix, { eventLog: 'sql' });
    projectors = await startProjectors(t.runtime);
    await t.runtime.eventLog.append('postbacks', postbackEvents(60));
    await awaitCaughtUp(t.runtime, [ledgerProjection], 30_000);
  });
  afterAll(async () => {
    await projectors?.stop();
    await t?.close();
  });

  it('DELETE /admin/replays/{id} stops a running replay before its swap: cancelled, its schemas dropped, the live read models as they were', async () => {
    const before = await ledger();
    const hold = await holdTheLog();
    let id: string;
    try {
      const started = await t.app.inject({ method: 'POST', url: '/admin/replays', headers: admin, payload: { projections: ['ledger'], swap: true } });
      expect(started.statusCode, started.body).toBe(202);
      id = started.json().data.job.id;
      await waitFor(async () => (await replaySchemas()).length > 0, { what: 'the replay schema' });
      const cancelled = await t.app.inject({ method: 'DELETE', url: `/admin/replays/${id}`, headers: admin });
      expect(cancelled.statusCode, cancelled.body).toBe(200);
    } finally {
      await hold.release();
    }
    const job = await waitFor(async () => {
      const found = (await t.app.inject({ method: 'GET', url: `/admin/replays/${id!}`, headers: admin })).json().data.job;
      return found.state === 'running' ? undefined : found;
    }, { what: 'the replay to stop' });
    expect(job).toMatchObject({ state: 'cancelled', error: { message: 'cancelled before the swap: nothing was swapped and its replay schemas were dropped' } });
    expect(job.report).toBeUndefined();
    expect(await replaySchemas()).toEqual([]);
    expect(await ledger()).toEqual(before);
    // A finished or unknown job: nothing to cancel.
    expect((await t.app.inject({ method: 'DELETE', url: `/admin/replays/${id!}`, headers: admin })).json().data.job.state).toBe('cancelled');
    expect((await t.app.inject({ method: 'DELETE', url: '/admin/replays/00000000-0000-4000-8000-000000000000', headers: admin })).statusCode).toBe(404);
  });

  it('a stopped replay whose schemas cannot be dropped leaves them marked as under way (a partial rebuild once stale), never as a finished one', async () => {
    const refusingDrops = refusingSchemaDrops(t.runtime.db);
    const hold = await holdTheLog();
    const stop = new AbortController();
    let replaying: Promise<unknown>;
    try {
      replaying = replay(refusingDrops, t.runtime.eventLog, { projections: [ledgerProjection], signal: stop.signal });
      replaying.catch(() => {});
      await waitFor(async () => (await replaySchemas()).length > 0, { what: 'the replay schema' });
      stop.abort(new Error('stopped by the test'));
    } finally {
      await hold.release();
    }
    await expect(replaying!).rejects.toThrow(/could not be dropped/);
    const left = await replaySchemas();
    try {
      expect(left.length).toBeGreaterThan(0);
      const { rows } = await t.runtime.db.query<{ mark: string | null }>("SELECT obj_description(oid, 'pg_namespace') AS mark FROM pg_namespace WHERE nspname = $1", [left[0]]);
      expect(rows[0]!.mark).toMatch(/^offer-ledger replay under way, heartbeat /);
      // Not offered as a kept rebuild (to export, or to take for a finished one).
      expect(await keptReplaySchemas(t.runtime.db)).toEqual([]);
    } finally {
      await dropSchemas(t.runtime.db, left);
    }
  });

  it('a swap whose schemas cannot be dropped afterwards is still a swap: the report names them to drop, not a failure saying nothing was kept', async () => {
    const report = await replay(refusingSchemaDrops(t.runtime.db), t.runtime.eventLog, { projections: [ledgerProjection], swap: true });
    try {
      expect(report).toMatchObject({ swapped: true, identical: true, kept: [] });
      expect(report.leftBehind).toEqual([report.schema, `${report.schema}_live`, `${report.schema}_retired`]);
      expect(renderSummary(report)).toContain(`left behind: ${report.leftBehind!.join(', ')} could not be dropped (the database failed then); once it answers, drop them with npm run replay -- --drop `);
      expect(await replaySchemas()).toEqual([...report.leftBehind!].sort());
    } finally {
      await dropSchemas(t.runtime.db, await replaySchemas());
    }
  });

  /** Holds ACCESS EXCLUSIVE locks on the live ledger tables until `release`. */
  const lockTheLiveLedger = () => holdLock(t.database.url, `LOCK TABLE ${ledgerProjection.tables.join(', ')} IN ACCESS EXCLUSIVE MODE`);

  // A statement of the replay's (a table copied, an index built, a lock waited for) can take
  // minutes on a large read model: a cancel that waited for it outlived the service's 10 s
  // shutdown deadline, which left the replay's schemas. Here each waits on a lock the test keeps.
  it('a cancel cuts short the statement the replay waits on (creating its tables beside locked live ones): it ends at once, nothing left', async () => {
    const lock = await lockTheLiveLedger();
    const stop = new AbortController();
    try {
      const replaying = replay(t.runtime.db, t.runtime.eventLog, { projections: [ledgerProjection], signal: stop.signal });
      replaying.catch(() => {});
      await waitFor(() => blockedBy(t.runtime.db, lock.pid, '%(LIKE %'), { what: 'the replay to wait on the locked live tables' });
      const reason = new Error('stopped by the test');
      stop.abort(reason);
      // The lock is still held: the replay ended without waiting for it.
      await expect(replaying).rejects.toBe(reason);
      expect(await replaySchemas()).toEqual([]);
    } finally {
      await lock.release();
    }
  });

  it('a cancel cuts short the copy of the live tables the replay compares with: it ends at once, its schemas dropped', async () => {
    let hold: Awaited<ReturnType<typeof holdTheLog>> | undefined = await holdTheLog();
    let lock: Awaited<ReturnType<typeof lockTheLiveLedger>> | undefined;
    const stop = new AbortController();
    try {
      const replaying = replay(t.runtime.db, t.runtime.eventLog, { projections: [ledgerProjection], signal: stop.signal });
      replaying.catch(() => {});
      // Its tables are created; it waits for the log. Then the live tables are locked, and the
      // log let go: once rebuilt to the live positions the replay copies the live tables.
      await waitFor(async () => (await replaySchemas()).length > 0, { what: 'the replay schema' });
      lock = await lockTheLiveLedger();
      await hold.release();
      hold = undefined;
      await waitFor(() => blockedBy(t.runtime.db, lock!.pid, '%AS TABLE%'), { what: 'the copy of the live tables to wait on their locks' });
      const reason = new Error('stopped by the test');
      stop.abort(reason);
      await expect(replaying).rejects.toBe(reason);
      expect(await replaySchemas()).toEqual([]);
    } finally {
      await lock?.release();
      await hold?.release();
    }
  });

  it('Ctrl-C while the replay is still loading (its first seconds) exits 130 saying it created nothing, not silently', async () => {
    const replaying = startServiceProcess('services/replay/cli.ts', env, ['--projection', 'ledger', '--swap'], heldImportArgs('pg'));
    await replaying.waitForLine((line) => line === heldImportLine('pg'));
    replaying.child.kill('SIGINT');
    expect(await replaying.exited, replaying.output()).toBe(130);
    expect(replaying.output()).toContain('error: replay interrupted (SIGINT) before it started: it created nothing\n');
    expect(await replaySchemas()).toEqual([]);
  });

  it('Ctrl-C of replay --swap stops it before the swap, drops its schemas and exits 130 saying so (the copies of one press a terminal and npm deliver are one)', async () => {
    const before = await ledger();
    const hold = await holdTheLog();
    // As typed in a terminal: npm and the replay get the Ctrl-C together, and npm passes its copy on.
    const replaying = startNpmScript('replay', ['--projection', 'ledger', '--swap'], env);
    try {
      await waitFor(async () => (await replaySchemas()).length > 0, { what: 'the replay schema', abandon: () => (replaying.child.exitCode === null ? undefined : new Error(replaying.output())) });
      replaying.pressCtrlC();
      await replaying.waitForLine((line) => line.startsWith('SIGINT: stopping the replay and dropping its schemas'));
    } finally {
      await hold.release();
    }
    expect(await replaying.exited, replaying.output()).toBe(130);
    expect(replaying.output()).toContain('error: replay interrupted (SIGINT) before the swap: nothing was swapped and its replay schemas were dropped');
    expect(replaying.output()).not.toContain('left at once');
    expect(await replaySchemas()).toEqual([]);
    expect(await ledger()).toEqual(before);
  });
});

/** `db`, whose every DROP SCHEMA fails (the database went away just then) and everything else is answered. */
function refusingSchemaDrops(db: Db): Db {
  return new Proxy(db, {
    get(target, property) {
      if (property === 'query') {
        return (text: string, values?: unknown[]) => (/^DROP SCHEMA/.test(text) ? Promise.reject(new Error('the database went away')) : target.query(text, values));
      }
      const value = Reflect.get(target, property) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
