import pg from 'pg';
import { postbackLogSearch, type LogPage, type PostbackLogFilter } from '../projections/ledger/queries.js';
import { resolveStack } from '../test/support/stack.js';
import { benchDatabase, type BenchRow } from './support.js';

/**
 * `npm run bench -- postback-log-search`: the operator page's searches of postback_log, as
 * queries.ts builds them, on a table of BENCH_LOG_ROWS rows (default 1,000,000) seeded by SQL
 * alone (generate_series): 200 partners (in runs of 100 rows) over 90 days, 90 % accepted, 5 % already_recorded,
 * 3 % unmapped, 2 % identity_conflict. For each search: the node that reads the table (which
 * index), and EXPLAIN ANALYZE's execution time (median of 5, the page of 50 rows plus one).
 * Set BENCH_PLANS=1 to print every plan.
 */
const ROWS = Number(process.env.BENCH_LOG_ROWS ?? 1_000_000);
const RUNS = 5;
const progress = (line: string) => process.stderr.write(`bench postback-log-search: ${line}\n`);

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

interface Sample {
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

async function sample(client: pg.Client): Promise<Sample> {
  const at = (query: string) => client.query(query).then((result) => result.rows[0] as Record<string, string>);
  const middle = await at(`SELECT correlation_id, partner_id, svc_click_id, offer_instance_id, to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS received_at
    FROM postback_log WHERE svc_click_id IS NOT NULL AND decision = 'accepted' ORDER BY received_at DESC OFFSET ${Math.floor(ROWS / 2)} LIMIT 1`);
  const duplicate = await at(`SELECT original_correlation_id FROM postback_log WHERE decision = 'already_recorded' LIMIT 1`);
  const event = await at(`SELECT event_id FROM postback_log WHERE event_id IS NOT NULL OFFSET ${Math.floor(ROWS / 3)} LIMIT 1`);
  const order = await at(`SELECT order_id FROM postback_log WHERE order_id IS NOT NULL OFFSET ${Math.floor(ROWS / 4)} LIMIT 1`);
  return {
    partner: middle.partner_id!, accepted: middle.correlation_id!, original: duplicate.original_correlation_id!, event: event.event_id!, order: order.order_id!,
    click: middle.svc_click_id!, instance: middle.offer_instance_id!, day: middle.received_at!.slice(0, 10),
    cursor: { received_at: middle.received_at!, correlation_id: middle.correlation_id! },
  };
}

function searches(s: Sample): [string, PostbackLogFilter, Omit<LogPage, 'limit'>][] {
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

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** The nodes that read postback_log or its indexes, as "Index Scan postback_log_by_time". */
function scans(node: PlanNode): string[] {
  const own = node['Index Name'] ? [`${node['Node Type']} ${node['Index Name']}`] : node['Relation Name'] ? [node['Node Type']] : [];
  return [...own, ...(node.Plans ?? []).flatMap(scans)].filter((scan) => scan !== 'Bitmap Heap Scan');
}

export async function run(): Promise<BenchRow[]> {
  const stack = await resolveStack((line) => process.stderr.write(`[stack] ${line}\n`));
  const database = await benchDatabase(stack);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    progress(`seeding ${ROWS} rows with generate_series`);
    const seedStart = performance.now();
    await client.query(UUID_OF);
    await client.query(SEED, [ROWS]);
    await client.query('VACUUM ANALYZE postback_log');
    progress(`seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
    const rows: BenchRow[] = [];
    for (const [name, filter, page] of searches(await sample(client))) {
      const { text, values } = postbackLogSearch(filter, { ...page, limit: 50 });
      const times: number[] = [];
      let plan: { Plan: PlanNode; 'Execution Time': number } | undefined;
      for (let run = 0; run < RUNS; run += 1) {
        const result = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
        plan = (result.rows[0]['QUERY PLAN'] as [typeof plan])[0]!;
        times.push(plan['Execution Time']);
      }
      if (process.env.BENCH_PLANS) {
        const textPlan = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
        progress(`${name}\n${textPlan.rows.map((row) => row['QUERY PLAN']).join('\n')}`);
      }
      times.sort((a, b) => a - b);
      const returned = (await client.query(text, values)).rowCount ?? 0;
      rows.push({ search: name, reads: scans(plan!.Plan).join(' + '), rows: Math.min(returned, 50), median_ms: Number(times[Math.floor(RUNS / 2)]!.toFixed(3)), table_rows: ROWS });
    }
    return rows;
  } finally {
    await client.end();
    await database.drop();
  }
}
