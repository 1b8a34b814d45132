import type pg from 'pg';
import type { LogPage, PostbackLogFilter } from '../../projections/ledger/queries.js';

/**
 * A postback_log of any size written by SQL alone (generate_series), for the searches of the
 * operator page: 200 partners (in runs of 100 rows) over 90 days, 90 % accepted, 5 %
 * already_recorded, 3 % unmapped, 2 % identity_conflict. Used by the search benchmark and by the
 * test that each search reads the index the README names.
 */
/** A UUID-shaped id from a number (its first 48 bits, time-like) and a salt (the rest). */
const UUID_OF = `CREATE FUNCTION pg_temp.uuid_of(prefix bigint, salt text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(m, 1, 3) || '-8' || substr(m, 4, 3) || '-' || substr(m, 7, 12)
  FROM (SELECT lpad(to_hex(prefix), 12, '0') AS h, md5(salt) AS m) x $$`;

const SEED = `INSERT INTO postback_log
SELECT pg_temp.uuid_of(ms, 'c' || i), i % 12, i / 12, pg_temp.uuid_of(1000 + (i / 100) % 200, 'p' || ((i / 100) % 200)), kind,
  CASE kind WHEN 'event_id' THEN json_build_array(kind, 'evt-' || idn)::text WHEN 'order_id' THEN json_build_array(kind, 'purchase', 'ord-' || idn)::text ELSE json_build_array(kind, 'txn-' || idn)::text END,
  md5('f' || idn), decision,
  CASE WHEN idn <> i THEN pg_temp.uuid_of(ms - 7776, 'c' || idn) ELSE pg_temp.uuid_of(ms, 'c' || i) END,
  'current', '203.0.113.' || (i % 250), t, 'purchase',
  CASE WHEN kind = 'event_id' THEN 'evt-' || idn END,
  CASE WHEN kind = 'order_id' OR i % 7 = 0 THEN 'ord-' || idn END,
  CASE WHEN kind = 'partner_txn_id' OR i % 5 = 0 THEN 'txn-' || idn END,
  49.90, 'EUR', CASE WHEN i % 5 < 3 THEN pg_temp.uuid_of(i, 'k' || i) END, NULL, NULL,
  CASE WHEN i % 5 < 3 THEN 'svc_click_id' ELSE 'offer_instance_id' END,
  pg_temp.uuid_of(3000 + i % 5000, 'o' || (i % 5000)), pg_temp.uuid_of(i / 2, 'n' || (i / 2)),
  CASE WHEN i % 5 < 3 THEN pg_temp.uuid_of(i, 'k' || i) END,
  pg_temp.uuid_of(4000 + i % 300, 'a' || (i % 300)), 'live',
  CASE WHEN decision <> 'unmapped' THEN 'install' END, CASE WHEN decision <> 'unmapped' THEN 12.50 END, CASE WHEN decision <> 'unmapped' THEN 'USD' END,
  md5('prev' || i), md5('hash' || i)
FROM (
  SELECT i, t, (extract(epoch FROM t) * 1000)::bigint AS ms, kind, decision, CASE WHEN decision IN ('already_recorded', 'identity_conflict') THEN i - 1 ELSE i END AS idn
  FROM (
    SELECT i, timestamptz '2026-08-01 00:00:00Z' + i * (interval '90 days' / $1::integer) + (i % 997) * interval '1 microsecond' AS t,
      CASE WHEN i % 10 < 5 THEN 'event_id' WHEN i % 10 < 8 THEN 'order_id' ELSE 'partner_txn_id' END AS kind,
      CASE WHEN i % 100 < 90 THEN 'accepted' WHEN i % 100 < 95 THEN 'already_recorded' WHEN i % 100 < 98 THEN 'unmapped' ELSE 'identity_conflict' END AS decision
    FROM generate_series(1, $1::integer) AS i
  ) s
) r`;

