import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import { startProjection, type RunningProjection } from '../../platform/projection/runner.js';
import { openRuntime, type Runtime } from '../../platform/runtime.js';
import { catalogEntriesProjection } from '../../projections/catalog-entries/projection.js';
import { catalogChecksum } from '../../projections/catalog-entries/queries.js';
import { createTestRuntime, testEnvironment, type TestRuntime } from '../support/app.js';
import { catalogEvents, expectedTotals } from '../support/catalog-events.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

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
