import type { Db } from '../db/db.js';
import { hasSqlState, SQLSTATE } from '../db/sqlstate.js';

/** A LIKE pattern matching any text that holds `name` (its `_`, `%` and `\` taken literally). */
const holding = (name: string) => `%${name.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/**
 * Cancels the statements under way on this database whose text names one of `schemas`: the
 * replay's own (its tables are in those schemas), never the projectors' or another replay's.
 */
async function cancelStatementsNaming(db: Db, schemas: readonly string[]): Promise<void> {
  await db.query(
    `SELECT pg_cancel_backend(pid) FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND query LIKE ANY($1::text[])`,
    [schemas.map(holding)],
  );
}

/**
 * The work's result; once `signal` is aborted, the statements it has under way on Postgres that
 * name `schemas` are cancelled, and the work's failure for it is the signal's reason. A replay's
 * long statements (copying a large table, building its indexes, checksumming it, or waiting for
 * a lock) otherwise held a cancel (Ctrl-C, the service's shutdown) until they ended: minutes on a
 * large read model, past the shutdown's deadline. The embedded engine runs one statement at a time
 * in this process and cannot be interrupted: there the work goes on to its end.
 */
export async function cancelledWith<T>(db: Db, schemas: readonly string[], signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
  if (!signal || db.engine !== 'postgres') return work();
  signal.throwIfAborted();
  let again: NodeJS.Timeout | undefined;
  let cancelling: Promise<void> = Promise.resolve();
  // Again every CANCEL_AGAIN_MS: a work of several statements may be between two at the abort.
  const cancel = () => {
    cancelling = cancelStatementsNaming(db, schemas).catch(() => {});
    again = setTimeout(cancel, CANCEL_AGAIN_MS);
  };
  signal.addEventListener('abort', cancel, { once: true });
  try {
    return await work();
  } catch (error) {
    throw signal.aborted && hasSqlState(error, SQLSTATE.queryCanceled) ? signal.reason : error;
  } finally {
    signal.removeEventListener('abort', cancel);
    clearTimeout(again);
    // Not left to run later: it would cancel the clean-up's DROP SCHEMA, which names the schemas too.
    await cancelling;
  }
}

const CANCEL_AGAIN_MS = 250;
