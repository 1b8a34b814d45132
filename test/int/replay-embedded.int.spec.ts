import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { tableChecksum } from '../../platform/projection/checksum.js';
import { positionsIn, type Positions } from '../../platform/projection/positions.js';
import { startRebuild } from '../../platform/projection/rebuild.js';
import { replay, type ReplayReport } from '../../platform/projection/replay.js';
import { createReplaySchema, dropSchemas } from '../../platform/projection/replay-schema.js';
import { swapIntoLive } from '../../platform/projection/swap.js';
import { openRuntime } from '../../platform/runtime.js';
import { catalogEntriesProjection } from '../../projections/catalog-entries/projection.js';
import { buildApp } from '../../services/api/app.js';
import { startProjectors } from '../../services/projector/projectors.js';
import { catalogEvents } from '../support/catalog-events.js';
import { ownLines, printed, runAdmin, runCli } from '../support/cli.js';
import { embeddedOwners } from '../support/embedded-owner.js';
import { freePort } from '../support/stack.js';

const owners = embeddedOwners('offer-ledger-replay-');

const register = (env: Record<string, string>, email: string) => runAdmin(env, 'developer:register', { name: email.split('@')[0]!, email });
const replayCli = (env: Record<string, string>, ...args: string[]) => runCli('services/replay/cli.ts', args, env, 180_000);
const report = (result: Awaited<ReturnType<typeof replayCli>>): ReplayReport => {
  if (result.status !== 0) throw new Error(`exit ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout) as ReplayReport;
};
const rows = (replayed: ReplayReport, table: string) => replayed.tables.find((entry) => entry.table === table)!.rebuilt.rows;

// Every step starts a process (and in it an embedded Postgres): seconds each on a busy 2-core machine.
const PROCESS_TESTS_MS = 300_000;

describe('replay on the embedded default (one process owns DATA_DIR)', () => {
  it('runs inside the service that owns DATA_DIR, which goes on answering; a swap keeps the service projecting', async () => {
    const port = await freePort();
    const env = { DATA_DIR: owners.dataDir(), LOG_LEVEL: 'info' };
    const service = await owners.startApi(env, port);
    for (const email of ['a@example.test', 'b@example.test']) printed(await register(env, email));

    const compared = await replayCli(env, '--all', '--json');
    expect(ownLines(compared.stderr)).toContainEqual(expect.stringMatching(new RegExp(`^replaying inside the service that owns DATA_DIR \\(pid ${service.child.pid}\\)`)));
    expect(report(compared)).toMatchObject({ mode: 'compare', identical: true, swapped: false, kept: [] });
    expect(rows(report(compared), 'account_developers')).toBe('2');

    const swapped = report(await replayCli(env, '--projection', 'accounts', '--swap', '--json'));
    expect(swapped).toMatchObject({ identical: true, swapped: true });
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    // The swapped-in table is the one the service reads, and its projector writes into it.
    expect((await register(env, 'a@example.test')).status).toBe(2);
    const third = printed(await register(env, 'c@example.test'));

    const firstEnd = { ...report(compared).positions.find((position) => position.projection === 'accounts' && position.next !== '0')! };
    const asItWas = report(await replayCli(env, '--projection', 'accounts', '--until', `accounts:0:${firstEnd.next}`, '--json'));
    expect(asItWas.mode).toBe('point-in-time');
    expect(rows(asItWas, 'account_developers')).toBe('2');
    expect(asItWas.kept).toEqual([asItWas.schema]);

    const bad = await replayCli(env, '--projection', 'accounts', '--until', 'accounts:0:99');
    expect(bad.status).toBe(2);
    // Checked by the service against its log, reported as the CLI's own input error.
    expect(ownLines(bad.stderr).at(-1)).toMatch(/^error: --until: accounts:0:99 is past the end of the log \(3\)$/);

    expect(await service.stop('SIGTERM')).toBe(0);
    // Nobody owns DATA_DIR now: the replay opens it itself.
    const alone = report(await replayCli(env, '--projection', 'accounts', '--json'));
    expect(alone).toMatchObject({ identical: true });
    expect(rows(alone, 'account_developers')).toBe('3');
    expect(third.developer_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  }, PROCESS_TESTS_MS);
});

describe('replay in a process that owns an embedded DATA_DIR (PGlite runs one transaction at a time)', () => {
  it('a swap rolls back, lets the rebuild catch up with the live projector and tries again; --as-of works on the embedded log', async () => {
    const dir = owners.dataDir();
    const runtime = await openRuntime(loadConfig({ DATA_DIR: dir }));
    const projectors = await startProjectors(runtime);
    const checksums = async (schema?: string) => Promise.all(catalogEntriesProjection.tables.map((table) => tableChecksum(runtime.db, table, schema)));
    try {
      expect(runtime.db.engine).toBe('pglite');
      await runtime.eventLog.append('catalog', catalogEvents(40));
      await awaitCaughtUp(runtime, [catalogEntriesProjection], 30_000);
      const early = { time: new Date(), checksums: await checksums() };

      const schema = 'swap_test_embedded';
      await createReplaySchema(runtime.db, 'public', schema, catalogEntriesProjection.tables);
      const rebuild = await startRebuild({ db: runtime.db, eventLog: runtime.eventLog, schema, projections: [catalogEntriesProjection] });
      const caughtUp: Positions[] = [];
      try {
        await rebuild.reach(await positionsIn(runtime.db, 'public', ['catalog-entries']));
        await runtime.eventLog.append('catalog', catalogEvents(25));
        await awaitCaughtUp(runtime, [catalogEntriesProjection], 30_000);
        const live = await positionsIn(runtime.db, 'public', ['catalog-entries']);
        const before = await checksums();
        await swapIntoLive(runtime.db, {
          live: 'public',
          rebuilt: schema,
          retired: `${schema}_retired`,
          projections: [catalogEntriesProjection],
          partitions: [{ projection: 'catalog-entries', topic: 'catalog', partition: 0 }],
          catchUp: async (positions) => {
            caughtUp.push(positions);
            await rebuild.reach(positions, 60_000);
          },
        });
        expect(caughtUp).toEqual([live]);
        expect(await checksums()).toEqual(before);
      } finally {
        await rebuild.stop();
      }
      await runtime.eventLog.append('catalog', catalogEvents(5));
      await awaitCaughtUp(runtime, [catalogEntriesProjection], 30_000);
      expect((await replay(runtime.db, runtime.eventLog, { projections: [catalogEntriesProjection] })).identical).toBe(true);

      const asOf = await replay(runtime.db, runtime.eventLog, { projections: [catalogEntriesProjection], pointInTime: { asOf: early.time } });
      expect(asOf.positions).toEqual([{ projection: 'catalog-entries', topic: 'catalog', partition: 0, next: '40' }]);
      expect(await checksums(asOf.schema)).toEqual(early.checksums);
      await dropSchemas(runtime.db, [schema, `${schema}_retired`, asOf.schema]);
    } finally {
      await projectors.stop();
      await runtime.close();
    }
  }, PROCESS_TESTS_MS);
});

describe('the service that owns an embedded DATA_DIR while it replays', () => {
  it('answers requests between the replay\'s batches (the embedded database runs one statement at a time)', async () => {
    const runtime = await openRuntime(loadConfig({ DATA_DIR: owners.dataDir() }));
    const projectors = await startProjectors(runtime);
    const app = await buildApp({ runtime });
    try {
      expect(runtime.db.engine).toBe('pglite');
      await runtime.eventLog.append('catalog', catalogEvents(4_000));
      await awaitCaughtUp(runtime, [catalogEntriesProjection], 60_000);

      // What happened, in order: the replay's progress (events applied) and each answer.
      const timeline: ({ kind: 'progress'; applied: number; target: number } | { kind: 'answer'; status: number })[] = [];
      let finished = false;
      const replayed = replay(runtime.db, runtime.eventLog, {
        projections: [catalogEntriesProjection],
        onProgress: ({ applied, target }) => void timeline.push({ kind: 'progress', applied, target }),
      }).finally(() => (finished = true));
      // One request after another, for as long as the replay runs: each waits only for the statement under way.
      while (!finished) {
        const response = await app.inject({ method: 'GET', url: '/readyz' });
        timeline.push({ kind: 'answer', status: response.statusCode });
      }
      expect((await replayed).identical).toBe(true);

      const answers = timeline.filter((entry) => entry.kind === 'answer');
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      // Answered while the replay had applied some events and not yet all of them: the rebuild
      // lets requests in between two of its batches.
      const midway = timeline.findIndex((entry) => entry.kind === 'progress' && entry.applied > 0 && entry.applied < entry.target);
      const allApplied = timeline.findIndex((entry) => entry.kind === 'progress' && entry.target > 0 && entry.applied === entry.target);
      expect(midway).toBeGreaterThanOrEqual(0);
      expect(timeline.slice(midway, allApplied).some((entry) => entry.kind === 'answer')).toBe(true);
    } finally {
      await app.close();
      await projectors.stop();
      await runtime.close();
    }
  }, PROCESS_TESTS_MS);
});
