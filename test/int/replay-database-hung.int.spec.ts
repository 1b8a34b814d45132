import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { dropSchemas } from '../../platform/projection/replay-schema.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestRuntime, testEnvironment, type TestRuntime } from '../support/app.js';
import { startServiceProcess, type ServiceProcess } from '../support/child-process.js';
import { cuttingProxy, type CuttingProxy } from '../support/cutting-proxy.js';
import { postbackEvents } from '../support/postback-events.js';
import { blockedBy } from '../support/blocked-by.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A replay whose database hangs (its connections stay open, nothing is answered) waited for good:
 * its watch pinged only the log, and the DROP SCHEMA of its clean-up had no deadline. The replay
 * reaches the database (which holds the log too) through a proxy; the test holds the log's table,
 * so the rebuild waits on it with its schema created; the proxy then stops carrying anything.
 */
describe('a replay whose database stops answering', () => {
  let t: TestRuntime;
  let projectors: RunningProjectors;
  let proxy: CuttingProxy;
  let holder: pg.Client;

  const replaySchemas = async () =>
    (await t.runtime.db.query<{ name: string }>("SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'replay%' ORDER BY 1")).rows.map((row) => row.name);

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'sql' });
    projectors = await startProjectors(t.runtime, {}, [ledgerProjection]);
    await t.runtime.eventLog.append('postbacks', postbackEvents(30));
    await awaitCaughtUp(t.runtime, [ledgerProjection], 30_000);
    await projectors.stop();
  });
  afterAll(async () => {
    await proxy?.close();
    await t?.close();
  });

  /**
   * A replay through a fresh proxy, held on the log's table with its schema created; the table let
   * go once `hang` has run. Answers the replay and the schemas it had created by then.
   */
  async function replayHeldOnTheLog(hang: (replaying: ServiceProcess) => void | Promise<void>): Promise<{ replaying: ServiceProcess; created: string[] }> {
    const url = new URL(t.database.url);
    await proxy?.close();
    proxy = await cuttingProxy({ host: url.hostname, port: Number(url.port) });
    url.port = String(proxy.port);
    const env = { ...testEnvironment(t.database, t.topicPrefix, { eventLog: 'sql' }), DATABASE_URL: url.toString(), DATABASE_UNANSWERED_MS: '2000' };
    holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE event_log IN ACCESS EXCLUSIVE MODE');
    const replaying = startServiceProcess('services/replay/cli.ts', env, ['--projection', 'ledger']);
    try {
      await waitFor(
        async () => (await replaySchemas()).length > 0 && (await blockedBy(t.runtime.db, holderPid)),
        { what: 'the replay to wait on the log', abandon: () => (replaying.child.exitCode === null ? undefined : new Error(replaying.output())) },
      );
      const created = await replaySchemas();
      await hang(replaying);
      return { replaying, created };
    } finally {
      await holder.query('COMMIT');
      await holder.end();
    }
  }

  /** The one error line, the schemas it names to drop and those the database holds; the latter dropped. */
  async function outcome(replaying: ServiceProcess) {
    const errors = replaying.output().split('\n').filter((line) => line.startsWith('error: '));
    const left = await replaySchemas();
    await dropSchemas(t.runtime.db, left);
    return { errors, left, named: /--drop (\S+) /.exec(errors[0] ?? '')?.[1]?.split(',') };
  }

  it('stops once the database has not answered for DATABASE_UNANSWERED_MS: exit 4, one line naming DATABASE_URL, the schema it left and the --drop that removes it', async () => {
    const { replaying, created } = await replayHeldOnTheLog(() => proxy.freeze());
    expect(await replaying.exited, replaying.output()).toBe(4);
    const { errors, left, named } = await outcome(replaying);
    expect(errors, replaying.output()).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^error: cannot replay: DATABASE_URL: the replay stopped \(the database has not answered for \d+ s \(.+\)\) and its schemas replay_\w+ could not be dropped \(no answer within 2 s\); once it answers, drop them with npm run replay -- --drop replay_\w+ /,
    );
    expect(left).toEqual(created);
    expect(named).toEqual(left);
  });

  it('a Ctrl-C whose clean-up the database leaves unanswered: exit 4 after DATABASE_UNANSWERED_MS, naming what it left', async () => {
    const { replaying, created } = await replayHeldOnTheLog(async (process) => {
      proxy.freeze();
      process.child.kill('SIGINT');
      await process.waitForLine((line) => line.startsWith('SIGINT: stopping the replay and dropping its schemas'));
    });
    expect(await replaying.exited, replaying.output()).toBe(4);
    const { errors, left, named } = await outcome(replaying);
    expect(errors, replaying.output()).toHaveLength(1);
    expect(errors[0]).toMatch(/^error: cannot replay: DATABASE_URL: the replay stopped \(cancelled\) and its schemas replay_\w+ could not be dropped \(no answer within 2 s\); once it answers, drop them with npm run replay -- --drop replay_\w+ /);
    expect(left).toEqual(created);
    expect(named).toEqual(left);
  });
});
