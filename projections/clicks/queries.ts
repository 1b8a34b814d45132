import type { Sql } from '../../platform/db/db.js';
import type { ClickRow } from './evolve.js';

/** A click by its svc_click_id (canonical lowercase UUID), for attribution. */
export async function findClick(sql: Sql, clickId: string): Promise<ClickRow | undefined> {
  return (await findClicks(sql, [clickId])).get(clickId);
}

/** findClick for many ids in one statement; unknown ids are absent. */
export async function findClicks(sql: Sql, clickIds: readonly string[]): Promise<Map<string, ClickRow>> {
  const { rows } = await sql.query<ClickRow>('SELECT * FROM clicks WHERE svc_click_id = ANY($1::text[])', [clickIds]);
  return new Map(rows.map((row) => [row.svc_click_id, row]));
}
