import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { dropSchemas } from '../../platform/projection/replay-schema.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestRuntime, testEnvironment, type TestRuntime } from '../support/app.js';
import { startServiceProcess } from '../support/child-process.js';
import { cuttingProxy, type CuttingProxy } from '../support/cutting-proxy.js';
import { postbackEvents } from '../support/postback-events.js';
import { blockedBy } from '../support/blocked-by.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A replay whose database goes away cannot drop the schemas it created: it once said "nothing of
 * this replay was kept" (exit 1) while they stayed behind, to turn up a minute later as partial
 * rebuilds. The replay (with --swap) reaches the database through a proxy; the test holds the live
 * ledger's offset rows, so the swap waits for them, rebuilt and copied tables in place; the proxy
 * then cuts every session and takes no new one.
 */
describe('a replay whose database goes away', () => {
  let t: TestRuntime;
  let projectors: RunningProjectors;
  let proxy: CuttingProxy;

  const replaySchemas = async () =>
    (await t.runtime.db.query<{ name: string }>("SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'replay%' ORDER BY 1")).rows.map((row) => row.name);

  /**
   * A replay with --swap through the proxy, waiting on the live ledger's offset rows the test
   * holds (rebuilt and copied tables in place); `cut` runs while it waits, then the rows are let go.
   */
  async function replayCutWhileSwapping(cut: () => void) {
    const url = new URL(t.database.url);
    url.port = String(proxy.port);
    const env = { ...testEnvironment(t.database, t.topicPrefix, { eventLog: 'kafka' }), DATABASE_URL: url.toString() };
    const holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await holder.query('BEGIN');
    await holder.query("SELECT * FROM projection_offsets WHERE projection = 'ledger' FOR UPDATE");
    const replaying = startServiceProcess('services/replay/cli.ts', env, ['--projection', 'ledger', '--swap']);
    try {
      // The swap (each of its attempts) waits for the rows the test holds.
      await waitFor(
        () => blockedBy(t.runtime.db, holderPid, '%FOR UPDATE%'),
        { what: 'the replay to wait on the live tables', abandon: () => (replaying.child.exitCode === null ? undefined : new Error(replaying.output())) },
      );
      cut();
    } finally {
      await holder.query('COMMIT');
      await holder.end();
    }
    return replaying;
  }

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'kafka' });
    projectors = await startProjectors(t.runtime, {}, [ledgerProjection]);
    await t.runtime.eventLog.append('postbacks', postbackEvents(30));
    await awaitCaughtUp(t.runtime, [ledgerProjection], 30_000);
    const url = new URL(t.database.url);
    proxy = await cuttingProxy({ host: url.hostname, port: Number(url.port) });
  });
  afterAll(async () => {
    await proxy?.close();
    await projectors?.stop();
    await t?.close();
  });

  it('exits 4 naming DATABASE_URL and the schemas it left, with the command that drops them', async () => {
    const replaying = await replayCutWhileSwapping(() => proxy.refuse());
    expect(await replaying.exited, replaying.output()).toBe(4);
    const left = await replaySchemas();
    expect(left.length, replaying.output()).toBeGreaterThan(0);
    const message = replaying.output().split('\n').find((line) => line.startsWith('error: '));
    expect(message).toMatch(/^error: cannot replay: DATABASE_URL: the replay stopped \(.+\) and its schemas .+ could not be dropped \(.+\); once it answers, drop them with npm run replay -- --drop /);
    expect(message).toContain(`--drop ${left.join(',')} `);
    expect(message).not.toContain('nothing of this replay was kept');
    await dropSchemas(t.runtime.db, left);
  });

  it('a session cut in the middle, the database answering again for the clean-up: exit 4 naming DATABASE_URL, nothing kept', async () => {
    proxy.heal();
    // Every session cut (the swap's among them); new ones taken again at once.
    const replaying = await replayCutWhileSwapping(() => {
      proxy.refuse();
      proxy.heal();
    });
    expect(await replaying.exited, replaying.output()).toBe(4);
    const message = replaying.output().split('\n').find((line) => line.startsWith('error: '));
    expect(message).toMatch(/^error: cannot replay: DATABASE_URL: the database stopped answering \(.+\); nothing of this replay was kept: run it again once it answers$/);
    expect(await replaySchemas()).toEqual([]);
  });
});
