import type { Sql } from '../../platform/db/db.js';
import type { ServedInstanceRow } from './evolve.js';

const COLUMNS = `offer_instance_id, application_id, placement_id, offer_id, served_at, environment, anonymous,
  location_id, link_code, link_url, destination_url`;

/** The served cards among `ids` (canonical lowercase UUIDs), in no particular order; unknown ids are absent. */
export async function findServedInstances(sql: Sql, ids: string[]): Promise<ServedInstanceRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<ServedInstanceRow>(`SELECT ${COLUMNS} FROM served_instances WHERE offer_instance_id = ANY($1::text[])`, [ids]);
  return rows;
}

/**
 * The card whose tracked short link has this code, if any: the first served (then the least id)
 * should two cards ever hold one code (see the link code index's migration).
 */
export async function findServeByLinkCode(sql: Sql, code: string): Promise<ServedInstanceRow | undefined> {
  const { rows } = await sql.query<ServedInstanceRow>(
    `SELECT ${COLUMNS} FROM served_instances WHERE link_code = $1 ORDER BY served_at, offer_instance_id LIMIT 1`,
    [code],
  );
  return rows[0];
}

/**
 * findServeByLinkCode for many codes in one statement: the card of each known code (the same one
 * findServeByLinkCode picks); unknown codes are absent. One index probe per code (a lateral
 * LIMIT 1), never a scan, whatever the planner knows of the table.
 */
export async function findServesByLinkCodes(sql: Sql, codes: readonly string[]): Promise<Map<string, ServedInstanceRow>> {
  if (codes.length === 0) return new Map();
  const { rows } = await sql.query<ServedInstanceRow>(
    `SELECT card.* FROM unnest($1::text[]) AS code
     CROSS JOIN LATERAL (SELECT ${COLUMNS} FROM served_instances WHERE link_code = code ORDER BY served_at, offer_instance_id LIMIT 1) AS card`,
    [codes],
  );
  return new Map(rows.map((row) => [row.link_code!, row]));
}

/**
 * Which of `codes` a served card's tracked short link already holds (minting checks before use).
 * One index probe per code, written as a semi-join: link_code is not unique, so before the table's
 * first ANALYZE (a new database, a swapped-in replay) `link_code = ANY(…)` was planned as a
 * sequential scan of every served card, once per refill of the link code reserve.
 */
export async function servedLinkCodes(sql: Sql, codes: string[]): Promise<string[]> {
  if (codes.length === 0) return [];
  const { rows } = await sql.query<{ link_code: string }>(
    'SELECT code AS link_code FROM unnest($1::text[]) AS code WHERE EXISTS (SELECT 1 FROM served_instances WHERE link_code = code)',
    [codes],
  );
  return rows.map((row) => row.link_code);
}
