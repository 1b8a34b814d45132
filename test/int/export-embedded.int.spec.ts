import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendEvents } from '../../commands/append.js';
import { loadConfig } from '../../platform/config/config.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { openRuntime } from '../../platform/runtime.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { exportReadModel } from '../../services/export/export-read-model.js';
import { ExportBusyError, exportJobs, type ExportJob } from '../../services/export/jobs.js';
import { ExportInputError } from '../../services/export/options.js';
import { partialPath } from '../../services/export/writers/file.js';
import { startProjectors } from '../../services/projector/projectors.js';
import { embeddedOwners } from '../support/embedded-owner.js';
import { ownerJobCalls } from '../../platform/data-dir/owner-jobs.js';
import { startServiceProcess } from '../support/child-process.js';
import { ownLines, printed, runAdmin, runCli } from '../support/cli.js';
import { HELD_OWNER_ANSWER, heldOwnerAnswerArgs } from '../support/held-owner-answer.js';
import { waitFor } from '../support/wait-for.js';
import { readExport } from '../support/export-files.js';
import { postbackEvents } from '../support/postback-events.js';
import { freePort } from '../support/stack.js';

const owners = embeddedOwners('offer-ledger-export-');

// Every step starts a process (and in it an embedded Postgres): seconds each on a busy 2-core machine.
const PROCESS_TESTS_MS = 300_000;
const POSTBACKS = 300;