export interface Sample {
  partner: string;
  accepted: string;
  original: string;
  event: string;
  order: string;
  click: string;
  instance: string;
  day: string;
  cursor: { received_at: string; correlation_id: string };
}

/** Ids and times of rows in the middle of a seeded log of `rows` rows, for the searches. */
export async function sampleOf(client: pg.Client, rows: number): Promise<Sample> {
  const at = (query: string) => client.query(query).then((result) => result.rows[0] as Record<string, string>);
  const middle = await at(`SELECT correlation_id, partner_id, svc_click_id, offer_instance_id, to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS received_at
    FROM postback_log WHERE svc_click_id IS NOT NULL AND decision = 'accepted' ORDER BY received_at DESC OFFSET ${Math.floor(rows / 2)} LIMIT 1`);
  const duplicate = await at(`SELECT original_correlation_id FROM postback_log WHERE decision = 'already_recorded' LIMIT 1`);
  const event = await at(`SELECT event_id FROM postback_log WHERE event_id IS NOT NULL OFFSET ${Math.floor(rows / 3)} LIMIT 1`);
  const order = await at(`SELECT order_id FROM postback_log WHERE order_id IS NOT NULL OFFSET ${Math.floor(rows / 4)} LIMIT 1`);
  return {
    partner: middle.partner_id!, accepted: middle.correlation_id!, original: duplicate.original_correlation_id!, event: event.event_id!, order: order.order_id!,
    click: middle.svc_click_id!, instance: middle.offer_instance_id!, day: middle.received_at!.slice(0, 10),
    cursor: { received_at: middle.received_at!, correlation_id: middle.correlation_id! },
  };
}

/** Every search the page offers, alone and combined, with a name. */
export function logSearches(s: Sample): [string, PostbackLogFilter, Omit<LogPage, 'limit'>][] {
  const day = { from: `${s.day}T00:00:00Z`, to: `${s.day}T23:59:59Z` };
  return [
    ['newest (no filter)', {}, {}],
    ['older page, mid-table (keyset)', {}, { after: s.cursor }],
    ['newer page, mid-table (keyset)', {}, { before: s.cursor }],
    ['correlation id', { correlation_id: s.accepted }, {}],
    ['correlation id of a duplicated conversion', { correlation_id: s.original }, {}],
    ['partner', { partner_id: s.partner }, {}],
    ['partner, older page', { partner_id: s.partner }, { after: s.cursor }],
    ['partner + one day', { partner_id: s.partner, ...day }, {}],
    ['identity, any field', { identity: s.event }, {}],
    ['identity, order_id', { identity: s.order, identity_kind: 'order_id' }, {}],
    ['click id', { click_id: s.click }, {}],
    ['card', { instance_id: s.instance }, {}],
    ['one day', day, {}],
    ['decision accepted', { decision: 'accepted' }, {}],
    ['decision identity_conflict', { decision: 'identity_conflict' }, {}],
    ['decision unmapped + partner', { decision: 'unmapped', partner_id: s.partner }, {}],
    ['decision identity_conflict + one day', { decision: 'identity_conflict', ...day }, {}],
    ['nothing matches (unknown identity)', { identity: 'no-such-identity' }, {}],
  ];
}

export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** The nodes that read postback_log or its indexes, as "Index Scan postback_log_by_time". */
export function planScans(node: PlanNode): string[] {
  const own = node['Index Name'] ? [`${node['Node Type']} ${node['Index Name']}`] : node['Relation Name'] ? [node['Node Type']] : [];
  return [...own, ...(node.Plans ?? []).flatMap(planScans)].filter((scan) => scan !== 'Bitmap Heap Scan');
}

/** Seeds `rows` rows into postback_log (empty or not: ids are derived from the row number) and analyzes it. */
export async function seedPostbackLog(client: pg.Client, rows: number): Promise<void> {
  await client.query(UUID_OF);
  await client.query(SEED, [rows]);
  await client.query('VACUUM ANALYZE postback_log');
}
