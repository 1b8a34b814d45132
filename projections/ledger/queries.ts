import { randomBytes } from 'node:crypto';
import type { ChainedDecision } from './chain.js';
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
export interface StoredDecision extends ChainedDecision {
  prev_hash: string;
  hash: string;
  /** What the postback reported, which its fingerprint (chained) covers. */
  reported: {
    event_name: string;
    amount: string | null;
    currency: string | null;
    svc_click_id: string | null;
    svc_tracking_id: string | null;
    offer_instance_id: string | null;
    event_id: string | null;
    order_id: string | null;
    partner_txn_id: string | null;
  };
  /** received_at holds nothing below the millisecond the hash covers. */
  received_at_whole_ms: boolean;
}

/** A page of one partition's decisions in log order, after `afterOffset` (keyset pagination). */
export async function decisionsAfter(sql: Sql, partition: number, afterOffset: string, limit: number): Promise<StoredDecision[]> {
  type Row = Omit<StoredDecision, 'reported' | 'received_at_ms'> & StoredDecision['reported'] & { received_at_ms: string; reported_click_id: string | null; reported_tracking_id: string | null; reported_instance_id: string | null };
  const { rows } = await sql.query<Row>(
    `SELECT log_partition, log_offset::text AS log_offset, correlation_id, decision, original_correlation_id, partner_id,
       identity_key, fingerprint, offer_id, offer_instance_id, svc_click_id, environment, goal_event,
       payout_amount::text AS payout_amount, payout_currency,
       (extract(epoch FROM received_at) * 1000)::bigint::text AS received_at_ms,
       received_at = date_trunc('milliseconds', received_at) AS received_at_whole_ms, prev_hash, hash,
       event_name, amount::text AS amount, currency, reported_click_id, reported_tracking_id, reported_instance_id,
       event_id, order_id, partner_txn_id, identity_kind, matched_by, application_id, channel, source_ip
     FROM postback_log l WHERE l.log_partition = $1 AND l.log_offset > $2::bigint ORDER BY l.log_offset LIMIT $3`,
    [partition, afterOffset, limit],
  );
  return rows.map(({ event_name, amount, currency, reported_click_id, reported_tracking_id, reported_instance_id, event_id, order_id, partner_txn_id, ...row }) => ({
    ...row,
    received_at_ms: Number(row.received_at_ms),
    reported: {
      event_name, amount, currency, svc_click_id: reported_click_id, svc_tracking_id: reported_tracking_id, offer_instance_id: reported_instance_id,
      event_id, order_id, partner_txn_id,
    },
  }));
}

/** The partitions that hold decisions. */
export async function decisionPartitions(sql: Sql): Promise<number[]> {
  const { rows } = await sql.query<{ log_partition: number }>('SELECT DISTINCT log_partition FROM postback_log ORDER BY log_partition');
  return rows.map((row) => row.log_partition);
}

const MONEY_COLUMNS = new Set(['amount', 'payout_amount']);

/**
 * Ledger rows that do not agree with the decision that recorded them: a conversion whose columns
 * differ from that postback_log row's (its hash included, its status and counted flag from the
 * decision), a conversion no accepted or unmapped decision recorded, and an accepted or unmapped
 * decision whose conversion is gone.
 */
export async function conversionsOffChain(sql: Sql, limit: number): Promise<{ partner_id: string; identity_key: string; correlation_id: string }[]> {
  const shared = `partner_id, identity_kind, identity_key, fingerprint, received_at, event_name, event_id, order_id, partner_txn_id,
    amount, currency, matched_by, offer_id, offer_instance_id, svc_click_id, application_id, environment, goal_event,
    payout_amount, payout_currency, log_partition, log_offset, hash`;
  // Money as written: numeric equality holds 12.50 and 12.500000 equal, which a ledger must not.
  const columnsOf = (table: string) => shared.split(',').map((column) => `${table}.${column.trim()}${MONEY_COLUMNS.has(column.trim()) ? '::text' : ''}`).join(', ');
  const { rows } = await sql.query<{ partner_id: string; identity_key: string; correlation_id: string }>(
    `SELECT coalesce(c.partner_id, l.partner_id) AS partner_id, coalesce(c.identity_key, l.identity_key) AS identity_key,
            coalesce(c.correlation_id, l.correlation_id) AS correlation_id
     FROM conversions c
     FULL JOIN (SELECT * FROM postback_log WHERE decision IN ('accepted', 'unmapped')) l ON l.correlation_id = c.correlation_id
     WHERE c.correlation_id IS NULL OR l.correlation_id IS NULL
       OR ROW(${columnsOf('c')}, c.status, c.counted) IS DISTINCT FROM ROW(${columnsOf('l')}, l.decision, l.decision = 'accepted')
     ORDER BY 3 LIMIT $1`,
    [limit],
  );
  return rows;
}

