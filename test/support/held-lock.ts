import pg from 'pg';

/**
 * A session of the test's own that runs `lock` (a LOCK TABLE, a SELECT … FOR UPDATE) in an open
 * transaction and keeps it until `release`: what holds a process under test at a known statement.
 */
export async function holdLock(databaseUrl: string, lock: string): Promise<{ pid: number; release(): Promise<void> }> {
  const session = new pg.Client({ connectionString: databaseUrl });
  await session.connect();
  const pid = (await session.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  await session.query('BEGIN');
  await session.query(lock);
  return {
    pid,
    async release() {
      await session.query('ROLLBACK');
      await session.end();
    },
  };
}
