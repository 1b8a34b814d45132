import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { tableChecksum } from '../../platform/projection/checksum.js';
import { dropSchemas } from '../../platform/projection/replay-schema.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { createTestRuntime, testEnvironment, type TestRuntime } from '../support/app.js';
import { blockedBy } from '../support/blocked-by.js';
import { holdLock } from '../support/held-lock.js';
import { postbackEvents } from '../support/postback-events.js';
import { startApi, type ApiProcess } from '../support/service-processes.js';
import { waitFor } from '../support/wait-for.js';

const ADMIN_TOKEN = 'admin-token-for-replay-shutdown-tests-0123456789';
// Each test starts the API (projectors inline, on Kafka) and replays through the log's consumers.
const PROCESS_TESTS_MS = 180_000;

/**
 * SIGTERM of the API while a replay it runs for the admin API is under way: the shutdown closed
 * the backends under the replay, which failed half-way and left its replay_… schemas (later
 * listed as a partial, stale replay). Now the shutdown stops it as a cancel does, or lets a swap
 * under way finish, and exits 0 with nothing left. The replay is held on a lock the test's own
 * session takes, and let go only once the shutdown has reached the step that stops the replay:
 * let go earlier, the replay could finish on its own during the shutdown's first steps. An
 * operator following the replay on the admin API reads how it ended: the HTTP server closes only
 * after that (it closed first, and the follower lost the service instead).
 */
describe('stopping the API while it runs a replay', () => {
  let t: TestRuntime;
  let env: Record<string, string>;
  let api: ApiProcess | undefined;

  const replaySchemas = async () =>
    (await t.runtime.db.query<{ name: string }>("SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'replay%' ORDER BY 1")).rows.map((row) => row.name);
  const ledger = async () => Promise.all(ledgerProjection.tables.map((table) => tableChecksum(t.runtime.db, table)));
  const liveTableIds = async () =>
    (await t.runtime.db.query<{ id: string }>('SELECT to_regclass(name)::oid::text AS id FROM unnest($1::text[]) AS name', [ledgerProjection.tables])).rows.map((row) => row.id);

  async function startReplay(body: Record<string, unknown>): Promise<string> {
    const response = await fetch(`${api!.url}/admin/replays`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    expect(response.status, text).toBe(202);
    return (JSON.parse(text) as { data: { job: { id: string } } }).data.job.id;
  }

  /**
   * An operator's script following its replay on the admin API, as the replay CLI does on the
   * owner socket: polls its state (on a kept-alive connection, as fetch does) until it is no
   * longer running. Resolves with the last state read, or with what ended the polling (the
   * service no longer answering).
   */
  async function follow(id: string): Promise<{ job?: { state: string; error?: Record<string, unknown> }; failure?: unknown }> {
    for (;;) {
      let job;
      try {
        const response = await fetch(`${api!.url}/admin/replays/${id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        job = ((await response.json()) as { data: { job?: { state: string } } }).data.job;
      } catch (failure) {
        return { failure };
      }
      if (job?.state !== 'running') return { job };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * Sends SIGTERM once the replay waits on the lock, and lets the lock go once the shutdown says
   * it is stopping that replay; resolves with the exit code.
   */
  async function stopWhileHeld(held: { pid: number; release(): Promise<void> }, id: string, statement: string) {
    const service = api!;
    try {
      await waitFor(() => blockedBy(t.runtime.db, held.pid, statement), {
        what: 'the replay to wait on the lock the test holds',
        abandon: () => (service.child.exitCode === null ? undefined : new Error(service.output())),
      });
      service.child.kill('SIGTERM');
      // Never logged without the shutdown step: the process then exits (the backends closed under the replay) first.
      await service.waitForLog((entry) => entry.msg === `shutdown: stopping the replay ${id} under way`);
    } finally {
      await held.release();
    }
    return service.exited;
  }

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'kafka' });
    // info: the shutdown's lines are what the test follows; no drain, nothing is connected to drain.
    env = testEnvironment(t.database, t.topicPrefix, { eventLog: 'kafka', env: { ADMIN_TOKEN, LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '0' } });
    await t.runtime.eventLog.append('postbacks', postbackEvents(30));
  }, PROCESS_TESTS_MS);
  afterAll(async () => {
    await api?.stop('SIGKILL');
    await t?.close();
  });

  it('SIGTERM before the swap: the replay is cancelled saying the service stopped, its schemas dropped, and the API exits 0', async () => {
    api = await startApi(env);
    await awaitCaughtUp(t.runtime, [ledgerProjection], 60_000);
    const before = await ledger();
    // The replay's first step creates its tables LIKE the live ones, which waits for this lock.
    const held = await holdLock(t.database.url, `LOCK TABLE ${ledgerProjection.tables.join(', ')} IN ACCESS EXCLUSIVE MODE`);
    const id = await startReplay({ projections: ['ledger'], swap: true });
    const following = follow(id);
    const code = await stopWhileHeld(held, id, '%(LIKE %');
    try {
      expect(code, api.output()).toBe(0);
      // Its follower read how it ended before the HTTP server closed.
      expect(await following).toEqual({ job: expect.objectContaining({ state: 'cancelled', error: expect.objectContaining({ service_stopped: true }) }) });
      expect(api.output()).toContain(
        `shutdown: the replay ${id} ended cancelled: the service stopped before the swap: nothing was swapped and its replay schemas were dropped`,
      );
      expect(await replaySchemas()).toEqual([]);
      expect(await ledger()).toEqual(before);
    } finally {
      await dropSchemas(t.runtime.db, await replaySchemas());
    }
  }, PROCESS_TESTS_MS);

  it('SIGTERM while the replay swaps: the swap is carried through, the schemas dropped, and the API exits 0', async () => {
    api = await startApi(env);
    await awaitCaughtUp(t.runtime, [ledgerProjection], 60_000);
    const before = await ledger();
    const liveBefore = await liveTableIds();
    // The swap locks the live projector's offset rows first (each of its attempts waits for them);
    // the replay's earlier steps only read them.
    const held = await holdLock(t.database.url, "SELECT * FROM projection_offsets WHERE projection = 'ledger' FOR UPDATE");
    const id = await startReplay({ projections: ['ledger'], swap: true });
    const code = await stopWhileHeld(held, id, '%FOR UPDATE%');
    try {
      expect(code, api.output()).toBe(0);
      expect(api.output()).toContain(`shutdown: the replay ${id} ended done`);
      expect(await replaySchemas()).toEqual([]);
      // Swapped: the live tables are the rebuilt ones, with the same rows.
      const liveAfter = await liveTableIds();
      for (const [index, table] of liveAfter.entries()) expect(table).not.toBe(liveBefore[index]);
      expect(await ledger()).toEqual(before);
    } finally {
      await dropSchemas(t.runtime.db, await replaySchemas());
    }
  }, PROCESS_TESTS_MS);
});