export const DECISIONS = ['accepted', 'unmapped', 'already_recorded', 'identity_conflict'] as const satisfies readonly Decision[];
export const IDENTITY_KINDS = ['event_id', 'order_id', 'partner_txn_id'] as const;

/** What operators search the postback log by; every given condition must hold. */
export interface PostbackLogFilter {
  /** The postback's own id, or the recorded conversion's (so its duplicates and conflicts come too). */
  correlation_id?: string;
  partner_id?: string;
  /** A value of event_id, order_id or partner_txn_id (only `identity_kind` when given). */
  identity?: string;
  identity_kind?: (typeof IDENTITY_KINDS)[number];
  /** The attributed click. */
  click_id?: string;
  /** The attributed card. */
  instance_id?: string;
  /** RFC 3339 instants: received at or after `from`, before `to`. */
  from?: string;
  to?: string;
  decision?: Decision;
}

/** A position in the listing order (received_at DESC, correlation_id): the row a page starts after. */
export interface LogCursor {
  /** RFC 3339 with microseconds, UTC, as the rows carry it. */
  received_at: string;
  correlation_id: string;
}

/** One page: `after` a cursor (older rows), `before` one (newer rows, still listed newest first), or the newest. */
export interface LogPage {
  after?: LogCursor;
  before?: LogCursor;
  limit: number;
}

/** A row of the postback log as the operator page lists it. */
export interface PostbackLogEntry {
  correlation_id: string;
  original_correlation_id: string;
  decision: Decision;
  partner_id: string;
  received_at: string;
  channel: string;
  source_ip: string;
  event_name: string;
  identity_kind: string;
  identity_key: string;
  event_id: string | null;
  order_id: string | null;
  partner_txn_id: string | null;
  amount: string | null;
  currency: string | null;
  matched_by: string;
  svc_click_id: string | null;
  offer_instance_id: string | null;
  offer_id: string;
  application_id: string | null;
  environment: string;
  goal_event: string | null;
  payout_amount: string | null;
  payout_currency: string | null;
  log_partition: number;
  log_offset: string;
}

/** A timestamptz column as RFC 3339 text in UTC with microseconds: exact, where a JavaScript Date keeps milliseconds. */
const utcText = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const RECEIVED_AT_TEXT = utcText('received_at');
const ENTRY_COLUMNS = `correlation_id, original_correlation_id, decision, partner_id, ${RECEIVED_AT_TEXT} AS received_at, channel, source_ip,
  event_name, identity_kind, identity_key, event_id, order_id, partner_txn_id, amount::text AS amount, currency, matched_by, svc_click_id,
  offer_instance_id, offer_id, application_id, environment, goal_event, payout_amount::text AS payout_amount, payout_currency,
  log_partition, log_offset::text AS log_offset`;

/**
 * The statement of one search page: the filter's conditions, keyset pagination on
 * (received_at DESC, correlation_id), one row more than the limit (whether there are more).
 * Each condition is written so an index of the migrations serves it (README, "Indexes"; tested).
 */
export function postbackLogSearch(filter: PostbackLogFilter, page: LogPage): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const param = (value: unknown, type = 'text') => `$${values.push(value)}::${type}`;
  const where: string[] = [];
  if (filter.correlation_id !== undefined) {
    const id = param(filter.correlation_id);
    // The second arm matches the partial index of duplicates and conflicts only.
    where.push(`(correlation_id = ${id} OR (original_correlation_id = ${id} AND original_correlation_id <> correlation_id))`);
  }
  if (filter.partner_id !== undefined) where.push(`partner_id = ${param(filter.partner_id)}`);
  if (filter.identity !== undefined) {
    const value = param(filter.identity);
    const kinds = filter.identity_kind ? [filter.identity_kind] : IDENTITY_KINDS;
    where.push(`(${kinds.map((kind) => `${kind} = ${value}`).join(' OR ')})`);
  }
  if (filter.click_id !== undefined) where.push(`svc_click_id = ${param(filter.click_id)}`);
  if (filter.instance_id !== undefined) where.push(`offer_instance_id = ${param(filter.instance_id)}`);
  if (filter.from !== undefined) where.push(`received_at >= ${param(filter.from, 'timestamptz')}`);
  if (filter.to !== undefined) where.push(`received_at < ${param(filter.to, 'timestamptz')}`);
  if (filter.decision !== undefined) where.push(`decision = ${param(filter.decision)}`);
  const cursor = page.after ?? page.before;
  if (cursor) {
    const at = param(cursor.received_at, 'timestamptz');
    const id = param(cursor.correlation_id);
    // The first condition bounds the index scan; the second breaks ties on the same instant.
    where.push(page.after ? `received_at <= ${at} AND (received_at < ${at} OR correlation_id > ${id})` : `received_at >= ${at} AND (received_at > ${at} OR correlation_id < ${id})`);
  }
  // Qualified: a bare received_at here would be the output column (its text).
  const order = page.before ? 'l.received_at ASC, l.correlation_id DESC' : 'l.received_at DESC, l.correlation_id ASC';
  const text = `SELECT ${ENTRY_COLUMNS} FROM postback_log l ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ${param(page.limit + 1, 'integer')}`;
  return { text, values };
}

