import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendEvents } from '../../commands/append.js';
import { loadConfig } from '../../platform/config/config.js';
import { qualified } from '../../platform/db/identifier.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { keptReplaySchemas } from '../../platform/projection/replay-schema.js';
import { replay } from '../../platform/projection/replay.js';
import { openRuntime } from '../../platform/runtime.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { startProjectors } from '../../services/projector/projectors.js';
import { embeddedOwners } from '../support/embedded-owner.js';
import { ownLines, runCli } from '../support/cli.js';
import { readExport } from '../support/export-files.js';
import { postbackEvents } from '../support/postback-events.js';
import { freePort } from '../support/stack.js';

const owners = embeddedOwners('offer-ledger-kept-');

// Every step starts a process (and in it an embedded Postgres): seconds each on a busy 2-core machine.
const PROCESS_TESTS_MS = 300_000;
const POSTBACKS = 120;
const UNTIL = 60;

/**
 * A point-in-time ledger is kept in a schema of its own "for queries": on the embedded default,
 * whose database only the service may open, the export reads it (`--schema`) and the replay CLI
 * lists (`--kept`) and drops (`--drop`) such schemas, through the service.
 */
describe('kept replay schemas on the embedded default', () => {
  it('are listed, exported as of the replay\'s positions, and dropped, through the service that owns DATA_DIR', async () => {
    const dir = owners.dataDir();
    const runtime = await openRuntime(loadConfig({ DATA_DIR: dir }));
    let schema: string;
    let expected: { correlation_id: string; hash: string }[];
    const projectors = await startProjectors(runtime);
    try {
      await appendEvents(runtime, 'postbacks', postbackEvents(POSTBACKS));
      await awaitCaughtUp(runtime, [ledgerProjection], 60_000);
      const report = await replay(runtime.db, runtime.eventLog, { projections: [ledgerProjection], pointInTime: { until: [{ topic: 'postbacks', partition: 0, offset: String(UNTIL) }] } });
      schema = report.schema;
      expect(report.kept).toEqual([schema]);
      ({ rows: expected } = await runtime.db.query<{ correlation_id: string; hash: string }>(`SELECT correlation_id, hash FROM ${qualified(schema, 'conversions')}`));
      const { rows: live } = await runtime.db.query<{ count: number }>('SELECT count(*)::int AS count FROM conversions');
      // The kept ledger is the one of that moment: fewer rows than the live one.
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(live[0]!.count);
    } finally {
      await projectors.stop();
      await runtime.close();
    }

    const env = { DATA_DIR: dir, LOG_LEVEL: 'info' };
    await owners.startApi(env, await freePort());
    const replayCli = (args: string[]) => runCli('services/replay/cli.ts', args, env, 120_000);

    const listed = await replayCli(['--kept', '--json']);
    expect(listed.status, listed.stderr).toBe(0);
    // Each says what it holds: the name is only the time the replay ran.
    expect(JSON.parse(listed.stdout)).toEqual({ kept: [schema], about: { [schema]: expect.stringMatching(new RegExp(`^ledger up to the positions given \\(positions postbacks:0:${UNTIL}\\), rebuilt \\d{4}-`)) } });
    const text = await replayCli(['--kept']);
    expect(text.stdout).toMatch(new RegExp(`^kept: ${schema} \\(ledger up to the positions given \\(positions postbacks:0:${UNTIL}\\), rebuilt .*Z\\)\n$`));

    const out = join(dir, 'then.csv');
    const exported = await runCli('services/export/cli.ts', ['--read-model', 'conversions', '--schema', schema, '--out', out], env, 120_000);
    expect(exported.status, exported.stderr).toBe(0);
    const { rows, document } = await readExport(out, 'csv');
    expect(new Map(rows.map((row) => [row.correlation_id, row.hash]))).toEqual(new Map(expected.map((row) => [row.correlation_id, row.hash])));
    expect(document.source).toMatchObject({
      read_model: 'conversions',
      replay_schema: schema,
      // What the replay kept it as, as --kept lists it: the schema's name is only when the replay ran.
      replay_about: JSON.parse(listed.stdout).about[schema],
      positions: [{ topic: 'postbacks', partition: 0, offset: String(UNTIL) }],
    });

    for (const [args, says] of [
      [['--read-model', 'conversions', '--schema', 'public', '--out', join(dir, 'x.csv')], /^error: --schema: "public" is not a schema a replay keeps/],
      [['--read-model', 'conversions', '--schema', 'replay_nothing', '--out', join(dir, 'x.csv')], new RegExp(`^error: --schema: replay_nothing holds no conversions table \\(kept: ${schema}\\)`)],
      [['--topic', 'postbacks', '--schema', schema, '--out', join(dir, 'x.csv')], /^error: --schema: applies to --read-model exports only/],
    ] as const) {
      const refused = await runCli('services/export/cli.ts', [...args], env, 120_000);
      expect(refused.status, refused.stderr).toBe(2);
      expect(ownLines(refused.stderr)).toContainEqual(expect.stringMatching(says));
    }

    const unknown = await replayCli(['--drop', `${schema},replay_nothing`]);
    expect(unknown.status).toBe(2);
    expect(ownLines(unknown.stderr)).toContainEqual(expect.stringMatching(/^error: --drop: replay_nothing: no such kept replay schema .*nothing was dropped/));
    expect((await replayCli(['--drop', 'public'])).status).toBe(2);
    expect((await replayCli(['--drop', schema, '--all'])).status).toBe(2);

    const dropped = await replayCli(['--drop', schema]);
    expect(dropped.status, dropped.stderr).toBe(0);
    expect(dropped.stdout).toBe(`dropped: ${schema}\n`);
    const after = await replayCli(['--kept']);
    expect(after.stdout).toBe('no kept replay schemas\n');
  }, PROCESS_TESTS_MS);

  it('lists kept schemas oldest first, only those named as a replay names them', async () => {
    const runtime = await openRuntime(loadConfig({ DATA_DIR: owners.dataDir() }));
    try {
      for (const name of ['replay_20261102t000000000z', 'replay_20261101t000000000z', 'replayed', 'replay_x_live']) await runtime.db.query(`CREATE SCHEMA ${name}`);
      expect(await keptReplaySchemas(runtime.db)).toEqual(['replay_20261101t000000000z', 'replay_20261102t000000000z', 'replay_x_live']);
    } finally {
      await runtime.close();
    }
  });
});
