import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { exportJobs } from '../../services/export/jobs.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { blockedBy } from '../support/blocked-by.js';
import { postbackEvents } from '../support/postback-events.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The export jobs a service runs (for the export CLI, on its owner socket) are stopped by its
 * shutdown before the backends close: an export left running had its database closed under it,
 * failing with an unrelated error or leaving its partial file. The service serves them on the
 * embedded default only, whose database is inside the service, so no session of a test can hold
 * one there: the jobs are run here on Postgres, the export held on the table the test locks.
 */
describe('stopping the export jobs of a service', () => {
  let t: TestRuntime;
  let projectors: RunningProjectors;
  const dir = mkdtempSync(join(tmpdir(), 'export-shutdown-'));

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'sql' });
    projectors = await startProjectors(t.runtime, {}, [ledgerProjection]);
    await t.runtime.eventLog.append('postbacks', postbackEvents(30));
    await awaitCaughtUp(t.runtime, [ledgerProjection], 30_000);
  });
  afterAll(async () => {
    await projectors?.stop();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stop() cancels the export under way, resolves once it has ended saying the service stopped, and leaves no file', async () => {
    const jobs = exportJobs(t.runtime);
    expect(await jobs.stop()).toBeUndefined();
    const holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE conversions IN ACCESS EXCLUSIVE MODE');
    let stopped: ReturnType<typeof jobs.stop>;
    let id: string;
    try {
      id = jobs.start({ readModel: 'conversions', out: join(dir, 'conversions.csv') }).id;
      await waitFor(() => blockedBy(t.runtime.db, holderPid), { what: 'the export to wait on the conversions table' });
      expect(jobs.underWay()?.id).toBe(id);
      // Asked while the export waits; it ends once the table is let go, before its first rows are written.
      stopped = jobs.stop();
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect(await stopped!).toMatchObject({ id: id!, state: 'cancelled', error: { message: 'the service stopped; the unfinished file was removed' } });
    expect(jobs.underWay()).toBeUndefined();
    // Neither the file nor its FILE.partial or lock.
    expect(readdirSync(dir)).toEqual([]);
  });
});
