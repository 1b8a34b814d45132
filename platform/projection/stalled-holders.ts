import type { Db } from '../db/db.js';
import { escapeLiteral } from '../db/identifier.js';
import { hasSqlState, SQLSTATE } from '../db/sqlstate.js';
import { takingOverStalledHolders, type StalledHolders } from '../db/stalled-sessions.js';

/**
 * How long a batch waits for its projection's offset rows before it looks at who holds them.
 * Only a runner that is no longer the partition's owner holds them while another waits (the
 * consumer group hands a partition over once its member is gone: its session timed out, or it
 * did not rejoin a rebalance in time), and a batch takes well under this while its process runs.
 */
export const OFFSET_ROWS_WAIT_MS = 10_000;

/** What pg_stat_activity names a session while it applies a batch of `projection` (for that transaction only). */
export const applyingAs = (projection: string) => `offer-ledger applying ${projection}`;

/**
 * The first statement of a batch's transaction: it names the session as applying `projection` and
 * bounds lock waits at OFFSET_ROWS_WAIT_MS. Both last until the transaction ends.
 */
export const applyingWithBoundedWait = (projection: string) =>
  `SELECT set_config('application_name', ${escapeLiteral(applyingAs(projection))}, true), set_config('lock_timeout', '${OFFSET_ROWS_WAIT_MS}ms', true)`;

/** Lock waits after the offset rows are taken: as the session would have them (none, unless the connection sets one). */
export const UNBOUNDED_WAIT_AGAIN = 'SET LOCAL lock_timeout TO DEFAULT';

/**
 * The sessions that have held `projection`'s offset rows of these partitions, in a batch of
 * theirs, for longer than OFFSET_ROWS_WAIT_MS (platform/db/stalled-sessions.ts). Its locks would
 * hold every later batch of its partitions, handed over to another projector, for as long as it
 * stalls; ended, the process, if it resumes, finds its batch failed and the partitions gone.
 * Holders of other kinds (a replay's swap, an operator's session) are left alone: only a runner's
 * transaction carries `applyingAs`.
 */
function stalledRunners(projection: string, partitions: { topic: string; partition: number }[]): StalledHolders {
  return {
    holders: `SELECT held.pid
      FROM projection_offsets offsets
      JOIN pg_locks held ON held.locktype = 'transactionid' AND held.mode = 'ExclusiveLock' AND held.granted AND held.transactionid = offsets.xmax
      WHERE offsets.projection = $1
        AND (offsets.topic, offsets.partition) IN (SELECT * FROM unnest($2::text[], $3::int[]))`,
    values: [projection, partitions.map((p) => p.topic), partitions.map((p) => p.partition)],
    applicationName: applyingAs(projection),
    stalledAfterMs: OFFSET_ROWS_WAIT_MS,
    since: 'transaction start',
  };
}

/**
 * Runs `attempt` (a batch's transaction, opened with applyingWithBoundedWait) again once the
 * stalled runners that held its offset rows are ended. A lock wait that no stalled runner caused
 * fails as before, saying so; the consumer retries the batch.
 */
export async function takingOverStalledRunners<T>(db: Db, projection: string, partitions: { topic: string; partition: number }[], attempt: () => Promise<T>): Promise<T> {
  return takingOverStalledHolders(
    db,
    stalledRunners(projection, partitions),
    {
      waitedTooLong: (error) => hasSqlState(error, SQLSTATE.lockNotAvailable),
      notStalled: (error) =>
        new Error(`the ${projection} batch waited ${OFFSET_ROWS_WAIT_MS / 1000} s for a lock held by another session that is not a stalled batch of its own; retrying`, { cause: error }),
    },
    attempt,
  );
}
