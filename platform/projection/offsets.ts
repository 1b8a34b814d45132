import type { Sql } from '../db/db.js';
import { qualified } from '../db/identifier.js';
import type { TopicPartitionOffset } from '../events/event-log.js';

/** The channel every projector commit notifies with its new applied position. */
export const APPLIED_CHANNEL = 'projection_applied';
/**
 * What a swap of rebuilt read models into place notifies on that channel: every listener drops
 * what it holds and reads positions again, as after missed notifications, but it is no outage.
 */
export const SWAPPED_PAYLOAD = 'swapped';

/** Why positions must be read again: notifications may have been missed, or a replay swapped read models into place. */
export type PositionsReset = 'gap' | 'swap';

export interface AppliedPosition {
  projection: string;
  topic: string;
  partition: number;
  /** Next offset to apply: everything below it is in the read model. */
  next: string;
}

/**
 * A projection's applied positions as stored with its rows: the next offset per topic-partition
 * (of the live read models, or of those rebuilt into `schema` by a replay).
 */
export async function storedOffsets(db: Sql, projection: string, schema?: string): Promise<TopicPartitionOffset[]> {
  const { rows } = await db.query<{ topic: string; partition: number; next_offset: string }>(
    `SELECT topic, partition, next_offset FROM ${schema === undefined ? 'projection_offsets' : qualified(schema, 'projection_offsets')} WHERE projection = $1`,
    [projection],
  );
  return rows.map((row) => ({ topic: row.topic, partition: row.partition, offset: row.next_offset }));
}