describe('export on the embedded default (one process owns DATA_DIR)', () => {
  it('runs inside the service that owns DATA_DIR, which goes on answering; flags are checked as the CLI checks them', async () => {
    const dir = owners.dataDir();
    const port = await freePort();
    const env = { DATA_DIR: dir, LOG_LEVEL: 'info' };
    const service = await owners.startApi(env, port);
    for (const email of ['a@example.test', 'b@example.test']) printed(await runAdmin(env, 'developer:register', { name: email.split('@')[0]!, email }));

    const out = join(dir, 'accounts.ndjson');
    const exported = await runCli('services/export/cli.ts', ['--topic', 'accounts', '--out', out], env, 120_000);
    expect(exported.status, exported.stderr).toBe(0);
    expect(ownLines(exported.stderr)).toContainEqual(expect.stringMatching(new RegExp(`^exporting inside the service that owns DATA_DIR \\(pid ${service.child.pid}\\)`)));
    expect(JSON.parse(exported.stdout)).toEqual({ rows: 2, format: 'ndjson', files: [out, `${out}.schema.json`] });
    const { rows } = await readExport(out, 'ndjson');
    expect(rows.map((row) => row.email).sort()).toEqual(['a@example.test', 'b@example.test']);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);

    // A relative --out is the caller's folder, not the service's.
    const fromHere = await runCli('services/export/cli.ts', ['--read-model', 'postback_log', '--out', relative(process.cwd(), join(dir, 'log.csv'))], env, 120_000);
    expect(fromHere.status, fromHere.stderr).toBe(0);
    expect(JSON.parse(fromHere.stdout)).toMatchObject({ rows: 0, format: 'csv', files: [join(dir, 'log.csv'), join(dir, 'log.csv.schema.json')] });

    // Checked by the service against its log, reported as the CLI's own input error (exit 2, the flag named).
    const bad = await runCli('services/export/cli.ts', ['--topic', 'accounts', '--from', 'accounts:7:0', '--out', join(dir, 'bad.csv')], env, 120_000);
    expect(bad.status).toBe(2);
    expect(ownLines(bad.stderr)).toContainEqual(expect.stringMatching(/^error: --from: topic accounts has no partition 7/));
    expect(existsSync(join(dir, 'bad.csv'))).toBe(false);
    expect(existsSync(partialPath(join(dir, 'bad.csv')))).toBe(false);
  }, PROCESS_TESTS_MS);

  it('a read model is copied in one short transaction and the copy paged through, rows as the table holds them; a job can be cancelled, leaving no file', async () => {
    const dir = owners.dataDir();
    const runtime = await openRuntime(loadConfig({ DATA_DIR: dir }));
    const projectors = await startProjectors(runtime);
    try {
      expect(runtime.db.engine).toBe('pglite');
      await appendEvents(runtime, 'postbacks', postbackEvents(POSTBACKS));
      await awaitCaughtUp(runtime, [ledgerProjection], 60_000);
      const { rows: table } = await runtime.db.query<{ correlation_id: string; hash: string; amount: string | null }>('SELECT correlation_id, hash, amount::text AS amount FROM conversions');
      expect(table.length).toBeGreaterThan(POSTBACKS / 2);

      const out = join(dir, 'conversions.csv');
      // A statement sent while the rows are written runs then, not once the export ends (as it
      // would behind an export that held a transaction open: PGlite runs one at a time).
      const settled: string[] = [];
      let meanwhile: Promise<unknown> | undefined;
      const progress = { start() {}, stop() {}, update() {
        meanwhile ??= runtime.db.query('SELECT 1').then(() => settled.push('a statement sent meanwhile'));
      } };
      const exported = await exportReadModel(runtime.db, { readModel: 'conversions', format: 'csv', out }, progress).finally(() => settled.push('the export'));
      await meanwhile;
      expect(settled).toEqual(['a statement sent meanwhile', 'the export']);
      expect(exported).toMatchObject({ rows: table.length });
      const { rows, document } = await readExport(out, 'csv');
      expect(new Map(rows.map((row) => [row.correlation_id, [row.hash, row.amount]]))).toEqual(new Map(table.map((row) => [row.correlation_id, [row.hash, row.amount]])));
      expect(document.source).toMatchObject({ kind: 'read_model', read_model: 'conversions', positions: [expect.objectContaining({ topic: 'postbacks' })] });
      // The copy is gone once written.
      const copies = await runtime.db.query(`SELECT relname FROM pg_class WHERE relname LIKE 'ledger_copy_%'`);
      expect(copies.rows).toEqual([]);

      const jobs = exportJobs(runtime);
      expect(() => jobs.start({ topic: 'postbacks', out: 'relative.csv' })).toThrow(ExportInputError);
      const cancelled = join(dir, 'cancelled.parquet');
      const job = jobs.start({ topic: 'postbacks', out: cancelled });
      expect(() => jobs.start({ topic: 'postbacks', out: join(dir, 'second.csv') })).toThrow(ExportBusyError);
      expect(jobs.cancel(job.id)?.id).toBe(job.id);
      expect(await jobs.settled(job.id)).toMatchObject({ state: 'cancelled' });
      expect(existsSync(cancelled)).toBe(false);
      expect(existsSync(partialPath(cancelled))).toBe(false);

      const finished = jobs.start({ topic: 'postbacks', out: join(dir, 'postbacks.ndjson') });
      expect(await jobs.settled(finished.id)).toMatchObject({ state: 'done', result: { rows: POSTBACKS, format: 'ndjson' }, progress: { done: POSTBACKS, total: POSTBACKS } });
      expect(readFileSync(join(dir, 'postbacks.ndjson'), 'utf8').trim().split('\n')).toHaveLength(POSTBACKS);
      // Cancelling a finished job changes nothing.
      expect(jobs.cancel(finished.id)).toMatchObject({ state: 'done' });
    } finally {
      await projectors.stop();
      await runtime.close();
    }
  }, PROCESS_TESTS_MS);

  it('Ctrl-C while the service is answering the start cancels the export it has begun: exit 130, nothing written, the job cancelled', async () => {
    const dir = owners.dataDir();
    const runtime = await openRuntime(loadConfig({ DATA_DIR: dir }));
    try {
      await runtime.eventLog.append('postbacks', postbackEvents(2_000));
    } finally {
      await runtime.close();
    }
    const env = { DATA_DIR: dir, LOG_LEVEL: 'info' };
    await owners.startApi(env, await freePort());
    const out = join(dir, 'started.csv');
    // The unfinished file is a named pipe: the service's export stays under way while the test holds it.
    execFileSync('mkfifo', [partialPath(out)]);
    const exporter = startServiceProcess('services/export/cli.ts', env, ['--topic', 'postbacks', '--out', out], heldOwnerAnswerArgs('/exports'));
    const held = await exporter.waitForLine((line) => line.startsWith(HELD_OWNER_ANSWER), 120_000);
    const job = (JSON.parse(held.slice(HELD_OWNER_ANSWER.length)) as { data: { job: ExportJob } }).data.job;
    expect(job.state).toBe('running');
    const pipe = createReadStream(partialPath(out));
    try {
      await once(pipe, 'data');
      pipe.pause();
      // The Ctrl-C comes first (pending signals are handed over lowest number first), then the answer.
      exporter.child.kill('SIGINT');
      exporter.child.kill('SIGUSR2');
      await exporter.waitForLine((line) => line === `error: export interrupted (SIGINT); nothing was written at ${out}`);
      pipe.resume();
      expect(await exporter.exited, exporter.output()).toBe(130);
    } finally {
      pipe.destroy();
    }
    const call = ownerJobCalls<ExportJob>(dir);
    const ended = await waitFor(async () => {
      const { body } = await call('GET', `/exports/${job.id}`);
      return body.data.job?.state === 'running' ? undefined : body.data.job;
    }, { what: 'the service\'s export to end' });
    expect(ended).toMatchObject({ state: 'cancelled' });
    expect(readdirSync(dir).filter((name) => name.startsWith('started'))).toEqual([]);
  }, PROCESS_TESTS_MS);
});
