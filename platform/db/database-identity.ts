import type { Sql } from './db.js';

/**
 * This database's own id (a migration writes it once): what tells its projectors' consumer groups
 * from another database's on the same topics.
 */
export async function databaseIdentity(sql: Sql): Promise<string> {
  const { rows } = await sql.query<{ id: string }>('SELECT id FROM database_identity');
  if (rows[0] === undefined) throw new Error('the database has no database_identity row; run npm run migrate');
  return rows[0].id;
}
