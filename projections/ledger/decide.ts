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
 *   `identity_conflict` (a changed conversion is never silently taken as the old one).
 */
export function decideBatch(events: LoggedEvent[], recorded: Map<string, RecordedIdentity>, previousHash: string): DecidedBatch {
  const known = new Map(recorded);
  const log: PostbackLogRow[] = [];
  const conversions: PostbackLogRow[] = [];
  let hash = previousHash;
  for (const event of events) {
    if (event.type !== EventType.PostbackReceived) continue;
    const value = event.value as unknown as PostbackReceived;
    const identity = identityOf(value.partner_id, value.identity_key);
    const earlier = known.get(identity);
    const decision: Decision = earlier
      ? earlier.fingerprint === value.fingerprint
        ? 'already_recorded'
        : 'identity_conflict'
      : value.goal_event === null
        ? 'unmapped'
        : 'accepted';
    const { received_at, ...fields } = value;
    const chained: ChainedDecision = {
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
      received_at_ms: received_at,
    };
    const prev_hash = hash;
    hash = chainHash(prev_hash, chained);
    const row: PostbackLogRow = { ...fields, ...chained, decision, prev_hash, hash };
    log.push(row);
    if (!earlier) {
      conversions.push(row);
      known.set(identity, { correlation_id: value.correlation_id, fingerprint: value.fingerprint, log_partition: event.partition, log_offset: event.offset });
    }
  }
  return { log, conversions };
}
