import type { Sql } from '../../platform/db/db.js';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { copyRows } from '../../platform/db/copy-rows.js';
import type { InsertColumn } from '../../platform/db/unnest-insert.js';
import type { Projection } from '../../platform/projection/projection.js';
import { GENESIS_HASH } from './chain.js';
import { decideBatch, identityOf, type PostbackLogRow, type RecordedIdentity } from './decide.js';

const SHARED_COLUMNS: InsertColumn<PostbackLogRow>[] = [
  ['correlation_id', 'text'], ['log_partition', 'integer'], ['log_offset', 'bigint'], ['partner_id', 'text'],
  ['identity_kind', 'text'], ['identity_key', 'text'], ['fingerprint', 'text'],
  ['received_at', 'timestamptz', (row) => new Date(row.received_at_ms)],
  ['event_name', 'text'], ['event_id', 'text'], ['order_id', 'text'], ['partner_txn_id', 'text'],
  ['amount', 'numeric'], ['currency', 'text'], ['matched_by', 'text'], ['offer_id', 'text'],
  ['offer_instance_id', 'text'], ['svc_click_id', 'text'], ['application_id', 'text'], ['environment', 'text'],
  ['goal_event', 'text'], ['payout_amount', 'numeric'], ['payout_currency', 'text'], ['hash', 'text'],
];
const LOG_COLUMNS: InsertColumn<PostbackLogRow>[] = [
  ...SHARED_COLUMNS,
  ['decision', 'text'], ['original_correlation_id', 'text'], ['channel', 'text'], ['source_ip', 'text'],
  ['reported_click_id', 'text'], ['reported_tracking_id', 'text'], ['reported_instance_id', 'text'], ['prev_hash', 'text'],
];
const CONVERSION_COLUMNS: InsertColumn<PostbackLogRow>[] = [
  ...SHARED_COLUMNS,
  ['status', 'text', (row) => row.decision],
  ['counted', 'boolean', (row) => row.decision === 'accepted'],
];

/**
 * What the ledger held before the batch, in one round trip: the conversions already recorded for
 * the batch's identities, and the hash of each partition's last decision (where its chain goes on).
 */
async function ledgerBefore(
  tx: Sql,
  partitions: number[],
  rows: { partner_id: string; identity_key: string; correlation_id: string }[],
): Promise<{ recorded: Map<string, RecordedIdentity>; heads: Map<number, string>; logged: Set<string> }> {
  const { rows: found } = await tx.query<RecordedIdentity & { partner_id: string | null; identity_key: string | null; head_partition: number | null; head: string | null }>(
    `SELECT c.partner_id, c.identity_key, c.correlation_id, c.fingerprint, c.log_partition, c.log_offset::text AS log_offset,
            NULL::integer AS head_partition, NULL AS head
     FROM conversions c JOIN unnest($1::text[], $2::text[]) AS batch(partner_id, identity_key)
       ON c.partner_id = batch.partner_id AND c.identity_key = batch.identity_key
     UNION ALL
     SELECT NULL, NULL, NULL, NULL, NULL, NULL, p,
            (SELECT hash FROM postback_log WHERE log_partition = p ORDER BY log_offset DESC LIMIT 1)
     FROM unnest($3::integer[]) AS p`,
    [rows.map((row) => row.partner_id), rows.map((row) => row.identity_key), partitions],
  );
  const recorded = new Map<string, RecordedIdentity>();
  const heads = new Map<number, string>();
  for (const row of found) {
    if (row.head_partition !== null) heads.set(row.head_partition, row.head ?? GENESIS_HASH);
    else recorded.set(identityOf(row.partner_id!, row.identity_key!), row);
  }
  // Postbacks of the batch already decided: copies of them in the log are decided once (decideBatch).
  const { rows: seen } = await tx.query<{ correlation_id: string }>('SELECT correlation_id FROM postback_log WHERE correlation_id = ANY($1::text[])', [rows.map((row) => row.correlation_id)]);
  return { recorded, heads, logged: new Set(seen.map((row) => row.correlation_id)) };
}

/**
 * The postback ledger from topic `postbacks`: the single writer of each partition's decisions.
 * The runner hands it the batches of one fetch together, under their partitions' offset locks
 * (`acrossPartitions`): the topic is keyed by partner + identity, so every copy of an identity is
 * in one partition and partitions never share a conversion, and each partition has its own chain.
 * Decides each partition in log order (decide.ts), then writes the decision log and the new
 * conversions by COPY (one per table), in the transaction that advances the offsets.
 */
export const ledgerProjection: Projection = {
  name: 'ledger',
  topics: ['postbacks'],
  tables: ['conversions', 'postback_log'],
  acrossPartitions: true,
  async apply(tx, events) {
    if (events.length === 0) return;
    const received = events.map((event) => event.value as { partner_id: string; identity_key: string; correlation_id: string });
    const byPartition = new Map<number, LoggedEvent[]>();
    for (const event of events) {
      const inPartition = byPartition.get(event.partition);
      if (inPartition) inPartition.push(event);
      else byPartition.set(event.partition, [event]);
    }
    const { recorded, heads, logged } = await ledgerBefore(tx, [...byPartition.keys()], received);
    const log: PostbackLogRow[] = [];
    const conversions: PostbackLogRow[] = [];
    for (const [partition, inPartition] of byPartition) {
      const decided = decideBatch(inPartition, recorded, heads.get(partition) ?? GENESIS_HASH, logged);
      for (const row of decided.log) log.push(row);
      for (const row of decided.conversions) conversions.push(row);
      // An identity's copies share a partition, unless partitions were added to the topic after
      // its first copy was logged: a copy in another partition of this fetch is then decided
      // against this one rather than inserted twice, which would fail the fetch on every retry
      // and stop the ledger for good.
      for (const [identity, first] of decided.recorded) recorded.set(identity, first);
    }
    await copyRows(tx, 'postback_log', LOG_COLUMNS, log);
    await copyRows(tx, 'conversions', CONVERSION_COLUMNS, conversions);
  },
};
