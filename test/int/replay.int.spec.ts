import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { exportReadModel } from '../../services/export/export-read-model.js';
import type { TopicPartitionOffset } from '../../platform/events/event-log.js';
import { Kafka, logLevel } from 'kafkajs';
import { tableChecksum, type TableChecksum } from '../../platform/projection/checksum.js';
import { replay, type ReplayReport } from '../../platform/projection/replay.js';
import { positionsIn, samePositions, type Positions } from '../../platform/projection/positions.js';
import { startRebuild } from '../../platform/projection/rebuild.js';
import { buildIndexes, createReplaySchema, describedKeptSchemas, dropSchemas, replaySchemas, schemaExists } from '../../platform/projection/replay-schema.js';
import { dropKeptSchemas } from '../../services/replay/kept.js';
import { SwapError, swapIntoLive } from '../../platform/projection/swap.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { catalogEntriesProjection } from '../../projections/catalog-entries/projection.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { projections, startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestApp, testEnvironment, type TestRuntime } from '../support/app.js';
import { ownLines, runCli } from '../support/cli.js';
import { catalogEvents } from '../support/catalog-events.js';
import { postbackWorld, postPostback } from '../support/postback-world.js';
import { waitFor } from '../support/wait-for.js';

type App = Awaited<ReturnType<typeof createTestApp>>['app'];
const ADMIN_TOKEN = 'admin-token-for-replay-tests-0123456789';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe.each([['kafka'], ['sql']] as const)('replay on the %s log', (eventLog) => {
  let t: TestRuntime & { app: App };
  let projectors: RunningProjectors;
  let world: Awaited<ReturnType<typeof postbackWorld>>;
  let n = 0;
  /** The ledger as it was after the first postbacks, with where the log ended and when. */
  let midway: { checksums: Record<string, TableChecksum>; ends: TopicPartitionOffset[]; time: Date };

  const ledgerChecksums = async (schema?: string) =>
    Object.fromEntries(await Promise.all(ledgerProjection.tables.map(async (table) => [table, await tableChecksum(t.runtime.db, table, schema)] as const)));
  /** Each of the ledger's indexes in a schema, by name, its definition with the schema left out. */
  const ledgerIndexes = async (schema: string) => {
    const { rows } = await t.runtime.db.query<{ name: string; definition: string }>(
      `SELECT indexname AS name, replace(indexdef, schemaname || '.', '') AS definition FROM pg_indexes
       WHERE schemaname = $1 AND tablename = ANY($2::text[]) ORDER BY indexname`,
      [schema, ledgerProjection.tables],
    );
    return rows.map(({ name, definition }) => [name, definition.replace(/"/g, '')]);
  };
  /** A postback on a fresh card (served, clicked for every other one), answered with the ledger's decision. */
  async function postbacks(count: number) {
    for (let i = 0; i < count; i += 1) {
      n += 1;
      const card = await world.serve(n % 3 === 0 ? world.cpsOffer : world.cpaOffer);
      const reference = n % 2 === 0 ? { svc_click_id: await world.click(card) } : { offer_instance_id: card.offer_instance_id };
      const body = n % 3 === 0
        ? { event_name: 'sale', event_id: `replay-${eventLog}-${n}`, amount: '20.00', currency: 'USD', ...reference }
        : { event_name: n % 5 === 0 ? 'unmapped_event' : 'purchase', order_id: `order-${eventLog}-${n}`, ...reference };
      const response = await postPostback(t.app, world.partner, body);
      expect(response.statusCode, response.body).toBe(200);
      // A resend: an already_recorded decision in the log.
      if (n % 4 === 0) expect((await postPostback(t.app, world.partner, body)).json().data.result).toBe('already_recorded');
    }
  }

  beforeAll(async () => {
    t = await createTestApp({ eventLog, env: { ADMIN_TOKEN } });
    projectors = await startProjectors(t.runtime);
    world = await postbackWorld(t.runtime);
    await t.runtime.eventLog.append('catalog', catalogEvents(20));
    await awaitCaughtUp(t.runtime, [catalogEntriesProjection], 30_000);
    await postbacks(8);
    midway = { checksums: await ledgerChecksums(), ends: await t.runtime.eventLog.endOffsets('postbacks'), time: new Date() };
    // The next events are logged strictly after `midway.time` (timestamps are in milliseconds).
    await waitFor(() => Date.now() > midway.time.getTime(), { what: 'the next millisecond' });
    await postbacks(6);
  });
  afterAll(async () => {
    await projectors?.stop();
    await t?.close();
  });

  it('rebuilds every read model into a fresh schema with the checksums of the live ones, then drops it', async () => {
    const report = await replay(t.runtime.db, t.runtime.eventLog, { projections });
    expect(report.identical).toBe(true);
    expect(report.tables.map((table) => table.table).sort()).toEqual(projections.flatMap((projection) => projection.tables).sort());
    for (const table of report.tables) expect(table.rebuilt, table.table).toEqual(table.live);
    const rows = Object.fromEntries(report.tables.map((table) => [table.table, Number(table.rebuilt.rows)]));
    expect(rows).toMatchObject({ served_instances: 14, conversions: 14, partners: 3, offers: 3, catalog_entries: 4 });
    expect(rows.clicks).toBe(7);
    expect(rows.postback_log).toBe(17);
    expect(report.events).toBeGreaterThan(14 + 7 + 17);
    expect(report.kept).toEqual([]);
    expect(await schemaExists(t.runtime.db, report.schema)).toBe(false);
  });

  it('says which step it is on once the events are applied: the index builds, then the comparison (a point in time: its checksums)', async () => {
    const stepsOf = async (options: Partial<Parameters<typeof replay>[2]>) => {
      const steps: (string | undefined)[] = [];
      const report = await replay(t.runtime.db, t.runtime.eventLog, {
        projections: [ledgerProjection],
        explicit: true,
        ...options,
        onProgress: (progress) => void steps.push(progress.step),
      });
      // Each step once, in order: the progress of applying events comes without one.
      return { report, steps: steps.filter((step, index) => index === 0 || steps[index - 1] !== step) };
    };
    const compared = await stepsOf({});
    expect(compared.steps).toEqual([undefined, 'building indexes', 'comparing']);
    const pointInTime = await stepsOf({ pointInTime: { until: midway.ends } });
    expect(pointInTime.steps).toEqual([undefined, 'building indexes', 'checksumming']);
    await dropSchemas(t.runtime.db, [pointInTime.report.schema]);
  });

  it('rebuilds the ledger as it was at mid-stream log positions (--until), kept for queries', async () => {
    const report = await replay(t.runtime.db, t.runtime.eventLog, { projections, pointInTime: { until: midway.ends } });
    expect(report.mode).toBe('point-in-time');
    expect(report.tables.map((table) => table.projection)).toEqual(['ledger', 'ledger']);
    expect(report.skipped.map((skip) => skip.projection)).toContain('serves');
    expect(await ledgerChecksums(report.schema)).toEqual(midway.checksums);
    expect(await ledgerChecksums()).not.toEqual(midway.checksums);
    expect(report.kept).toEqual([report.schema]);
    // Kept for queries: every index of the live tables, built after the rows (the searches' too).
    const live = await ledgerIndexes('public');
    expect(live.length).toBeGreaterThan(10);
    expect(await ledgerIndexes(report.schema)).toEqual(live);
    await t.runtime.db.query(`DROP SCHEMA ${report.schema} CASCADE`);
  });

  it('neither lists nor drops the schemas of a replay under way; once it is done, what it kept is listed', async () => {
    const seen: { running: string[]; kept: string[] }[] = [];
    const refusals: string[] = [];
    let looking: Promise<void> | undefined;
    const report = await replay(t.runtime.db, t.runtime.eventLog, {
      projections: [ledgerProjection],
      explicit: true,
      pointInTime: { until: midway.ends },
      // Looked at from the side while the rebuild runs, as another process would.
      onProgress: () => {
        looking ??= (async () => {
          const schemas = await replaySchemas(t.runtime.db);
          seen.push(schemas);
          await dropKeptSchemas(t.runtime.db, schemas.running).catch((error: Error) => refusals.push(error.message));
        })();
      },
    });
    await looking;
    expect(seen).toHaveLength(1);
    expect(seen[0]!.running).toEqual([report.schema]);
    expect(seen[0]!.kept).not.toContain(report.schema);
    expect(refusals).toEqual([expect.stringMatching(new RegExp(`^${report.schema}: a replay is still writing it; .*nothing was dropped`))]);
    expect(await schemaExists(t.runtime.db, report.schema)).toBe(true);
    const after = await replaySchemas(t.runtime.db);
    expect(after.running).toEqual([]);
    expect(after.kept).toContain(report.schema);
    expect(await dropKeptSchemas(t.runtime.db, [report.schema])).toEqual([report.schema]);
  });

  it('reports how long the rebuild took on the monotonic clock, however the wall clock is stepped back during it', async () => {
    const wallClock = Date.now.bind(Date);
    try {
      const report = await replay(t.runtime.db, t.runtime.eventLog, {
        projections: [ledgerProjection],
        explicit: true,
        pointInTime: { until: midway.ends },
        onProgress: () => void vi.spyOn(Date, 'now').mockImplementation(() => wallClock() - 3_600_000),
      });
      vi.restoreAllMocks();
      await dropKeptSchemas(t.runtime.db, [report.schema]);
      expect(report.seconds).toBeGreaterThanOrEqual(0);
      expect(report.seconds).toBeLessThan(3_600);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('does not drop a kept schema whose tables a query holds: said within seconds (503 to retry), dropped once the query ends', async () => {
    const schema = `replay_in_use_${eventLog}`;
    await createReplaySchema(t.runtime.db, 'public', schema, ledgerProjection.tables);
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = t.runtime.db.transaction(async (tx) => {
      await tx.query(`LOCK TABLE ${schema}.conversions IN ACCESS SHARE MODE`);
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
    try {
      await isLocked;
      const refused = await t.app.inject({ method: 'POST', url: '/admin/replays/drop', headers: admin, payload: { schemas: [schema] } });
      expect(refused.statusCode, refused.body).toBe(503);
      expect(refused.json()).toMatchObject({ code: 'REPLAY_UNAVAILABLE', message: expect.stringMatching(new RegExp(`^${schema}: a query is using its tables .*nothing was dropped`)), data: {} });
      expect(await schemaExists(t.runtime.db, schema)).toBe(true);
    } finally {
      release();
      await holder;
    }
    const dropped = await t.app.inject({ method: 'POST', url: '/admin/replays/drop', headers: admin, payload: { schemas: [schema] } });
    expect(dropped.json()).toMatchObject({ code: 'SUCCESS', data: { dropped: [schema] } });
  });

  it('takes the schema of a replay that stopped without a word (killed) for a kept one once its heartbeat is a minute old', async () => {
    const schema = `replay_stopped_${eventLog}`;
    await createReplaySchema(t.runtime.db, 'public', schema, ledgerProjection.tables, { running: true });
    // A folder of its own: a file of that name left in the shared temporary folder would read as written.
    const out = join(mkdtempSync(join(tmpdir(), 'replay-stopped-')), `${schema}.csv`);
    const exportIt = () => exportReadModel(t.runtime.db, { readModel: 'conversions', schema, format: 'csv', out }).then(() => undefined, (error: Error) => error);
    try {
      expect((await replaySchemas(t.runtime.db)).running).toContain(schema);
      // Its tables are not a finished rebuild: an export of them is refused, naming --schema.
      expect(await exportIt()).toMatchObject({ name: 'ExportInputError', message: expect.stringMatching(/is not a finished replay: a replay is still writing it/) });
      const lastBeat = new Date(Date.now() - 61_000).toISOString();
      await t.runtime.db.query(`COMMENT ON SCHEMA ${schema} IS 'offer-ledger replay under way, heartbeat ${lastBeat}'`);
      expect((await replaySchemas(t.runtime.db)).kept).toContain(schema);
      // Listed as what it is: a partial rebuild to drop.
      expect(await describedKeptSchemas(t.runtime.db)).toContainEqual({ schema, about: `left by a replay that stopped before it finished (its last heartbeat ${lastBeat}): partial, drop it` });
      expect(await exportIt()).toMatchObject({ name: 'ExportInputError', message: expect.stringMatching(/its tables are partial; drop it/) });
      expect(existsSync(out)).toBe(false);
    } finally {
      await dropSchemas(t.runtime.db, [schema]);
      rmSync(dirname(out), { recursive: true, force: true });
    }
  });

  it('a replay killed once its swap went through: its retired tables are listed as such, whole, and export, not as a partial rebuild', async () => {
    const schema = `replay_swapped_then_killed_${eventLog}`;
    const retired = `${schema}_retired`;
    // What the replay had done when it was killed: rebuilt, swapped in; its rebuilt schema (now its offsets alone) not yet dropped.
    await createReplaySchema(t.runtime.db, 'public', schema, ledgerProjection.tables, { running: true });
    const rebuild = await startRebuild({ db: t.runtime.db, eventLog: t.runtime.eventLog, schema, projections: [ledgerProjection] });
    const partitions = (await t.runtime.eventLog.endOffsets('postbacks')).map((end) => ({ projection: 'ledger', topic: 'postbacks', partition: end.partition }));
    try {
      await rebuild.reach(await positionsIn(t.runtime.db, 'public', ['ledger']));
      await swapIntoLive(t.runtime.db, { live: 'public', rebuilt: schema, retired, projections: [ledgerProjection], partitions, catchUp: (positions) => rebuild.reach(positions, 60_000) });
    } finally {
      await rebuild.stop();
    }
    const out = join(tmpdir(), `${retired}.csv`);
    let written: string[] = [];
    try {
      const lastBeat = new Date(Date.now() - 61_000).toISOString();
      await t.runtime.db.query(`COMMENT ON SCHEMA ${schema} IS 'offer-ledger replay under way, heartbeat ${lastBeat}'`);
      const described = await describedKeptSchemas(t.runtime.db);
      expect(described).toContainEqual({ schema, about: `left by a replay that stopped before it finished (its last heartbeat ${lastBeat}): partial, drop it` });
      expect(described).toContainEqual({
        schema: retired,
        about: `the read models the swap of ${schema} retired: the swap went through (the rebuilt ones are live), then its replay stopped before it finished (its last heartbeat ${lastBeat})`,
      });
      // The tables that were live until the swap, every row of them.
      const exported = await exportReadModel(t.runtime.db, { readModel: 'conversions', schema: retired, format: 'csv', out });
      written = exported.files;
      expect(exported.rows).toBe(Number((await tableChecksum(t.runtime.db, 'conversions', retired)).rows));
      expect(await tableChecksum(t.runtime.db, 'conversions', retired)).toEqual(await tableChecksum(t.runtime.db, 'conversions'));
    } finally {
      await dropSchemas(t.runtime.db, [schema, retired]);
      for (const file of written) rmSync(file, { force: true });
    }
  });

  it('rebuilds the ledger as it was at a time (--as-of)', async () => {
    const report = await replay(t.runtime.db, t.runtime.eventLog, { projections: [ledgerProjection], explicit: true, pointInTime: { asOf: midway.time } });
    expect(await ledgerChecksums(report.schema)).toEqual(midway.checksums);
    // Found again by the time it holds, not only by when the replay ran.
    expect(await describedKeptSchemas(t.runtime.db)).toContainEqual({ schema: report.schema, about: expect.stringMatching(new RegExp(`^ledger as of ${midway.time.toISOString().replace(/\./g, '\\.')} \\(positions postbacks:`)) });
    await t.runtime.db.query(`DROP SCHEMA ${report.schema} CASCADE`);
  });

  it('--as-of takes the events logged at that very millisecond, not only those before it', async () => {
    // The time of the latest event before midway: as of it, the ledger is the midway one.
    const read = await t.runtime.eventLog.read('postbacks', { to: { positions: midway.ends } });
    let latest = 0;
    await read.forEach(async (batch) => {
      for (const event of batch.events) latest = Math.max(latest, event.timestamp.getTime());
    });
    expect(latest).toBeGreaterThan(0);
    const report = await replay(t.runtime.db, t.runtime.eventLog, { projections: [ledgerProjection], explicit: true, pointInTime: { asOf: new Date(latest) } });
    try {
      expect(await ledgerChecksums(report.schema)).toEqual(midway.checksums);
    } finally {
      await t.runtime.db.query(`DROP SCHEMA ${report.schema} CASCADE`);
    }
  });

  it('a point in time through npm run replay (--as-of) and the admin API (until) is the ledger of that moment, kept for queries', async () => {
    const env = testEnvironment(t.database, t.topicPrefix, { eventLog });
    const cli = await runCli('services/replay/cli.ts', ['--projection', 'ledger', '--as-of', midway.time.toISOString(), '--json'], env);
    expect(cli.status, cli.stderr).toBe(0);
    const asOf = JSON.parse(cli.stdout) as ReplayReport;
    expect(asOf).toMatchObject({ mode: 'point-in-time', swapped: false, kept: [asOf.schema] });
    expect(await ledgerChecksums(asOf.schema)).toEqual(midway.checksums);

    const until = midway.ends.map((end) => `postbacks:${end.partition}:${end.offset}`).join(',');
    const started = await t.app.inject({ method: 'POST', url: '/admin/replays', headers: admin, payload: { projections: ['ledger'], until } });
    expect(started.statusCode, started.body).toBe(202);
    const { id } = started.json().data.job;
    const job = await waitFor(async () => {
      const current = (await t.app.inject({ method: 'GET', url: `/admin/replays/${id}`, headers: admin })).json().data.job;
      return current.state === 'running' ? undefined : current;
    }, { what: 'the point-in-time replay job' });
    expect(job).toMatchObject({ state: 'done', report: { mode: 'point-in-time', swapped: false } });
    const atPositions = job.report as ReplayReport;
    expect(atPositions.kept).toEqual([atPositions.schema]);
    expect(await ledgerChecksums(atPositions.schema)).toEqual(midway.checksums);
    // The ledger has moved on since: the kept schemas are the past, not a copy of now.
    expect(await ledgerChecksums()).not.toEqual(midway.checksums);
    await dropSchemas(t.runtime.db, [asOf.schema, atPositions.schema]);
  });

  it('npm run replay: progress on stderr, the comparison on stdout; a damaged row is named by its key, exit 5', async () => {
    const env = testEnvironment(t.database, t.topicPrefix, { eventLog });
    const clean = await runCli('services/replay/cli.ts', ['--projection', 'serves,clicks'], env);
    expect(clean.status, clean.stderr).toBe(0);
    expect(clean.stderr).toMatch(/rebuilding .*events\/s \| lag \d+ \| ETA/);
    expect(clean.stdout).toMatch(/^serves\s+served_instances\s+\d+\s+\d+\s+identical$/m);
    expect(clean.stdout).toContain('the rebuilt read models are identical to the live ones');

    const { rows } = await t.runtime.db.query<{ svc_click_id: string; sub_id1: string | null }>('SELECT svc_click_id, sub_id1 FROM clicks ORDER BY svc_click_id LIMIT 1');
    const click = rows[0]!;
    await t.runtime.db.query("UPDATE clicks SET sub_id1 = 'tampered' WHERE svc_click_id = $1", [click.svc_click_id]);
    try {
      const damaged = await runCli('services/replay/cli.ts', ['--projection', 'clicks'], env);
      expect(damaged.status, damaged.stderr).toBe(5);
      expect(damaged.stdout).toMatch(/^clicks\s+clicks\s+7\s+7\s+DIFFERENT$/m);
      expect(damaged.stdout).toContain(`clicks: 1 row(s) only in the live table, 1 only in the rebuilt one; differing keys:\n  svc_click_id=${click.svc_click_id}\n`);
      expect(damaged.stdout).toMatch(/Next: run again with --keep .*, or run again with --swap to make the log's version live/);
      // Swapping in the log's version is the fix the summary points to: done, so exit 0, not 5.
      const swapped = await runCli('services/replay/cli.ts', ['--projection', 'clicks', '--swap', '--json'], env);
      expect(swapped.status, swapped.stderr).toBe(0);
      expect(JSON.parse(swapped.stdout)).toMatchObject({ mode: 'compare', identical: false, swapped: true });
      const { rows: after } = await t.runtime.db.query<{ sub_id1: string | null }>('SELECT sub_id1 FROM clicks WHERE svc_click_id = $1', [click.svc_click_id]);
      expect(after).toEqual([{ sub_id1: click.sub_id1 }]);
    } finally {
      await t.runtime.db.query('UPDATE clicks SET sub_id1 = $2 WHERE svc_click_id = $1', [click.svc_click_id, click.sub_id1]);
    }

    const bad = await runCli('services/replay/cli.ts', ['--projection', 'ledger', '--until', 'postbacks:0:99999999'], env);
    expect(bad.status).toBe(2);
    expect(ownLines(bad.stderr)).toEqual([expect.stringMatching(/^error: --until: postbacks:0:99999999 is past the end of the log \(\d+\)$/)]);
  });

  it('the admin API runs a replay as a job: 202, then its progress and report; bad input is a 400 naming the option', async () => {
    const started = await t.app.inject({ method: 'POST', url: '/admin/replays', headers: admin, payload: { projections: ['serves'] } });
    expect(started.statusCode, started.body).toBe(202);
    const { id } = started.json().data.job;
    const job = await waitFor(async () => {
      const current = (await t.app.inject({ method: 'GET', url: `/admin/replays/${id}`, headers: admin })).json().data.job;
      return current.state === 'running' ? undefined : current;
    }, { what: 'the replay job' });
    expect(job).toMatchObject({ state: 'done', report: { mode: 'compare', identical: true }, progress: { applied: 14, target: 14, lag: 0, eta_seconds: 0 } });
    expect(job.progress.events_per_second).toBeGreaterThan(0);
    // Done is no step: the last one (comparing) is over.
    expect(job.progress.step).toBeUndefined();

    const bad = await t.app.inject({ method: 'POST', url: '/admin/replays', headers: admin, payload: { as_of: 'yesterday' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'BAD_REQUEST', extra: { field: 'as_of' } });
    // A position the log cannot give is refused at once too, as the CLI refuses it, not as a failed job.
    for (const until of ['postbacks:99:0', 'postbacks:0:99999999']) {
      const impossible = await t.app.inject({ method: 'POST', url: '/admin/replays', headers: admin, payload: { until } });
      expect(impossible.statusCode, until).toBe(400);
      expect(impossible.json(), until).toMatchObject({ code: 'BAD_REQUEST', extra: { field: 'until' } });
    }
    expect((await t.app.inject({ method: 'POST', url: '/admin/replays', payload: {} })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/admin/replays/nope', headers: admin })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/admin/replays/0192f3a0-0000-7000-8000-00000000dead', headers: admin })).json()).toMatchObject({ code: 'NOT_FOUND', message: 'no such replay here' });
    // The listing and the drop are no jobs: another method on them is a 405 naming theirs.
    for (const [method, url, allow] of [['DELETE', '/admin/replays/kept', 'GET, HEAD'], ['POST', '/admin/replays/kept', 'GET, HEAD'], ['GET', '/admin/replays/drop', 'POST'], ['DELETE', '/admin/replays/drop', 'POST']] as const) {
      const wrong = await t.app.inject({ method, url, headers: admin });
      expect(wrong.statusCode, `${method} ${url}`).toBe(405);
      expect(wrong.headers.allow, `${method} ${url}`).toBe(allow);
    }
    // Dropping kept schemas takes a list of their names; anything else is a 400 naming the field.
    for (const schemas of ['replay_20261101t000000000z', [], ['public'], [7]]) {
      const refused = await t.app.inject({ method: 'POST', url: '/admin/replays/drop', headers: admin, payload: { schemas } });
      expect(refused.statusCode, JSON.stringify(schemas)).toBe(400);
      expect(refused.json(), JSON.stringify(schemas)).toMatchObject({ code: 'BAD_REQUEST', extra: { field: 'schemas' } });
    }
    // A field it does not know (a dry run it does not do), a name given twice, a schema not kept: refused, nothing dropped.
    const name = 'replay_20261101t000000000z';
    for (const [payload, field, message] of [
      [{ schemas: [name], dry_run: true }, 'dry_run', /^dry_run: is not a known field/],
      [{ schemas: [name, name] }, 'schemas', /is named twice/],
      [{ schemas: [name] }, 'schemas', /no such kept replay schema/],
    ] as const) {
      const refused = await t.app.inject({ method: 'POST', url: '/admin/replays/drop', headers: admin, payload });
      expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
      expect(refused.json(), JSON.stringify(payload)).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(message), extra: { field } });
    }
  });

  it('reports a damaged live row by its key; --swap puts the rebuilt ledger live and the projector goes on', async () => {
    const { rows } = await t.runtime.db.query<{ partner_id: string; identity_key: string; payout_amount: string }>(
      "SELECT partner_id, identity_key, payout_amount FROM conversions WHERE status = 'accepted' ORDER BY log_partition, log_offset LIMIT 1",
    );
    const damaged = rows[0]!;
    await t.runtime.db.query('UPDATE conversions SET payout_amount = 0.01 WHERE partner_id = $1 AND identity_key = $2', [damaged.partner_id, damaged.identity_key]);

    const indexesBefore = await ledgerIndexes('public');
    // Postbacks keep arriving while the swap happens.
    const [report] = await Promise.all([replay(t.runtime.db, t.runtime.eventLog, { projections: [ledgerProjection], swap: true, keep: true }), postbacks(3)]);
    expect(report.identical).toBe(false);
    const conversions = report.tables.find((table) => table.table === 'conversions')!;
    expect(conversions.difference).toEqual({ only_live: 1, only_rebuilt: 1, keys: [{ partner_id: damaged.partner_id, identity_key: damaged.identity_key }], key_count: 1 });
    expect(report.tables.find((table) => table.table === 'postback_log')!.difference).toBeUndefined();
    expect(report.swapped).toBe(true);

    const repaired = await t.runtime.db.query('SELECT payout_amount FROM conversions WHERE partner_id = $1 AND identity_key = $2', [damaged.partner_id, damaged.identity_key]);
    expect(repaired.rows).toEqual([{ payout_amount: damaged.payout_amount }]);
    // The swapped-in tables have every index the live ones had, under the same names.
    expect(await ledgerIndexes('public')).toEqual(indexesBefore);
    // …and the planner's statistics: new tables have none until analyzed (reltuples -1, no pg_stats rows).
    const analyzed = await t.runtime.db.query<{ table: string; reltuples: number; columns: string }>(
      `SELECT c.relname AS table, c.reltuples, (SELECT count(*) FROM pg_stats s WHERE s.schemaname = 'public' AND s.tablename = c.relname) AS columns
       FROM pg_class c WHERE c.oid IN ('public.conversions'::regclass, 'public.postback_log'::regclass) ORDER BY c.relname`,
    );
    for (const table of analyzed.rows) {
      expect(table.reltuples, table.table).toBeGreaterThan(0);
      expect(Number(table.columns), table.table).toBeGreaterThan(0);
    }
    // The damaged table was retired, not lost.
    // The rebuilt schema's tables are live: kept are the live tables as they were and their snapshot.
    expect(report.kept).toEqual([`${report.schema}_live`, `${report.schema}_retired`]);
    const retired = report.kept.find((schema) => schema.endsWith('_retired'))!;
    const old = await t.runtime.db.query(`SELECT payout_amount FROM ${retired}.conversions WHERE partner_id = $1 AND identity_key = $2`, [damaged.partner_id, damaged.identity_key]);
    expect(old.rows).toEqual([{ payout_amount: '0.01' }]);

    // The live projector decides into the swapped-in tables.
    await postbacks(3);
    expect(Number((await t.runtime.db.query<{ n: string }>('SELECT count(*) AS n FROM conversions')).rows[0]!.n)).toBe(n);
    const again = await replay(t.runtime.db, t.runtime.eventLog, { projections: [ledgerProjection] });
    expect(again.identical).toBe(true);
    for (const schema of report.kept) await t.runtime.db.query(`DROP SCHEMA ${schema} CASCADE`);
  });

  // Built before that time came, it would hold the read models of then under a name saying otherwise.
  it('--as-of a moment to come is waited for: what is logged until then is in the rebuild, as its name says', async () => {
    const asOf = new Date(Date.now() + 5_000);
    const rebuilt = replay(t.runtime.db, t.runtime.eventLog, { projections: [ledgerProjection], explicit: true, pointInTime: { asOf } });
    await postbacks(1);
    expect(Date.now(), 'the postback was logged before the time asked for').toBeLessThan(asOf.getTime());
    const report = await rebuilt;
    try {
      expect(await ledgerChecksums(report.schema)).toEqual(await ledgerChecksums());
      expect(await describedKeptSchemas(t.runtime.db)).toContainEqual({ schema: report.schema, about: expect.stringMatching(new RegExp(`^ledger as of ${asOf.toISOString().replace(/\./g, '\\.')} \\(positions `)) });
    } finally {
      await t.runtime.db.query(`DROP SCHEMA ${report.schema} CASCADE`);
    }
  });

  it('a kept copy of the live read models says when it was taken and at which positions', async () => {
    const report = await replay(t.runtime.db, t.runtime.eventLog, { projections: [ledgerProjection], keep: true });
    const copy = `${report.schema}_live`;
    try {
      expect(report.kept).toContain(copy);
      const positions = report.positions.map((position) => `${position.topic}:${position.partition}:${position.next}`).join(',');
      const about = (await describedKeptSchemas(t.runtime.db)).find((kept) => kept.schema === copy)?.about;
      expect(about).toMatch(new RegExp(`^the live ledger at \\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z \\(positions ${positions}\\), as compared with ${report.schema}$`));
    } finally {
      await dropSchemas(t.runtime.db, report.kept);
    }
  });

  it('a swap waits for the rebuild to catch up with a live projector that moved on, then continues from there', async () => {
    const schema = `swap_test_${eventLog}`;
    const tables = ledgerProjection.tables;
    await createReplaySchema(t.runtime.db, 'public', schema, tables);
    const rebuild = await startRebuild({ db: t.runtime.db, eventLog: t.runtime.eventLog, schema, projections: [ledgerProjection] });
    try {
      await rebuild.reach(await positionsIn(t.runtime.db, 'public', ['ledger']));
      await postbacks(2);
      const live = await positionsIn(t.runtime.db, 'public', ['ledger']);
      expect(samePositions(live, await positionsIn(t.runtime.db, schema, ['ledger']))).toBe(false);
      const before = await ledgerChecksums();
      const caughtUp: Positions[] = [];
      const partitions = (await t.runtime.eventLog.endOffsets('postbacks')).map((end) => ({ projection: 'ledger', topic: 'postbacks', partition: end.partition }));
      const swapped = await swapIntoLive(t.runtime.db, {
        live: 'public',
        rebuilt: schema,
        retired: `${schema}_retired`,
        projections: [ledgerProjection],
        partitions,
        catchUp: async (positions) => {
          caughtUp.push(positions);
          await rebuild.reach(positions, 60_000);
        },
      });
      expect(caughtUp).toEqual([live]);
      expect(swapped).toEqual(live);
      expect(await ledgerChecksums()).toEqual(before);
      expect(await ledgerChecksums(`${schema}_retired`)).toEqual(before);
    } finally {
      await rebuild.stop();
    }
    await postbacks(1);
    expect((await replay(t.runtime.db, t.runtime.eventLog, { projections: [ledgerProjection] })).identical).toBe(true);
    await dropSchemas(t.runtime.db, [schema, `${schema}_retired`]);
  });

  it('a swap that cannot have a live table within 10 s (a query reading it) swaps nothing and says so, as a swap error to retry', async () => {
    const schema = `replay_swap_blocked_${eventLog}`;
    const logged = await ledgerChecksums();
    // A damaged live conversion: the rebuilt conversions differ, so a swap of that table alone would show.
    const { rows } = await t.runtime.db.query<{ partner_id: string; identity_key: string }>(
      "SELECT partner_id, identity_key FROM conversions WHERE status = 'accepted' ORDER BY log_partition, log_offset LIMIT 1",
    );
    const damaged = [rows[0]!.partner_id, rows[0]!.identity_key];
    await t.runtime.db.query('UPDATE conversions SET payout_amount = payout_amount + 0.01 WHERE partner_id = $1 AND identity_key = $2', damaged);
    const before = await ledgerChecksums();
    expect(before.conversions).not.toEqual(logged.conversions);
    // An analyst's query (or an export) reading the live ledger for longer than the swap waits for it.
    const refusal = await t.runtime.db.transaction(async (reader) => {
      await reader.query('LOCK TABLE postback_log IN ACCESS SHARE MODE');
      return replay(t.runtime.db, t.runtime.eventLog, { projections: [ledgerProjection], swap: true, schema }).then(
        () => undefined,
        (error: unknown) => error,
      );
    });
    expect(refusal).toBeInstanceOf(SwapError);
    expect((refusal as Error).message).toMatch(/^the live postback_log table stayed in use by another session for 10s .*; retry once it is free$/);
    // Nothing moved: conversions (the first table a swap moves) is still the damaged live one.
    expect(await ledgerChecksums()).toEqual(before);
    for (const left of [schema, `${schema}_live`, `${schema}_retired`]) expect(await schemaExists(t.runtime.db, left), left).toBe(false);
    // Once the query is done, the same swap goes through and puts the log's ledger live.
    const report = await replay(t.runtime.db, t.runtime.eventLog, { projections: [ledgerProjection], swap: true, schema });
    expect(report.swapped).toBe(true);
    expect(await ledgerChecksums()).toEqual(logged);
  });

  it('a query holding one live table holds up the swap, not the readers of the tables it has moved, and the swap goes through once the query is done', async () => {
    const schema = `replay_swap_waits_${eventLog}`;
    const before = await ledgerChecksums();
    let swapping: ReturnType<typeof replay> | undefined;
    await t.runtime.db.transaction(async (reader) => {
      await reader.query('LOCK TABLE postback_log IN ACCESS SHARE MODE');
      swapping = replay(t.runtime.db, t.runtime.eventLog, { projections: [ledgerProjection], swap: true, schema });
      // Its outcome is awaited below, once the query is done.
      swapping.catch(() => {});
      // The swap has moved conversions (the ledger's first table) and waits for postback_log.
      const waiting = "SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE NOT l.granted AND c.relname = 'postback_log'";
      await waitFor(async () => (await t.runtime.db.query(waiting)).rows.length > 0, { what: 'the swap waiting for postback_log', intervalMs: 10, timeoutMs: 60_000 });
      // A reader of the moved table is answered while the query still holds the other one.
      await t.runtime.db.query('SELECT count(*) FROM conversions');
    });
    expect((await swapping!).swapped).toBe(true);
    expect(await ledgerChecksums()).toEqual(before);
  });

  it('a rebuild schema can start with only the indexes of its keys; the others are built after the rows, the same as live', async () => {
    const schema = `deferred_indexes_${eventLog}`;
    const deferred = await createReplaySchema(t.runtime.db, 'public', schema, ledgerProjection.tables, { deferIndexes: true });
    try {
      const keys = await ledgerIndexes(schema);
      // conversions: primary key and unique correlation id; postback_log: primary key and unique position.
      expect(keys.map(([name]) => name)).toEqual(['conversions_correlation_id_key', 'conversions_pkey', 'postback_log_log_partition_log_offset_key', 'postback_log_pkey']);
      expect(deferred).toHaveLength((await ledgerIndexes('public')).length - keys.length);
      await buildIndexes(t.runtime.db, deferred);
      expect(await ledgerIndexes(schema)).toEqual(await ledgerIndexes('public'));
    } finally {
      await dropSchemas(t.runtime.db, [schema]);
    }
  });

  it('refuses at once to reach positions past the end of the log (read models built from another log), instead of waiting forever', async () => {
    const schema = `past_end_${eventLog}`;
    await createReplaySchema(t.runtime.db, 'public', schema, ledgerProjection.tables);
    const rebuild = await startRebuild({ db: t.runtime.db, eventLog: t.runtime.eventLog, schema, projections: [ledgerProjection] });
    try {
      const [end] = await t.runtime.eventLog.endOffsets('postbacks');
      const beyond: Positions = new Map([[`ledger/postbacks/${end!.partition}`, BigInt(end!.offset) + 5n]]);
      await expect(rebuild.reach(beyond)).rejects.toThrow(/ends at \d+: it was built from another log; check KAFKA_BROKERS, TOPIC_PREFIX or DATA_DIR/);
    } finally {
      await rebuild.stop();
      await dropSchemas(t.runtime.db, [schema]);
    }
  });

  // Last of the file: the undecodable message stays in this log.
  // Defined for Kafka only (the embedded log stores what its own codec wrote).
  if (eventLog === 'kafka') it('stops with an error when an event cannot be decoded, instead of retrying it unheard', async () => {
    const kafka = new Kafka({ brokers: inject('stack').kafkaBrokers, logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    try {
      await producer.send({ topic: `${t.runtime.config.topicPrefix}postbacks`, messages: [{ key: 'not-avro', value: 'not in the wire format' }] });
    } finally {
      await producer.disconnect();
    }
    const schema = 'undecodable_kafka';
    await createReplaySchema(t.runtime.db, 'public', schema, ledgerProjection.tables);
    const rebuild = await startRebuild({ db: t.runtime.db, eventLog: t.runtime.eventLog, schema, projections: [ledgerProjection] });
    try {
      const ends: Positions = new Map((await t.runtime.eventLog.endOffsets('postbacks')).map((end) => [`ledger/postbacks/${end.partition}`, BigInt(end.offset)]));
      await expect(rebuild.reach(ends, 60_000)).rejects.toThrow(/rebuilding the ledger read model failed: .*wire format/);
    } finally {
      await rebuild.stop();
      await dropSchemas(t.runtime.db, [schema]);
    }
  });
});
