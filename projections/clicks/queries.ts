import type { Sql } from '../../platform/db/db.js';
import type { ClickRow } from './evolve.js';

/** A click by its svc_click_id (canonical lowercase UUID), for attribution. */
export async function findClick(sql: Sql, clickId: string): Promise<ClickRow | undefined> {
  const { rows } = await sql.query<ClickRow>('SELECT * FROM clicks WHERE svc_click_id = $1', [clickId]);
  return rows[0];
}
