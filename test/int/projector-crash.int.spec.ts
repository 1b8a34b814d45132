import { rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../platform/config/config.js';
import type { NewEvent } from '../../platform/events/event-log.js';
import { openRuntime, type Runtime } from '../../platform/runtime.js';
import { catalogEntriesProjection } from '../../projections/catalog-entries/projection.js';
import { catalogChecksum } from '../support/read-model-checksums.js';
import { testEnvironment } from '../support/app.js';
import { catalogEvents, expectedTotals } from '../support/catalog-events.js';
import { startServiceProcess } from '../support/child-process.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { replayProjection } from '../support/replay.js';
import { dataDirWithCluster } from '../support/embedded-cluster.js';

const isBatchApplied = (entry: Record<string, unknown>) => entry.event === 'batch_applied';
const isCaughtUp = (entry: Record<string, unknown>) => entry.event === 'caught_up';

async function appendAll(runtime: Runtime, events: NewEvent[]) {
  for (let start = 0; start < events.length; start += 5_000) {
    await runtime.eventLog.append('catalog', events.slice(start, start + 5_000));
  }
}

/**
 * SIGKILL the projector while it works through a large backlog, restart it, and check that
 * every event was applied exactly once: the tally table counts applications, so a duplicate or
 * a gap changes the totals, and a full replay must give the same digest.
 */
async function crashAndRecover(env: Record<string, string>, open: () => Promise<Runtime>, events: NewEvent[]) {
  const first = startServiceProcess('services/projector/main.ts', env);
  await first.waitForLog(isBatchApplied);
  await first.stop('SIGKILL');

  let runtime = await open();
  const partial = await catalogChecksum(runtime.db);
  await runtime.close();
  // Killed part-way: some but not all of the backlog was applied.
  expect(Number(partial.tallied_events)).toBeGreaterThan(0);
  expect(Number(partial.tallied_events)).toBeLessThan(events.length);

  const second = startServiceProcess('services/projector/main.ts', env);
  await second.waitForLog(isCaughtUp, 240_000);
  expect(await second.stop('SIGTERM')).toBe(0);

  runtime = await open();
  try {
    const totals = expectedTotals(events);
    const recovered = await catalogChecksum(runtime.db);
    expect(recovered).toMatchObject({
      entries: String(totals.entries),
      tallied_events: String(totals.events),
      amount_total: totals.amount,
    });
    await replayProjection(runtime.db, runtime.eventLog, catalogEntriesProjection);
    expect(await catalogChecksum(runtime.db)).toEqual(recovered);
  } finally {
    await runtime.close();
  }
}

describe('projector crash recovery', () => {
  let database: TestDatabase | undefined;
  let dataDir: string | undefined;
  afterAll(async () => {
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('on Kafka: a SIGKILL mid-backlog loses and duplicates nothing', async () => {
    database = await createTestDatabase();
    const env = { ...testEnvironment(database, `t${randomBytes(4).toString('hex')}.`, { eventLog: 'kafka' }), LOG_LEVEL: 'info' };
    const open = () => openRuntime(loadConfig(env));
    const events = catalogEvents(60_000, 9_000);
    const writer = await open();
    await appendAll(writer, events);
    await writer.close();
    await crashAndRecover(env, open, events);
  }, 300_000);

  it('on the embedded default: a SIGKILL mid-backlog loses and duplicates nothing', async () => {
    dataDir = dataDirWithCluster('offer-ledger-crash-');
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'info' };
    const open = () => openRuntime(loadConfig(env));
    const events = catalogEvents(30_000, 5_000);
    const writer = await open();
    await appendAll(writer, events);
    await writer.close();
    await crashAndRecover(env, open, events);
  }, 300_000);
});
