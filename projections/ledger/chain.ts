import { createHash } from 'node:crypto';

/** The previous hash of a partition's first decision. */
export const GENESIS_HASH = '0'.repeat(64);

/** What a decision's hash covers, in a fixed order; amounts as exact decimal text, times as epoch ms. */
export interface ChainedDecision {
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
}

/** The canonical text of a decision: a JSON array, so no field can run into the next. */
export function canonicalDecision(d: ChainedDecision): string {
  return JSON.stringify([
    d.log_partition,
    d.log_offset,
    d.correlation_id,
    d.decision,
    d.original_correlation_id,
    d.partner_id,
    d.identity_key,
    d.fingerprint,
    d.offer_id,
    d.offer_instance_id,
    d.svc_click_id,
    d.environment,
    d.goal_event,
    d.payout_amount,
    d.payout_currency,
    d.received_at_ms,
  ]);
}

/** sha256(previous hash ‖ canonical decision), hex. */
export function chainHash(previousHash: string, decision: ChainedDecision): string {
  return createHash('sha256').update(previousHash).update('\n').update(canonicalDecision(decision)).digest('hex');
}
