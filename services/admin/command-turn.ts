import { CommandUnavailableError } from '../../commands/command.js';
import { ADVISORY_LOCK_HOLDERS, ADVISORY_LOCK_KEYS } from '../../platform/db/advisory-locks.js';
import { hasSqlState, SQLSTATE } from '../../platform/db/sqlstate.js';
import { takingOverStalledHolders, type StalledHolders } from '../../platform/db/stalled-sessions.js';
import type { Runtime } from '../../platform/runtime.js';

/** What pg_stat_activity names a session while it holds an admin command's turn (for that transaction only). */
export const HOLDING_COMMAND_TURN = 'offer-ledger admin command';

/**
 * How long a turn may last once taken (the default of ExecutorOptions.turnLimitMs). A running
 * process's turn ends well within it (10 s of catch-up, 5 s of work, 5 s for its events to be
 * applied); one held longer is a process paused or stalled in the middle of a command, whose
 * session another process's command ends (holdingCommandTurn). Every process on one database must
 * use the same limit.
 */
export const TURN_LIMIT_MS = 30_000;

/** Beyond a turn's limit, before the server itself ends a session idle in the turn's transaction. */
const TURN_IDLE_MARGIN_MS = 5_000;

/** The caller's answer when another process's command held the turn too long, and is not stalled: it never runs. */
export const COMMAND_NOT_STARTED_ELSEWHERE = 'an admin command of another process is still running; nothing was done; retry shortly';

/** The answer of a command that reaches its append after its turn ended or may have been taken over. */
export const COMMAND_TURN_LOST =
  'the command held its turn longer than a turn may last (its process was paused or stalled), so another process may have taken it over; nothing was written; retry';

/** The turn of one command, while it holds it. */
export interface CommandTurn {
  /** Aborts when the turn ends: an append not sent by then is taken back (never written). */
  readonly signal: AbortSignal;
  /** Resolves while the turn is still this command's; rejects with COMMAND_TURN_LOST once it may not be. */
  confirm(): Promise<void>;
}

/** A wait for the turn that ran out (told apart from a lock wait of the command's own work). */
class TurnWaitTimedOut extends Error {}

const stalledTurns = (turnLimitMs: number): StalledHolders => ({
  holders: ADVISORY_LOCK_HOLDERS,
  values: [ADVISORY_LOCK_KEYS.adminCommands],
  applicationName: HOLDING_COMMAND_TURN,
  stalledAfterMs: turnLimitMs,
  // The lock's transaction is idle for the whole turn: the command works on other sessions.
  since: 'last statement',
});

/**
 * Runs `work` holding the database's admin-command lock, so commands of several processes on one
 * Postgres (API processes, the admin CLI) take turns as one process's do: each checks the read
 * models after the previous one's events are applied (an email registered on one API is found by
 * the next registration on another). A transaction-scoped
 * advisory lock, held by an otherwise idle transaction for the command's turn; waiting for it at
 * most `waitMs()`, and at most `turnLimitMs` at a time: a holder idle that long is a process
 * paused in the middle of a command, whose session is ended (its transaction rolls back, and the
 * lock with it) before the wait starts again. Its command, if the process resumes, finds its turn
 * gone at its append (fencedRuntime), so it writes nothing it checked under that turn. A wait
 * that no stalled holder caused is refused (COMMAND_NOT_STARTED_ELSEWHERE). An embedded database
 * has one process, whose queue is enough (and one session, which a held transaction would block).
 */
export async function holdingCommandTurn<T>(runtime: Runtime, waitMs: () => number, turnLimitMs: number, work: (turn?: CommandTurn) => Promise<T>): Promise<T> {
  const { db } = runtime;
  if (db.engine !== 'postgres') return work();
  const takeOver = {
    waitedTooLong: (error: unknown) => error instanceof TurnWaitTimedOut,
    notStalled: () => new CommandUnavailableError('COMMAND_UNAVAILABLE', COMMAND_NOT_STARTED_ELSEWHERE),
  };
  return takingOverStalledHolders(db, stalledTurns(turnLimitMs), takeOver, () =>
    db.transaction(async (tx) => {
      const wait = Math.max(1, Math.round(Math.min(waitMs(), turnLimitMs)));
      // Idle in its transaction for the whole turn, whatever DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS
      // says (the command works on other sessions): the server ends it a moment after the turn's limit.
      await tx.query(
        "SELECT set_config('application_name', $1, true), set_config('lock_timeout', $2, true), set_config('idle_in_transaction_session_timeout', $3, true)",
        [HOLDING_COMMAND_TURN, `${wait}ms`, `${Math.round(turnLimitMs + TURN_IDLE_MARGIN_MS)}ms`],
      );
      try {
        await tx.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCK_KEYS.adminCommands]);
      } catch (error) {
        if (hasSqlState(error, SQLSTATE.lockNotAvailable)) throw new TurnWaitTimedOut('the wait for the admin-command lock ran out', { cause: error });
        throw error;
      }
      // On the monotonic clock, from when the lock was granted (the holder's wait is not its turn).
      const takenAt = performance.now();
      const ended = new AbortController();
      const lost = () => {
        ended.abort();
        return new CommandUnavailableError('COMMAND_UNAVAILABLE', COMMAND_TURN_LOST);
      };
      const over = () => ended.signal.aborted || performance.now() - takenAt >= turnLimitMs;
      const turn: CommandTurn = {
        signal: ended.signal,
        async confirm() {
          if (over()) throw lost();
          // The session that holds the lock still answers: it was not ended as a stalled holder's
          // (a monotonic clock may not count a frozen VM's time).
          await tx.query('SELECT 1').catch(() => {
            throw lost();
          });
          if (over()) throw lost();
        },
      };
      try {
        return await work(turn);
      } finally {
        ended.abort();
      }
    }),
  );
}

/**
 * The runtime a command runs with during `turn`: each append is sent only while the turn is still
 * the command's (confirmed just before), and is taken back if the turn ends before it is sent. A
 * process paused in the middle of a command and resumed after another process took its turn over
 * would otherwise append what it checked against read models that have moved on (an email
 * registered twice). A pause between that confirmation and the send itself is not covered: the
 * log has no condition to append on.
 */
export function fencedRuntime(runtime: Runtime, turn: CommandTurn | undefined): Runtime {
  if (!turn) return runtime;
  const log = runtime.eventLog;
  return {
    ...runtime,
    eventLog: {
      ...log,
      async append(topic, events, options = {}) {
        await turn.confirm();
        const signal = options.signal ? AbortSignal.any([options.signal, turn.signal]) : turn.signal;
        return log.append(topic, events, { ...options, signal });
      },
    },
  };
}
