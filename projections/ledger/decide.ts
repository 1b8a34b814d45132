import type { LoggedEvent } from '../../platform/events/event-log.js';
import { EventType, type PostbackReceived } from '../../schemas/generated/events.js';
import { chainHash, type ChainedDecision } from './chain.js';

export type Decision = 'accepted' | 'unmapped' | 'already_recorded' | 'identity_conflict';

/** A conversion already in the ledger, as the decisions compare with it. */
export interface RecordedIdentity {
  correlation_id: string;
  fingerprint: string;
  log_partition: number;
  log_offset: string;
}

export type PostbackLogRow = ChainedDecision &
  Omit<PostbackReceived, 'received_at' | 'correlation_id' | 'partner_id' | 'identity_key' | 'fingerprint' | 'offer_id' | 'offer_instance_id' | 'svc_click_id' | 'environment' | 'goal_event' | 'payout_amount' | 'payout_currency'> & {
    decision: Decision;
    prev_hash: string;
    hash: string;
  };

export interface DecidedBatch {
  log: PostbackLogRow[];
  /** New ledger rows: the first postback of each identity. */
  conversions: PostbackLogRow[];
  /** Those conversions' identities (by identityOf), as `recorded` holds the ones before the batch. */
  recorded: Map<string, RecordedIdentity>;
}

/** The ledger's key of an identity: identities are per partner. */
export const identityOf = (partnerId: string, identityKey: string) => `${partnerId}\u0000${identityKey}`;

/**
 * Decides one batch of one partition, event by event in log order (a later event sees what the
 * earlier ones recorded), and chains each decision onto the partition's previous hash. Pure: what
 * the ledger held before the batch is given as `recorded` (by identityOf) and `previousHash`.
 *
 * - a new identity is `accepted` when its event maps to a goal, `unmapped` otherwise (recorded,
 *   not counted);
 * - a known identity with the same fingerprint is `already_recorded`, with a different one an
 *   `identity_conflict` (a changed conversion is never silently taken as the old one);
 * - a second copy of a postback already decided (its correlation id in `logged`, or earlier in
 *   the batch) is no decision at all: the same request logged twice (a copy of the log made
 *   into it, a replayed topic) is decided once, and the ledger goes on instead of stopping at it.
 */
export function decideBatch(events: LoggedEvent[], recorded: Map<string, RecordedIdentity>, previousHash: string, logged: ReadonlySet<string> = new Set()): DecidedBatch {
  // Identities first recorded by this batch (what the ledger held before is in `recorded`).
  const recordedNow = new Map<string, RecordedIdentity>();
  const decidedNow = new Set<string>();
  const log: PostbackLogRow[] = [];
  const conversions: PostbackLogRow[] = [];
  let hash = previousHash;
  for (const event of events) {
    if (event.type !== EventType.PostbackReceived) continue;
    const value = event.value as unknown as PostbackReceived;
    if (logged.has(value.correlation_id) || decidedNow.has(value.correlation_id)) continue;
    decidedNow.add(value.correlation_id);
    const identity = identityOf(value.partner_id, value.identity_key);
    const earlier = recorded.get(identity) ?? recordedNow.get(identity);
    const decision: Decision = earlier
      ? earlier.fingerprint === value.fingerprint
        ? 'already_recorded'
        : 'identity_conflict'
      : value.goal_event === null
        ? 'unmapped'
        : 'accepted';
    // Every field named: spreading or rest-copying these 30-field objects costs several times more.
    // The row is all a decision's hash covers and more (canonicalDecision reads only its fields),
    // so it is hashed as it is and its hash filled in after.
    const row: PostbackLogRow = {
      log_partition: event.partition,
      log_offset: event.offset,
      correlation_id: value.correlation_id,
      decision,
      original_correlation_id: earlier?.correlation_id ?? value.correlation_id,
      partner_id: value.partner_id,
      identity_key: value.identity_key,
      fingerprint: value.fingerprint,
      offer_id: value.offer_id,
      offer_instance_id: value.offer_instance_id,
      svc_click_id: value.svc_click_id,
      environment: value.environment,
      goal_event: value.goal_event,
      payout_amount: value.payout_amount,
      payout_currency: value.payout_currency,
      received_at_ms: value.received_at,
      identity_kind: value.identity_kind,
      channel: value.channel,
      source_ip: value.source_ip,
      event_name: value.event_name,
      event_id: value.event_id,
      order_id: value.order_id,
      partner_txn_id: value.partner_txn_id,
      amount: value.amount,
      currency: value.currency,
      reported_click_id: value.reported_click_id,
      reported_tracking_id: value.reported_tracking_id,
      reported_instance_id: value.reported_instance_id,
      matched_by: value.matched_by,
      application_id: value.application_id,
      prev_hash: hash,
      hash: '',
    };
    hash = chainHash(row.prev_hash, row);
    row.hash = hash;
    log.push(row);
    if (!earlier) {
      conversions.push(row);
      recordedNow.set(identity, { correlation_id: value.correlation_id, fingerprint: value.fingerprint, log_partition: event.partition, log_offset: event.offset });
    }
  }
  return { log, conversions, recorded: recordedNow };
}
