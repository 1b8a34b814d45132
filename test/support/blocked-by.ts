import type { Sql } from '../../platform/db/db.js';

/**
 * Whether a session waits on a lock the session `holderPid` holds (its statement matching `query`,
 * a LIKE pattern): only that holder's, since the test files running beside hold locks of their own
 * and a session waiting on one of those is no sign of the process under test.
 */
export async function blockedBy(sql: Sql, holderPid: number, query = '%'): Promise<boolean> {
  const { rows } = await sql.query('SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)) AND query LIKE $2', [holderPid, query]);
  return rows.length > 0;
}
