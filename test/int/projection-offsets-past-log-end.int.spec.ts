import { afterAll, beforeAll, expect, it } from 'vitest';
import { startProjection, type RunningProjection } from '../../platform/projection/runner.js';
import { catalogEntriesProjection } from '../../projections/catalog-entries/projection.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { catalogEvents } from '../support/catalog-events.js';

/**
 * A database whose projection offsets lie past the end of the log it is started on (its read
 * models were built from another log: topics deleted and created again, another cluster). Kafka
 * answers such a start OFFSET_OUT_OF_RANGE and kafkajs moves the consumer to the log's start, so
 * the projection skipped every event below its offsets without a word, and its readers took their
 * new writes for applied. The start fails instead, naming the partition and both offsets.
 */
let t: TestRuntime;
const running: RunningProjection[] = [];

beforeAll(async () => {
  t = await createTestRuntime({ eventLog: 'kafka' });
});
afterAll(async () => {
  for (const projection of running) await projection.stop();
  await t?.close();
});

const setOffsets = async (shift: bigint) => {
  await t.runtime.db.query('DELETE FROM projection_offsets WHERE projection = $1', [catalogEntriesProjection.name]);
  for (const end of await t.runtime.eventLog.endOffsets('catalog')) {
    await t.runtime.db.query("INSERT INTO projection_offsets (projection, topic, partition, next_offset) VALUES ($1, 'catalog', $2, $3)", [
      catalogEntriesProjection.name,
      end.partition,
      (BigInt(end.offset) + shift).toString(),
    ]);
  }
};

it('refuses to start a projection whose offsets lie past the end of the log', async () => {
  await t.runtime.eventLog.append('catalog', catalogEvents(30));
  const ends = await t.runtime.eventLog.endOffsets('catalog');
  await setOffsets(100n);
  const started = startProjection(catalogEntriesProjection, { db: t.runtime.db, eventLog: t.runtime.eventLog });
  // Kept for afterAll should it start (the defect): its consumer would otherwise outlive the test.
  void started.then((projection) => running.push(projection), () => {});
  const { partition, offset } = ends[0]!;
  await expect(started).rejects.toThrow(new RegExp(`catalog/${partition} at offset ${BigInt(offset) + 100n}, the log ends at ${offset}`));
});

it('starts one whose offsets are at the end of the log', async () => {
  await setOffsets(0n);
  running.push(await startProjection(catalogEntriesProjection, { db: t.runtime.db, eventLog: t.runtime.eventLog }));
});
