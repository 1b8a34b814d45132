import type { Sql } from '../../platform/db/db.js';
import { tableChecksum } from '../../platform/projection/checksum.js';

/**
 * Read-model digests the tests compare (a projection applied twice, a crash and a restart): the
 * replay's own table checksums (platform/projection/checksum.ts) of every table, with the row
 * counts and tallies the tests assert on.
 */

/** One digest of `tables`, each by the replay's checksum: equal digests, equal tables. */
async function digestOf(sql: Sql, tables: string[]): Promise<string> {
  const checksums = await Promise.all(tables.map((table) => tableChecksum(sql, table)));
  return checksums.map((checksum, index) => `${tables[index]}:${checksum.rows}:${checksum.md5}`).join(' ');
}

/** Row counts and a digest of every accounts table: equal digests, equal read models. */
export async function accountsChecksum(sql: Sql) {
  const { rows } = await sql.query<{ developers: string; applications: string; keys: string; placements: string }>(
    `SELECT
       (SELECT count(*) FROM account_developers)::text AS developers,
       (SELECT count(*) FROM account_applications)::text AS applications,
       (SELECT count(*) FROM account_api_keys)::text AS keys,
       (SELECT count(*) FROM account_placements)::text AS placements`,
  );
  const digest = await digestOf(sql, ['account_developers', 'account_applications', 'account_api_keys', 'account_placements', 'account_default_placement']);
  return { ...rows[0]!, digest };
}

/** Row counts, tallies and a digest of both tables: equal digests mean equal read models. */
export async function catalogChecksum(sql: Sql) {
  const { rows } = await sql.query<{ entries: string; tallied_events: string; amount_total: string }>(
    `SELECT
       (SELECT count(*) FROM catalog_entries)::text AS entries,
       (SELECT coalesce(sum(applied_events), 0) FROM catalog_entry_tallies)::text AS tallied_events,
       (SELECT coalesce(sum(amount_total), 0) FROM catalog_entry_tallies)::text AS amount_total`,
  );
  const digest = await digestOf(sql, ['catalog_entries', 'catalog_entry_tallies']);
  return { ...rows[0]!, digest };
}
