import type { Db } from '../db/db.js';
import { escapeIdentifier, qualified } from '../db/identifier.js';
import { idleInTransactionAtMost } from '../db/postgres.js';
import { hasSqlState, SQLSTATE } from '../db/sqlstate.js';
import { APPLIED_CHANNEL, SWAPPED_PAYLOAD } from './offsets.js';
import { positionsIn, samePositions, type Positions } from './positions.js';
import type { Projection } from './projection.js';

export interface SwapPlan {
  /** Schema of the live read models. */
  live: string;
  /** Schema holding the rebuilt tables and their positions (its own projection_offsets). */
  rebuilt: string;
  /** New schema the replaced live tables move to, with the positions they stood at. */
  retired: string;
  projections: Projection[];
  /** Every partition of the projections' topics: a position the live projector has not stored yet is locked too. */
  partitions: { projection: string; topic: string; partition: number }[];
  /** Brings the rebuilt read models to exactly these positions; rejects when they cannot get there in time. */
  catchUp(positions: Positions): Promise<void>;
}

/** The swap could not happen (nothing was changed). */
export class SwapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SwapError';
  }
}

/** How long a swap's catch-up (SwapPlan.catchUp) may take. */
export const SWAP_CATCH_UP_MS = 60_000;

/**
 * How long the swap's transaction may sit idle while the rebuild catches up under its locks: the
 * catch-up's own limit and a margin, whatever the session's DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS.
 */
const CATCH_UP_IDLE_MS = SWAP_CATCH_UP_MS + 5_000;

/** How long the swap waits in all for readers of the live tables (it needs them alone for a moment). */
const LOCK_BUDGET_MS = 10_000;
/**
 * How long one attempt waits for a lock before it lets go of everything and tries again. An
 * attempt holds the tables it has moved while it waits for the next: with one wait for the whole
 * budget, a long query on one table stopped every reader of the others for 10 s (the API's
 * deadlines are shorter: 503s); now they wait this long at most per attempt.
 */
const ATTEMPT_LOCK_TIMEOUT_MS = 250;
/** Between attempts, so that the readers queued behind the last one get their turn first. */
const ATTEMPT_PAUSE_MS = 50;
/** Rounds on the embedded database before giving up on a live projector that keeps moving ahead. */
const EMBEDDED_ATTEMPTS = 20;

/**
 * Makes the rebuilt tables the live ones, in one transaction, at the instant both stand at the
 * same log positions:
 *
 * 1. It locks the live projectors' offset rows of these projections (creating missing ones), so
 *    their next batch waits for this transaction: from here the live positions cannot move.
 * 2. When the rebuild is behind them, it catches up first: on Postgres inside the transaction (the
 *    live projector waits meanwhile, typically for a batch or two); on the embedded database, which
 *    runs one transaction at a time, by rolling back, catching up and trying again.
 * 3. It moves the live tables to `retired` and the rebuilt ones into the live schema (tables take
 *    their indexes and constraints along), keeps the old positions beside the retired tables, and
 *    notifies every process with an empty payload: watermarks are read again and caches emptied.
 *
 * The offsets move with the tables by construction: the rebuilt tables hold exactly the events
 * below the locked live positions, so those rows stay right (only `updated_at` changes, which is
 * part of the positions key caches compare). The waiting live projector then applies its batch
 * to the new tables and continues; no event is skipped or applied twice, and nothing needs to be
 * stopped. Readers wait for the renames for a moment (at most ATTEMPT_LOCK_TIMEOUT_MS an attempt;
 * after LOCK_BUDGET_MS of attempts, SwapError).
 */
export async function swapIntoLive(db: Db, plan: SwapPlan): Promise<Positions> {
  const names = plan.projections.map((projection) => projection.name);
  const tables = plan.projections.flatMap((projection) => projection.tables);
  const liveOffsets = qualified(plan.live, 'projection_offsets');
  const lockDeadline = performance.now() + LOCK_BUDGET_MS;
  for (let behindRounds = 1; ; ) {
    /** What the statement under way waits for, should its lock not come in time. */
    let waitingFor = `the live ${names.join(', ')} positions (a projector batch)`;
    const outcome = await db.transaction(async (tx): Promise<{ swapped: Positions } | { behind: Positions } | { locked: true }> => {
      await tx.query(`SET LOCAL lock_timeout = '${ATTEMPT_LOCK_TIMEOUT_MS}ms'`);
      await tx.query(
        `INSERT INTO ${liveOffsets} (projection, topic, partition, next_offset)
         SELECT projection, topic, partition, 0 FROM unnest($1::text[], $2::text[], $3::int[]) AS p(projection, topic, partition)
         ON CONFLICT DO NOTHING`,
        [plan.partitions.map((p) => p.projection), plan.partitions.map((p) => p.topic), plan.partitions.map((p) => p.partition)],
      );
      const live = await positionsIn(tx, plan.live, names, { lock: true });
      if (!samePositions(live, await positionsIn(tx, plan.rebuilt, names))) {
        if (db.engine === 'pglite') return { behind: live };
        await tx.query(idleInTransactionAtMost(CATCH_UP_IDLE_MS));
        await plan.catchUp(live);
        if (!samePositions(live, await positionsIn(tx, plan.rebuilt, names))) throw new SwapError('the rebuilt read models did not reach the live positions');
      }
      await tx.query(`CREATE SCHEMA ${escapeIdentifier(plan.retired)}`);
      for (const table of tables) {
        waitingFor = `the live ${table} table`;
        await tx.query(`ALTER TABLE ${qualified(plan.live, table)} SET SCHEMA ${escapeIdentifier(plan.retired)}`);
        waitingFor = `the rebuilt ${table} table`;
        await tx.query(`ALTER TABLE ${qualified(plan.rebuilt, table)} SET SCHEMA ${escapeIdentifier(plan.live)}`);
      }
      const retiredOffsets = qualified(plan.retired, 'projection_offsets');
      await tx.query(`CREATE TABLE ${retiredOffsets} (LIKE ${liveOffsets} INCLUDING ALL)`);
      await tx.query(`INSERT INTO ${retiredOffsets} SELECT * FROM ${liveOffsets} WHERE projection = ANY($1::text[])`, [names]);
      await tx.query(`UPDATE ${liveOffsets} SET updated_at = clock_timestamp() WHERE projection = ANY($1::text[])`, [names]);
      await tx.query('SELECT pg_notify($1, $2)', [APPLIED_CHANNEL, SWAPPED_PAYLOAD]);
      return { swapped: live };
    }).catch((error: unknown) => {
      // Rolled back whole: nothing was swapped and every lock it held is let go.
      if (hasSqlState(error, SQLSTATE.lockNotAvailable)) return { locked: true as const };
      throw error;
    });
    if ('swapped' in outcome) return outcome.swapped;
    if ('locked' in outcome) {
      // To retry (exit 4) once the reader is done, not a failed replay.
      if (performance.now() >= lockDeadline) {
        throw new SwapError(`${waitingFor} stayed in use by another session for ${LOCK_BUDGET_MS / 1000}s (a long query or an export reading it); retry once it is free`);
      }
      await new Promise((resolve) => setTimeout(resolve, ATTEMPT_PAUSE_MS));
      continue;
    }
    if (behindRounds >= EMBEDDED_ATTEMPTS) {
      throw new SwapError(`the live ${names.join(', ')} projector kept moving ahead of the rebuilt read model; retry when traffic is lower`);
    }
    behindRounds += 1;
    await plan.catchUp(outcome.behind);
  }
}
