import type { Db } from '../../platform/db/db.js';
import type { EventLog } from '../../platform/events/event-log.js';
import type { Projection } from '../../platform/projection/projection.js';
import { startProjection } from '../../platform/projection/runner.js';
import { waitFor } from './wait-for.js';

/** Drops a projection's rows and offsets, then rebuilds it from the log until it has caught up. */
export async function replayProjection(db: Db, eventLog: EventLog, projection: Projection) {
  await db.transaction(async (tx) => {
    for (const table of projection.tables) await tx.query(`DELETE FROM ${table}`);
    await tx.query('DELETE FROM projection_offsets WHERE projection = $1', [projection.name]);
  });
  const running = await startProjection(projection, { db, eventLog });
  try {
    await waitFor(async () => (await running.lag()).every((partition) => partition.lag === 0), {
      what: `${projection.name} replay`,
      timeoutMs: 120_000,
    });
  } finally {
    await running.stop();
  }
}
