import type { Sql } from '../../platform/db/db.js';

/** Row count and an order-independent md5 over every row's text form: equal means identical tables. */
export async function tableChecksum(sql: Sql, table: string): Promise<{ rows: string; md5: string }> {
  const { rows } = await sql.query<{ rows: string; md5: string }>(
    `SELECT count(*)::text AS rows, coalesce(md5(string_agg(t::text, E'\\n' ORDER BY t::text)), '') AS md5 FROM ${table} AS t`,
  );
  return rows[0]!;
}
