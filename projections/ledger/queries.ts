import type { Sql } from '../../platform/db/db.js';
import type { Decision } from './decide.js';

/** What the ledger decided for one logged postback, as the intake answers it. */
export interface PostbackDecision {
  correlation_id: string;
  decision: Decision;
  /** The recorded conversion's correlation id (its own for accepted and unmapped). */
  original_correlation_id: string;
  matched_by: string;
  offer_id: string;
  offer_instance_id: string | null;
  svc_click_id: string | null;
  /** Log position of the recorded conversion's decision. */
  ledger_partition: number;
  ledger_offset: string;
}

/** The decision of the postback logged with `correlationId`, or undefined when not decided yet. */
export async function findDecision(sql: Sql, correlationId: string): Promise<PostbackDecision | undefined> {
  return (await findDecisions(sql, [correlationId])).get(correlationId);
}

/** findDecision for many postbacks in one statement; undecided ones are absent. */
export async function findDecisions(sql: Sql, correlationIds: readonly string[]): Promise<Map<string, PostbackDecision>> {
  const { rows } = await sql.query<PostbackDecision>(
    `SELECT l.correlation_id, l.decision, l.original_correlation_id,
       coalesce(o.matched_by, l.matched_by) AS matched_by, coalesce(o.offer_id, l.offer_id) AS offer_id,
       CASE WHEN o.correlation_id IS NULL THEN l.offer_instance_id ELSE o.offer_instance_id END AS offer_instance_id,
       CASE WHEN o.correlation_id IS NULL THEN l.svc_click_id ELSE o.svc_click_id END AS svc_click_id,
       coalesce(o.log_partition, l.log_partition) AS ledger_partition, coalesce(o.log_offset, l.log_offset)::text AS ledger_offset
     FROM postback_log l LEFT JOIN postback_log o ON o.correlation_id = l.original_correlation_id
     WHERE l.correlation_id = ANY($1::text[])`,
    [correlationIds],
  );
  return new Map(rows.map((row) => [row.correlation_id, row]));
}

/** One decision as stored, for verifying the hash chains (amounts as exact text, time as epoch ms). */
export interface StoredDecision {
  log_partition: number;
  log_offset: string;
  correlation_id: string;
  decision: string;
  original_correlation_id: string;
  partner_id: string;
  identity_key: string;
  fingerprint: string;
  offer_id: string;
  offer_instance_id: string | null;
  svc_click_id: string | null;
  environment: string;
  goal_event: string | null;
  payout_amount: string | null;
  payout_currency: string | null;
  received_at_ms: number;
  prev_hash: string;
  hash: string;
}

/** A page of one partition's decisions in log order, after `afterOffset` (keyset pagination). */
export async function decisionsAfter(sql: Sql, partition: number, afterOffset: string, limit: number): Promise<StoredDecision[]> {
  const { rows } = await sql.query<StoredDecision & { received_at_ms: string }>(
    `SELECT log_partition, log_offset::text AS log_offset, correlation_id, decision, original_correlation_id, partner_id,
       identity_key, fingerprint, offer_id, offer_instance_id, svc_click_id, environment, goal_event,
       payout_amount::text AS payout_amount, payout_currency,
       (extract(epoch FROM received_at) * 1000)::bigint::text AS received_at_ms, prev_hash, hash
     FROM postback_log l WHERE l.log_partition = $1 AND l.log_offset > $2::bigint ORDER BY l.log_offset LIMIT $3`,
    [partition, afterOffset, limit],
  );
  return rows.map((row) => ({ ...row, received_at_ms: Number(row.received_at_ms) }));
}

/** The partitions that hold decisions. */
export async function decisionPartitions(sql: Sql): Promise<number[]> {
  const { rows } = await sql.query<{ log_partition: number }>('SELECT DISTINCT log_partition FROM postback_log ORDER BY log_partition');
  return rows.map((row) => row.log_partition);
}

/** Conversions whose hash is not the hash of the decision that recorded them (tampered rows). */
export async function conversionsOffChain(sql: Sql, limit: number): Promise<{ partner_id: string; identity_key: string; correlation_id: string }[]> {
  const { rows } = await sql.query<{ partner_id: string; identity_key: string; correlation_id: string }>(
    `SELECT c.partner_id, c.identity_key, c.correlation_id FROM conversions c
     LEFT JOIN postback_log l ON l.correlation_id = c.correlation_id
     WHERE l.correlation_id IS NULL OR l.hash <> c.hash OR l.payout_amount IS DISTINCT FROM c.payout_amount
       OR l.payout_currency IS DISTINCT FROM c.payout_currency OR l.offer_id <> c.offer_id OR l.fingerprint <> c.fingerprint
       OR l.goal_event IS DISTINCT FROM c.goal_event
     ORDER BY c.correlation_id LIMIT $1`,
    [limit],
  );
  return rows;
}

/** SQL types of the columns the ledger's tables export, as their migration declares them. */
export type LedgerColumnType = 'text' | 'integer' | 'bigint' | 'numeric' | 'boolean' | 'timestamptz';

