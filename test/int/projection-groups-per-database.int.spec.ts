import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { startProjection, type RunningProjection } from '../../platform/projection/runner.js';
import { openRuntime, type Runtime } from '../../platform/runtime.js';
import { catalogEntriesProjection } from '../../projections/catalog-entries/projection.js';
import { catalogChecksum } from '../support/read-model-checksums.js';
import { createTestRuntime, testEnvironment, type TestRuntime } from '../support/app.js';
import { catalogEvents, expectedTotals } from '../support/catalog-events.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Two databases whose projectors read the topics of one TOPIC_PREFIX (a second environment, a
 * database being seeded beside a running service): each builds its read models from every
 * partition. Consumer groups named by the prefix alone made them one group, and each database got
 * a share of the partitions (the other's events never came).
 */
let first: TestRuntime;
let secondDatabase: TestDatabase;
let second: Runtime;
const running: RunningProjection[] = [];

beforeAll(async () => {
  first = await createTestRuntime({ eventLog: 'kafka' });
  secondDatabase = await createTestDatabase();
  second = await openRuntime(loadConfig(testEnvironment(secondDatabase, first.topicPrefix, { eventLog: 'kafka' })));
});
afterAll(async () => {
  for (const projection of running) await projection.stop();
  await second?.close();
  await secondDatabase?.drop();
  await first?.close();
});

it('gives each database every partition of the topics it reads, even when they share a TOPIC_PREFIX', async () => {
  const events = catalogEvents(600);
  await first.runtime.eventLog.append('catalog', events);
  for (const runtime of [first.runtime, second]) running.push(await startProjection(catalogEntriesProjection, { db: runtime.db, eventLog: runtime.eventLog }));
  await Promise.all([first.runtime, second].map((runtime) => awaitCaughtUp(runtime, [catalogEntriesProjection], 30_000)));
  const expected = String(expectedTotals(events).events);
  expect([(await catalogChecksum(first.runtime.db)).tallied_events, (await catalogChecksum(second.db)).tallied_events]).toEqual([expected, expected]);
});

/**
 * A copy of a database (pg_dump and restore, CREATE DATABASE … TEMPLATE) keeps its id, so its
 * projectors join the original's groups. A partition handed over to the original's projector then
 * starts where the copy's member committed, past what the original applied: the log sends it back
 * to the subscriber's own offsets instead of skipping those events for good.
 */
it('starts a partition handed over mid-run at its own offsets, not at another database\'s member\'s commit', async () => {
  const copyDatabase = await createTestDatabase();
  const copy = await openRuntime(loadConfig(testEnvironment(copyDatabase, first.topicPrefix, { eventLog: 'kafka' })));
  const own: RunningProjection[] = [];
  try {
    const { rows: [original] } = await first.runtime.db.query<{ id: string }>('SELECT id FROM database_identity');
    await copy.db.query('UPDATE database_identity SET id = $1', [original!.id]);
    // The catalog projection of the first test is still running against the first database; a
    // second one there and one in the copy make three members of one group.
    own.push(await startProjection(catalogEntriesProjection, { db: copy.db, eventLog: copy.eventLog }));
    const before = Number((await catalogChecksum(first.runtime.db)).tallied_events);
    const events = catalogEvents(900, 300).map((event) => ({ ...event, key: `copy-${event.key}` }));
    await first.runtime.eventLog.append('catalog', events);
    // Each member applies its share; the copy's commits its group offsets (and does when it stops).
    const applied = async (db: typeof copy.db) => Number((await catalogChecksum(db)).tallied_events);
    const offsets = async (db: typeof copy.db) =>
      new Map(
        (await db.query<{ partition: number; next_offset: string }>("SELECT partition, next_offset FROM projection_offsets WHERE projection = $1 AND topic = 'catalog'", [catalogEntriesProjection.name]))
          .rows.map((row) => [row.partition, BigInt(row.next_offset)]),
      );
    await waitFor(
      async () => {
        const [original, copied] = [await offsets(first.runtime.db), await offsets(copy.db)];
        return [...copied].some(([partition, offset]) => offset > (original.get(partition) ?? 0n));
      },
      { what: 'the copy applies past the original on a partition of its own' },
    );
    await own.pop()!.stop();
    await awaitCaughtUp(first.runtime, [catalogEntriesProjection], 30_000);
    expect(await applied(first.runtime.db)).toBe(before + expectedTotals(events).events);
  } finally {
    for (const projection of own) await projection.stop();
    await copy.close();
    await copyDatabase.drop();
  }
});
