import type { Sql } from '../../platform/db/db.js';

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
