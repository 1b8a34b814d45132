import { createHash } from 'node:crypto';

/** The previous hash of a partition's first decision. */
export const GENESIS_HASH = '0'.repeat(64);

/** What a decision's hash covers, in a fixed order; amounts as exact decimal text, times as epoch ms. */
export interface ChainedDecision extends ChainedSinceV2 {
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

/**
 * What the hash covers since its second version: who the conversion pays (the application), how
 * it was attributed and the request's evidence (channel, source address, identity kind).
 */
export interface ChainedSinceV2 {
  identity_kind: string;
  matched_by: string;
  application_id: string | null;
  channel: string;
  source_ip: string;
}

/** Marks the canonical text of the current version (the first version's starts with the partition). */
const VERSION = 'v2';

/** The canonical text of a decision: a JSON array, so no field can run into the next. */
export function canonicalDecision(d: ChainedDecision): string {
  return JSON.stringify([
    VERSION,
    ...canonicalFieldsV1(d),
    d.identity_kind,
    d.matched_by,
    d.application_id,
    d.channel,
    d.source_ip,
  ]);
}

function canonicalFieldsV1(d: Omit<ChainedDecision, keyof ChainedSinceV2>): unknown[] {
  return [
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
  ];
}

const sha256 = (previousHash: string, canonical: string) => createHash('sha256').update(previousHash).update('\n').update(canonical).digest('hex');

/** sha256(previous hash ‖ canonical decision), hex. */
export function chainHash(previousHash: string, decision: ChainedDecision): string {
  return sha256(previousHash, canonicalDecision(decision));
}

/**
 * The hash the first version gave (without the fields of ChainedSinceV2): tells a ledger written
 * before them, to be rebuilt from the log, from one changed since.
 */
export function chainHashV1(previousHash: string, decision: ChainedDecision): string {
  return sha256(previousHash, JSON.stringify(canonicalFieldsV1(decision)));
}
