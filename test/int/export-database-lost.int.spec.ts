import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, testEnvironment, type TestRuntime } from '../support/app.js';
import { startServiceProcess } from '../support/child-process.js';
import { ownLines } from '../support/cli.js';
import { cuttingProxy, type CuttingProxy } from '../support/cutting-proxy.js';
import { blockedBy } from '../support/blocked-by.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A read model export whose database goes away in the middle: it said "export failed" (exit 1),
 * where an export of the log that stops answering says which backend to fix (exit 4). The export
 * reaches the database through a proxy; the test holds the conversions table, so the export waits
 * on it, then the proxy cuts every session and takes no new one.
 */
describe('a read model export whose database goes away', () => {
  let t: TestRuntime;
  let proxy: CuttingProxy;
  const dir = mkdtempSync(join(tmpdir(), 'export-database-lost-'));

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'sql' });
    const url = new URL(t.database.url);
    proxy = await cuttingProxy({ host: url.hostname, port: Number(url.port) });
  });
  afterAll(async () => {
    await proxy?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exits 4 with one line naming DATABASE_URL and what to do, writing nothing', async () => {
    const url = new URL(t.database.url);
    url.port = String(proxy.port);
    const env = { ...testEnvironment(t.database, t.topicPrefix, { eventLog: 'sql' }), DATABASE_URL: url.toString() };
    const holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE conversions IN ACCESS EXCLUSIVE MODE');
    const exporting = startServiceProcess('services/export/cli.ts', env, ['--read-model', 'conversions', '--out', join(dir, 'conversions.csv')]);
    try {
      await waitFor(
        () => blockedBy(t.runtime.db, holderPid),
        { what: 'the export to wait on the conversions table', abandon: () => (exporting.child.exitCode === null ? undefined : new Error(exporting.output())) },
      );
      proxy.refuse();
    } finally {
      await holder.query('COMMIT');
      await holder.end();
    }
    expect(await exporting.exited, exporting.output()).toBe(4);
    const lines = ownLines(exporting.output()).filter((line) => line.startsWith('error: '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: cannot export: DATABASE_URL: the database stopped answering during the export \(.+\); check that Postgres runs there, then run the export again \(nothing was kept\)$/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