/** One of the ledger's tables as exports read it: every column in table order, and the order rows come in. */
export interface LedgerTable {
  name: 'conversions' | 'postback_log';
  description: string;
  columns: readonly (readonly [string, LedgerColumnType])[];
  /** The columns that may be null; every other one is NOT NULL. */
  nullable: readonly string[];
  /** A unique key: pages follow it, so a page never splits or repeats rows. */
  orderBy: readonly string[];
}

export const LEDGER_TABLES: Record<LedgerTable['name'], LedgerTable> = {
  conversions: {
    name: 'conversions',
    description: 'The ledger proper: one row per (partner, business identity), written by the first postback of that identity (accepted: counted; unmapped: recorded, not counted). hash is the hash of the decision that recorded it (postback_log).',
    columns: [
      ['partner_id', 'text'], ['identity_key', 'text'], ['identity_kind', 'text'], ['correlation_id', 'text'], ['fingerprint', 'text'],
      ['status', 'text'], ['counted', 'boolean'], ['event_name', 'text'], ['event_id', 'text'], ['order_id', 'text'],
      ['partner_txn_id', 'text'], ['amount', 'numeric'], ['currency', 'text'], ['matched_by', 'text'], ['offer_id', 'text'],
      ['offer_instance_id', 'text'], ['svc_click_id', 'text'], ['application_id', 'text'], ['environment', 'text'], ['goal_event', 'text'],
      ['payout_amount', 'numeric'], ['payout_currency', 'text'], ['received_at', 'timestamptz'], ['log_partition', 'integer'],
      ['log_offset', 'bigint'], ['hash', 'text'],
    ],
    nullable: ['event_id', 'order_id', 'partner_txn_id', 'amount', 'currency', 'offer_instance_id', 'svc_click_id', 'application_id', 'goal_event', 'payout_amount', 'payout_currency'],
    orderBy: ['partner_id', 'identity_key'],
  },
  postback_log: {
    name: 'postback_log',
    description: 'Every logged postback and what the ledger decided for it, in log order, chained per partition: hash = sha256(prev_hash || canonical decision) (npm run ledger:verify recomputes it).',
    columns: [
      ['correlation_id', 'text'], ['log_partition', 'integer'], ['log_offset', 'bigint'], ['partner_id', 'text'], ['identity_kind', 'text'],
      ['identity_key', 'text'], ['fingerprint', 'text'], ['decision', 'text'], ['original_correlation_id', 'text'], ['channel', 'text'],
      ['source_ip', 'text'], ['received_at', 'timestamptz'], ['event_name', 'text'], ['event_id', 'text'], ['order_id', 'text'],
      ['partner_txn_id', 'text'], ['amount', 'numeric'], ['currency', 'text'], ['reported_click_id', 'text'], ['reported_tracking_id', 'text'],
      ['reported_instance_id', 'text'], ['matched_by', 'text'], ['offer_id', 'text'], ['offer_instance_id', 'text'], ['svc_click_id', 'text'],
      ['application_id', 'text'], ['environment', 'text'], ['goal_event', 'text'], ['payout_amount', 'numeric'], ['payout_currency', 'text'],
      ['prev_hash', 'text'], ['hash', 'text'],
    ],
    nullable: [
      'event_id', 'order_id', 'partner_txn_id', 'amount', 'currency', 'reported_click_id', 'reported_tracking_id', 'reported_instance_id',
      'offer_instance_id', 'svc_click_id', 'application_id', 'goal_event', 'payout_amount', 'payout_currency',
    ],
    orderBy: ['log_partition', 'log_offset'],
  },
};

/** Exact text where JavaScript would round (int8, numeric) and RFC 3339 UTC with microseconds for times. */
function exportedColumn([name, type]: readonly [string, LedgerColumnType]): string {
  if (type === 'bigint' || type === 'numeric') return `t.${name}::text AS ${name}`;
  if (type === 'timestamptz') return `to_char(t.${name} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ${name}`;
  return `t.${name}`;
}

/** Where each table's order starts: before every row (keys are never empty nor negative). */
const BEFORE_FIRST: Record<LedgerTable['name'], readonly unknown[]> = { conversions: ['', ''], postback_log: [-1, -1] };

/**
 * A page of a ledger table in its `orderBy` order, after the row whose order-by values are
 * `after` (undefined: from the first row). Run the pages in one REPEATABLE READ transaction for
 * a consistent table.
 */
export async function ledgerTablePage(sql: Sql, name: LedgerTable['name'], after: readonly unknown[] | undefined, limit: number): Promise<Record<string, unknown>[]> {
  const table = LEDGER_TABLES[name];
  // Qualified: a bare name in ORDER BY would be the text output column of the same name.
  const key = table.orderBy.map((column) => `t.${column}`).join(', ');
  const { rows } = await sql.query(
    `SELECT ${table.columns.map(exportedColumn).join(', ')} FROM ${table.name} t
     WHERE (${key}) > ($1, $2) ORDER BY ${key} LIMIT $3`,
    [...(after ?? BEFORE_FIRST[name]), limit],
  );
  return rows;
}

export async function ledgerTableCount(sql: Sql, name: LedgerTable['name']): Promise<number> {
  const { rows } = await sql.query<{ count: string }>(`SELECT count(*)::text AS count FROM ${LEDGER_TABLES[name].name}`);
  return Number(rows[0]!.count);
}
