import type { Db } from './db.js';

/**
 * Sessions that stalled holding a lock others wait for. A process paused with a transaction open
 * (SIGSTOP, a frozen container or VM, an event loop that stopped) keeps its session (the host
 * answers the server's keepalives, and a session idle in its transaction, or a COPY waiting for
 * its data, is cancelled by no statement_timeout), and with it the transaction's locks, for as
 * long as it stalls. Ended, its transaction rolls back whole: nothing it wrote there is kept, and
 * the process, if it resumes, finds its session gone. Only sessions that name themselves for the
 * use (application_name, set for their transaction) are ended: an operator's session holding the
 * same lock is left alone.
 */
export interface StalledHolders {
  /** A query of the pids of the sessions holding the lock (with `values` as $1, $2, …). */
  holders: string;
  values: unknown[];
  /** The application_name the holders' transactions give themselves. */
  applicationName: string;
  /** How long a holder may take before it counts as stalled. */
  stalledAfterMs: number;
  /**
   * From when: the start of its transaction, or the end of its last statement (a holder that waits
   * between statements, idle in its transaction; one running a statement is never ended then).
   */
  since: 'transaction start' | 'last statement';
}

/** Ends the holders that stalled; resolves with how many. */
export async function endStalledHolders(db: Db, stalled: StalledHolders): Promise<number> {
  const next = stalled.values.length + 1;
  const cutoff = `now() - make_interval(secs => $${next + 1}::float8 / 1000)`;
  const stalledFor =
    stalled.since === 'transaction start'
      ? `activity.xact_start < ${cutoff}`
      : `activity.state = 'idle in transaction' AND activity.state_change < ${cutoff}`;
  const { rows } = await db.query<{ ended: boolean }>(
    `SELECT pg_terminate_backend(activity.pid) AS ended
     FROM pg_stat_activity activity
     WHERE activity.pid IN (${stalled.holders})
       AND activity.pid <> pg_backend_pid()
       AND activity.application_name = $${next}
       AND ${stalledFor}`,
    [...stalled.values, stalled.applicationName, stalled.stalledAfterMs],
  );
  return rows.filter((row) => row.ended).length;
}

export interface TakeOver {
  /** Whether `error` is the attempt's bounded wait for the lock running out. */
  waitedTooLong(error: unknown): boolean;
  /** What the caller is told when no stalled holder was found to end. */
  notStalled(error: unknown): Error;
}

/**
 * Runs `attempt` (a transaction whose wait for the lock is bounded) again once the stalled
 * holders of the lock are ended. A wait that no stalled holder caused fails with
 * `takeOver.notStalled`; any other failure of the attempt is its own.
 */
export async function takingOverStalledHolders<T>(db: Db, stalled: StalledHolders, takeOver: TakeOver, attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (db.engine !== 'postgres' || !takeOver.waitedTooLong(error)) throw error;
      if ((await endStalledHolders(db, stalled)) === 0) throw takeOver.notStalled(error);
    }
  }
}
