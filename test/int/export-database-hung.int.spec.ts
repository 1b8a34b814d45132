import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, testEnvironment, type TestRuntime } from '../support/app.js';
import { startServiceProcess, type ServiceProcess } from '../support/child-process.js';
import { ownLines } from '../support/cli.js';
import { cuttingProxy, type CuttingProxy } from '../support/cutting-proxy.js';
import { postbackEvents } from '../support/postback-events.js';
import { blockedBy } from '../support/blocked-by.js';
import { waitFor } from '../support/wait-for.js';

/**
 * An export whose database hangs (its connections stay open, nothing is answered) waited for
 * good. The export reaches the database (which holds the log too) through a proxy; the test holds
 * the table the export reads, so the export waits on it; the proxy then stops carrying anything.
 */
describe('an export whose database stops answering', () => {
  let t: TestRuntime;
  let proxy: CuttingProxy;
  const dir = mkdtempSync(join(tmpdir(), 'export-database-hung-'));

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'sql' });
    await t.runtime.eventLog.append('postbacks', postbackEvents(20));
  });
  afterAll(async () => {
    await proxy?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * An export through a fresh proxy, held on `table` until `held` holds too; the proxy is frozen
   * then, and the table let go.
   */
  async function exportHeldOn(table: string, args: string[], held: () => boolean = () => true): Promise<ServiceProcess> {
    const url = new URL(t.database.url);
    await proxy?.close();
    proxy = await cuttingProxy({ host: url.hostname, port: Number(url.port) });
    url.port = String(proxy.port);
    const env = { ...testEnvironment(t.database, t.topicPrefix, { eventLog: 'sql' }), DATABASE_URL: url.toString(), DATABASE_UNANSWERED_MS: '2000' };
    const holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    const exporting = startServiceProcess('services/export/cli.ts', env, args);
    try {
      await waitFor(
        async () => held() && (await blockedBy(t.runtime.db, holderPid)),
        { what: `the export to wait on ${table}`, abandon: () => (exporting.child.exitCode === null ? undefined : new Error(exporting.output())) },
      );
      proxy.freeze();
    } finally {
      await holder.query('COMMIT');
      await holder.end();
    }
    return exporting;
  }

  const errorLines = (exporting: ServiceProcess) => ownLines(exporting.output()).filter((line) => line.startsWith('error: '));
  const STOPPED = /^error: cannot export: DATABASE_URL: the database has not answered for \d+ s \(.+\); check that Postgres answers there, then run the export again \(the unfinished file was removed: nothing was kept\)$/;

  it('of a read model: stops after DATABASE_UNANSWERED_MS, exit 4 with one line naming DATABASE_URL, writing nothing', async () => {
    const exporting = await exportHeldOn('conversions', ['--read-model', 'conversions', '--out', join(dir, 'conversions.csv')]);
    expect(await exporting.exited, exporting.output()).toBe(4);
    expect(errorLines(exporting), exporting.output()).toHaveLength(1);
    expect(errorLines(exporting)[0]).toMatch(STOPPED);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('of a topic of the log Postgres holds, mid-file: removes its unfinished file and leaves the earlier one at --out as it was', async () => {
    const out = join(dir, 'postbacks.csv');
    writeFileSync(out, 'an earlier export\n');
    const exporting = await exportHeldOn('event_log', ['--topic', 'postbacks', '--out', out], () => existsSync(`${out}.partial`));
    expect(await exporting.exited, exporting.output()).toBe(4);
    expect(errorLines(exporting), exporting.output()).toHaveLength(1);
    expect(errorLines(exporting)[0]).toMatch(STOPPED);
    expect(readdirSync(dir)).toEqual(['postbacks.csv']);
    expect(readFileSync(out, 'utf8')).toBe('an earlier export\n');
    rmSync(out);
  });
});