/** One page of the postback log, newest first; `more`: further rows lie in the direction of the page. */
export async function searchPostbackLog(sql: Sql, filter: PostbackLogFilter, page: LogPage): Promise<{ rows: PostbackLogEntry[]; more: boolean }> {
  const { text, values } = postbackLogSearch(filter, page);
  const { rows } = await sql.query<PostbackLogEntry>(text, values);
  const more = rows.length > page.limit;
  const kept = rows.slice(0, page.limit);
  return { rows: page.before ? kept.reverse() : kept, more };
}

/** One logged postback with everything it reported and its place in the chain. */
export interface PostbackLogDetail extends PostbackLogEntry {
  reported_click_id: string | null;
  reported_tracking_id: string | null;
  reported_instance_id: string | null;
  fingerprint: string;
  prev_hash: string;
  hash: string;
}

export async function findPostbackLogEntry(sql: Sql, correlationId: string): Promise<PostbackLogDetail | undefined> {
  const { rows } = await sql.query<PostbackLogDetail>(
    `SELECT ${ENTRY_COLUMNS}, reported_click_id, reported_tracking_id, reported_instance_id, fingerprint, prev_hash, hash
     FROM postback_log WHERE correlation_id = $1`,
    [correlationId],
  );
  return rows[0];
}

/** The ledger row of a partner's identity (the conversion its first postback recorded). */
export interface ConversionEntry {
  correlation_id: string;
  status: 'accepted' | 'unmapped';
  counted: boolean;
  goal_event: string | null;
  payout_amount: string | null;
  payout_currency: string | null;
  received_at: string;
  log_partition: number;
  log_offset: string;
}

export async function findConversion(sql: Sql, partnerId: string, identityKey: string): Promise<ConversionEntry | undefined> {
  const { rows } = await sql.query<ConversionEntry>(
    `SELECT correlation_id, status, counted, goal_event, payout_amount::text AS payout_amount, payout_currency,
       ${RECEIVED_AT_TEXT} AS received_at, log_partition, log_offset::text AS log_offset
     FROM conversions WHERE partner_id = $1 AND identity_key = $2`,
    [partnerId, identityKey],
  );
  return rows[0];
}

