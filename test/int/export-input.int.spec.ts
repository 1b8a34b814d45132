import { execFileSync, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNpmScript, startServiceProcess } from '../support/child-process.js';
import { heldImportArgs, heldImportLine } from '../support/held-import.js';
import { heldRenameArgs, heldRenameLine } from '../support/held-rename.js';
import { createTestRuntime, testEnvironment, type TestRuntime } from '../support/app.js';
import { ownLines, runCli } from '../support/cli.js';
import { clusterTopicsStartingWith } from '../support/kafka-topics.js';
import { postbackEvents } from '../support/postback-events.js';

describe('export bounds that name no range of the log', () => {
  let t: TestRuntime;
  let env: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'export-input-'));

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'sql' });
    env = testEnvironment(t.database, t.topicPrefix, { eventLog: 'sql' });
    await t.runtime.eventLog.append('postbacks', postbackEvents(20));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    [['--from', '2026-02-30T00:00:00Z'], /^error: --from: 2026-02-30T00:00:00Z is not a valid time/],
    [['--to', '2026-11-01T24:00:00Z'], /^error: --to: 2026-11-01T24:00:00Z is not a valid time/],
    [['--to', '9999-12-31T23:30:00-01:00'], /^error: --to: 9999-12-31T23:30:00-01:00 is not a valid time/],
    [['--from', 'postbacks:0:10', '--to', 'postbacks:0:5'], /^error: --to: postbacks:0:5 is before --from postbacks:0:10; the end of a partition comes at or after its start$/],
    // Which of two values was meant is not for the tool to guess.
    [['--format', 'csv', '--format', 'ndjson'], /^error: option '--format <format>' argument 'ndjson' is invalid\. it is given more than once; give it once$/],
  ])('%j exits 2 with one line naming the flag, writing nothing', async (bounds, message) => {
    const out = join(dir, 'refused.ndjson');
    const result = await runCli('services/export/cli.ts', ['--topic', 'postbacks', ...bounds, '--out', out], env);
    expect(result.status, result.stderr).toBe(2);
    expect(ownLines(result.stderr)[0]).toMatch(message);
    expect(result.stdout).toBe('');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an empty range (--from equal to --to) is no error: a file without rows', async () => {
    const out = join(dir, 'empty.ndjson');
    const result = await runCli('services/export/cli.ts', ['--topic', 'postbacks', '--from', 'postbacks:0:5', '--to', 'postbacks:0:5', '--out', out], env);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ rows: 0 });
    rmSync(out, { force: true });
    rmSync(`${out}.schema.json`, { force: true });
  });

  /** Exports the postbacks to `out`: exit 0, the file and its schema document and nothing else left beside them; then removes them. */
  async function exportsWhole(out: string) {
    const result = await runCli('services/export/cli.ts', ['--topic', 'postbacks', '--out', out], env);
    expect(result.status, result.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([basename(out), `${basename(out)}.schema.json`]);
    rmSync(out);
    rmSync(`${out}.schema.json`);
  }

  it('a second export to a file another export is writing exits 2 naming --out, leaving the first one\'s files alone', async () => {
    const out = join(dir, 'busy.csv');
    // What an export holds while it writes `out`.
    writeFileSync(`${out}.partial.lock`, '');
    writeFileSync(`${out}.partial`, 'rows of the running export\n');
    const result = await runCli('services/export/cli.ts', ['--topic', 'postbacks', '--out', out], env);
    expect(result.status, result.stderr).toBe(2);
    expect(ownLines(result.stderr)[0]).toBe(`error: --out: another export is writing ${out} (${out}.partial.lock exists); wait for it to finish, or remove ${out}.partial.lock if none is running`);
    expect(readFileSync(`${out}.partial`, 'utf8')).toBe('rows of the running export\n');
    expect(readdirSync(dir).sort()).toEqual(['busy.csv.partial', 'busy.csv.partial.lock']);
    rmSync(`${out}.partial`);
    rmSync(`${out}.partial.lock`);
    // Once it has finished, the same file can be written again; nothing of the hold is left.
    await exportsWhole(out);
  });

  it('a lock left by an export that was killed (its process has ended) is taken over', async () => {
    const out = join(dir, 'stale.csv');
    const ended = spawnSync('true');
    writeFileSync(`${out}.partial.lock`, `${ended.pid}\n`);
    await exportsWhole(out);
  });

  it('a file already at --out is replaced, with its schema document, once the new one is complete', async () => {
    const out = join(dir, 'again.csv');
    writeFileSync(out, 'an earlier export\n');
    writeFileSync(`${out}.schema.json`, '{"about":"an earlier export"}\n');
    const result = await runCli('services/export/cli.ts', ['--topic', 'postbacks', '--out', out], env);
    expect(result.status, result.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^log_topic,log_partition,log_offset,/);
    expect(JSON.parse(readFileSync(`${out}.schema.json`, 'utf8'))).toMatchObject({ file: 'again.csv', rows: 20 });
    expect(readdirSync(dir).sort()).toEqual(['again.csv', 'again.csv.schema.json']);
    rmSync(out);
    rmSync(`${out}.schema.json`);
  });

  it('a folder that cannot be written exits 2 naming --out, not a failure of the file system', async () => {
    const result = await runCli('services/export/cli.ts', ['--topic', 'postbacks', '--out', '/proc/export.csv'], env);
    expect(result.status, result.stderr).toBe(2);
    expect(ownLines(result.stderr)[0]).toMatch(/^error: --out: cannot write beside \/proc\/export\.csv \(E[A-Z]+\); give a file in a folder that can be written$/);
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s while the export is still loading (its first seconds) exits %i saying it wrote nothing, not silently', async (signal, code) => {
    const exporter = startServiceProcess('services/export/cli.ts', env, ['--topic', 'postbacks', '--out', join(dir, 'loading.csv')], heldImportArgs('pg'));
    await exporter.waitForLine((line) => line === heldImportLine('pg'));
    exporter.child.kill(signal);
    expect(await exporter.exited, exporter.output()).toBe(code);
    expect(exporter.output()).toContain(`error: export interrupted (${signal}) before it started: it wrote nothing\n`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('Ctrl-C removes the unfinished file and exits 130 (the copies of one press a terminal and npm deliver are one)', async () => {
    // Far more rows than a pipe holds: the export cannot finish while nobody reads the pipe.
    await t.runtime.eventLog.append('postbacks', postbackEvents(2_000));
    const out = join(dir, 'interrupted.csv');
    // The unfinished file is a named pipe: the test sees the export's first bytes, then holds it mid-file.
    execFileSync('mkfifo', [`${out}.partial`]);
    // As typed in a terminal: npm and the export get the Ctrl-C together, and npm passes its copy on.
    const exporter = startNpmScript('export', ['--topic', 'postbacks', '--out', out], env);
    const pipe = createReadStream(`${out}.partial`);
    try {
      await once(pipe, 'data');
      pipe.pause();
      exporter.pressCtrlC();
      await exporter.waitForLine((line) => /^error: export interrupted \(SIGINT\); nothing was written at .*interrupted\.csv$/.test(line));
      // The process cannot end while its last write to the pipe waits for a reader.
      pipe.resume();
      expect(await exporter.exited, exporter.output()).toBe(130);
    } finally {
      pipe.destroy();
    }
    expect(existsSync(`${out}.partial`)).toBe(false);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('Ctrl-C while the finished file is being moved into place says it is complete, and leaves it complete', async () => {
    const out = join(dir, 'moving.csv');
    const exporter = startServiceProcess('services/export/cli.ts', env, ['--topic', 'postbacks', '--out', out], heldRenameArgs('moving.csv'));
    await exporter.waitForLine((line) => line === heldRenameLine(out));
    // The Ctrl-C comes first (the kernel hands a process its pending signals lowest number first), then the move goes on.
    exporter.child.kill('SIGINT');
    exporter.child.kill('SIGUSR2');
    expect(await exporter.exited, exporter.output()).toBe(130);
    expect(ownLines(exporter.output()).at(-1)).toBe(`error: export interrupted (SIGINT) after it had finished: ${out} is complete`);
    expect(readdirSync(dir).filter((name) => name.startsWith('moving')).sort()).toEqual(['moving.csv', 'moving.csv.schema.json']);
    // The same file an export left alone writes.
    const whole = join(dir, 'whole.csv');
    expect((await runCli('services/export/cli.ts', ['--topic', 'postbacks', '--out', whole], env)).status).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(whole, 'utf8'));
    for (const file of [out, whole]) {
      rmSync(file);
      rmSync(`${file}.schema.json`);
    }
  });
});

describe('export from a Kafka log that has not the topic', () => {
  let t: TestRuntime;
  const dir = mkdtempSync(join(tmpdir(), 'export-no-topic-'));
  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'kafka' });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a TOPIC_PREFIX naming no environment exits 2 naming --topic, creating no topic and writing nothing', async () => {
    // Another environment's prefix on the same cluster, of which nothing was ever logged.
    const prefix = `${t.topicPrefix}none.`;
    const out = join(dir, 'postbacks.csv');
    const result = await runCli('services/export/cli.ts', ['--topic', 'postbacks', '--out', out], testEnvironment(t.database, prefix, { eventLog: 'kafka' }));
    expect(result.status, result.stderr).toBe(2);
    expect(ownLines(result.stderr)[0]).toBe(`error: --topic: topic postbacks does not exist on this log (${prefix}postbacks): check TOPIC_PREFIX and KAFKA_BROKERS`);
    expect(result.stdout).toBe('');
    expect(readdirSync(dir)).toEqual([]);
    expect(await clusterTopicsStartingWith(prefix)).toEqual([]);
  });
});
