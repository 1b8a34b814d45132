import type { Sql } from '../../platform/db/db.js';

/**
 * Read-model digests the tests compare (a projection applied twice, a crash and a restart): row
 * counts and an order-independent digest of each table. The replay compares tables with
 * platform/projection/checksum.ts; these also give the tallies the tests assert on.
 */

/** Row counts and an order-independent digest of every accounts table: equal digests, equal read models. */
export async function accountsChecksum(sql: Sql) {
  const table = (name: string, key: string) =>
    `coalesce((SELECT string_agg(t::text, E'\\n' ORDER BY ${key}) FROM ${name} t), '')`;
  const { rows } = await sql.query<{ developers: string; applications: string; keys: string; placements: string; digest: string }>(
    `SELECT
       (SELECT count(*) FROM account_developers)::text AS developers,
       (SELECT count(*) FROM account_applications)::text AS applications,
       (SELECT count(*) FROM account_api_keys)::text AS keys,
       (SELECT count(*) FROM account_placements)::text AS placements,
       md5(${table('account_developers', 'developer_id')} || ${table('account_applications', 'application_id')}
           || ${table('account_api_keys', 'key_id')} || ${table('account_placements', 'placement_id')}
           || ${table('account_default_placement', 'singleton')}) AS digest`,
  );
  return rows[0]!;
}

/** Row counts and an order-independent digest of both tables: equal digests mean equal read models. */
export async function catalogChecksum(sql: Sql) {
  const { rows } = await sql.query<{ entries: string; tallied_events: string; amount_total: string; digest: string }>(
    `SELECT
       (SELECT count(*) FROM catalog_entries)::text AS entries,
       (SELECT coalesce(sum(applied_events), 0) FROM catalog_entry_tallies)::text AS tallied_events,
       (SELECT coalesce(sum(amount_total), 0) FROM catalog_entry_tallies)::text AS amount_total,
       md5(
         coalesce((SELECT string_agg(concat_ws('|', entry_id, name, amount::text, currency, tags::text,
                   recorded_at::text, removed::text, removal_reason, last_event_id), E'\\n' ORDER BY entry_id) FROM catalog_entries), '')
         || coalesce((SELECT string_agg(concat_ws('|', entry_id, applied_events::text, amount_total::text), E'\\n' ORDER BY entry_id)
                   FROM catalog_entry_tallies), '')
       ) AS digest`,
  );
  return rows[0]!;
}