/** Every logged postback of one identity, in log order (its first one recorded the conversion). */
export async function postbacksOfIdentity(sql: Sql, partnerId: string, identityKey: string, limit: number): Promise<PostbackLogEntry[]> {
  const { rows } = await sql.query<PostbackLogEntry>(
    `SELECT ${ENTRY_COLUMNS} FROM postback_log l WHERE partner_id = $1 AND identity_key = $2 ORDER BY l.received_at, log_partition, log_offset LIMIT $3`,
    [partnerId, identityKey, limit],
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

/** What each column of the ledger's tables holds, for the documents exports write beside their rows. */
export const LEDGER_COLUMN_DOCS: Readonly<Record<string, string>> = {
  partner_id: 'The partner that posted it (canonical UUID, the path of POST /v1/postback/{partner_id}).',
  identity_kind: 'Which business identity the postback carries: event_id, order_id (with event_name) or partner_txn_id, the first present.',
  identity_key: 'The identity itself as the ledger keys it: unique per partner.',
  correlation_id: 'UUIDv7 the service gave this postback; answered to the partner as data.correlation_id.',
  original_correlation_id: 'The correlation id of the postback that recorded this identity (itself when it did; the original for a duplicate or a conflict).',
  fingerprint: 'sha256 of what the partner reported (event, amount, currency, identity, attribution ids): the same identity with another fingerprint is an identity_conflict.',
  status: 'accepted (counted) or unmapped (recorded, not counted).',
  decision: 'What the ledger decided: accepted, unmapped, already_recorded or identity_conflict.',
  counted: 'Whether the conversion counts towards payouts and reports (accepted), or is only recorded (unmapped).',
  channel: 'Which contract it came by: current (JSON POST), compat_get or compat_form.',
  source_ip: 'The address the postback came from (the socket address, or the client a trusted proxy named).',
  received_at: 'When the postback was logged, RFC 3339 UTC.',
  event_name: 'The partner\'s event name, as reported.',
  event_id: 'The partner\'s event id, as reported; null when not sent.',
  order_id: 'The partner\'s order id, as reported; null when not sent.',
  partner_txn_id: 'The partner\'s transaction id, as reported; null when not sent.',
  amount: 'The reported amount, exact decimal text; null when not sent.',
  currency: 'The reported ISO 4217 currency; null when not sent.',
  reported_click_id: 'svc_click_id as the partner sent it; null when not sent.',
  reported_tracking_id: 'svc_tracking_id as the partner sent it; null when not sent.',
  reported_instance_id: 'offer_instance_id as the partner sent it; null when not sent.',
  matched_by: 'The attribution id the postback was matched by: svc_click_id, svc_tracking_id or offer_instance_id.',
  offer_id: 'The attributed offer (canonical UUID).',
  offer_instance_id: 'The attributed served card; null for a link that is no card\'s (static or registered).',
  svc_click_id: 'The attributed click; null when attributed without one.',
  application_id: 'The application the conversion is credited to; null for a link registered without one.',
  environment: 'live, test or sandbox: the serve\'s (or link\'s) environment; payouts and reports keep to live.',
  goal_event: 'The offer goal the partner\'s event_name maps to; null when unmapped.',
  payout_amount: 'What the goal pays, exact decimal text in the currency\'s ISO 4217 minor units; null when nothing is paid.',
  payout_currency: 'ISO 4217 currency of the payout; null when nothing is paid.',
  log_partition: 'Partition of the postbacks topic the postback was logged in.',
  log_offset: 'Offset of the postback in that partition: with log_partition, its position in the log.',
  prev_hash: 'hash of the previous decision of the same partition (64 zeros for the first).',
  hash: 'sha256 of prev_hash and the canonical decision: npm run ledger:verify recomputes the chain.',
};

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

/**
 * A timestamptz column as RFC 3339 UTC text with milliseconds, as topic exports write times (so an
 * export of the log and one of the ledger join on the text), or with microseconds when it has any.
 */
const exportedTime = (column: string) =>
  `CASE WHEN date_trunc('milliseconds', ${column}) = ${column} THEN to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') ELSE ${utcText(column)} END`;

/** Exact text where JavaScript would round (int8, numeric) and RFC 3339 UTC for times (exportedTime). */
function exportedColumn([name, type]: readonly [string, LedgerColumnType]): string {
  if (type === 'bigint' || type === 'numeric') return `t.${name}::text AS ${name}`;
  if (type === 'timestamptz') return `${exportedTime(`t.${name}`)} AS ${name}`;
  return `t.${name}`;
}

/** Where each table's order starts: before every row (keys are never empty nor negative). */
const BEFORE_FIRST: Record<LedgerTable['name'], readonly unknown[]> = { conversions: ['', ''], postback_log: [-1, -1] };

/**
 * A page of a ledger table in its `orderBy` order, after the row whose order-by values are
 * `after` (undefined: from the first row). Run the pages in one REPEATABLE READ transaction for
 * a consistent table, or read them from a copy (`copy`, made by copyLedgerTable).
 */
export async function ledgerTablePage(sql: Sql, name: LedgerTable['name'], after: readonly unknown[] | undefined, limit: number, copy?: string): Promise<Record<string, unknown>[]> {
  const table = LEDGER_TABLES[name];
  // Qualified: a bare name in ORDER BY would be the text output column of the same name.
  const key = table.orderBy.map((column) => `t.${column}`).join(', ');
  const { rows } = await sql.query(
    `SELECT ${table.columns.map(exportedColumn).join(', ')} FROM ${copy ?? table.name} t
     WHERE (${key}) > ($1, $2) ORDER BY ${key} LIMIT $3`,
    [...(after ?? BEFORE_FIRST[name]), limit],
  );
  return rows;
}

export async function ledgerTableCount(sql: Sql, name: LedgerTable['name'], copy?: string): Promise<number> {
  const { rows } = await sql.query<{ count: string }>(`SELECT count(*)::text AS count FROM ${copy ?? LEDGER_TABLES[name].name}`);
  return Number(rows[0]!.count);
}

const COPY_NAME = /^ledger_copy_[0-9a-f]{12}$/;

/**
 * A copy of a ledger table as it stands, to page through without holding a transaction open
 * (the embedded database runs one transaction at a time: a long one would stop every other
 * statement of the process). A temporary table of this session; answers its name for
 * ledgerTablePage and ledgerTableCount, dropped by dropLedgerTableCopy.
 */
export async function copyLedgerTable(sql: Sql, name: LedgerTable['name']): Promise<string> {
  const copy = `ledger_copy_${randomBytes(6).toString('hex')}`;
  await sql.query(`CREATE TEMPORARY TABLE ${copy} AS TABLE ${LEDGER_TABLES[name].name}`);
  return copy;
}

export async function dropLedgerTableCopy(sql: Sql, copy: string): Promise<void> {
  if (!COPY_NAME.test(copy)) throw new Error(`${copy} is not a copy of a ledger table`);
  await sql.query(`DROP TABLE IF EXISTS ${copy}`);
}
