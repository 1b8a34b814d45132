import type { Sql } from '../db/db.js';
import type { LoggedEvent } from '../events/event-log.js';

/**
 * A read model built from the log. The runner calls `apply` with one batch of one
 * topic-partition (several, see acrossPartitions) inside the transaction that also advances the
 * projection's offsets, so the rows and the offsets commit together. `apply` never opens a transaction of its own, and should
 * write set-based (one statement per table, not per event). Events it does not handle are skipped
 * by the projection itself. Its SQL names tables unqualified: a replay runs the same `apply` with
 * a schema of its own first on the search path (platform/projection/replay.ts).
 */
export interface Projection {
  /** Also the consumer group name and the key of its rows in projection_offsets. */
  name: string;
  topics: string[];
  apply(tx: Sql, events: LoggedEvent[]): Promise<void>;
  /**
   * True when events of different partitions never touch the same rows (inserts keyed by ids
   * minted per event): `apply` may then get the events of several partitions in one call, each
   * partition's in log order.
   */
  acrossPartitions?: boolean;
  /**
   * For a read model whose apply only inserts rows that are not there yet, so that applying an
   * event again changes nothing (with acrossPartitions): the apply of a small batch as one
   * parameter-free statement, '' when it writes nothing. The runner then sends it with the move of
   * the offsets and its notification in one round trip, without reading the offsets first.
   */
  applyStatement?(events: LoggedEvent[]): string;
  /** Tables it owns, emptied (in this order) when the read model is rebuilt from the log. */
  tables: string[];
}
