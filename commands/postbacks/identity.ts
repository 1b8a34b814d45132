import { createHash } from 'node:crypto';
import type { PostbackIdentityKind } from '../../schemas/generated/events.js';
import type { PostbackFields } from './fields.js';
import { canonicalDecimal } from './payout.js';

/** The business identity of a postback within its partner, and the fingerprint of what it reports. */

export interface PostbackIdentity {
  kind: PostbackIdentityKind;
  /** JSON array of the kind and its parts: unambiguous whatever the parts contain, and stable. */
  key: string;
}

/** The first present of event_id, (event_name, order_id), partner_txn_id. */
export function postbackIdentity(fields: PostbackFields): PostbackIdentity | undefined {
  if (fields.event_id !== undefined) return identity('event_id', fields.event_id);
  // An order can convert several goals (install, then purchase): its id names one event of it.
  if (fields.order_id !== undefined) return identity('order_id', fields.event_name, fields.order_id);
  if (fields.partner_txn_id !== undefined) return identity('partner_txn_id', fields.partner_txn_id);
  return undefined;
}

const identity = (kind: PostbackIdentityKind, ...parts: string[]): PostbackIdentity => ({ kind, key: JSON.stringify([kind, ...parts]) });

/**
 * sha256 (hex) of what the postback reports, in a fixed key order with absent fields as null and
 * the amount in canonical form: the same report sent again ("12.5" or "12.50") has the same
 * fingerprint; any change of event, amount, currency, attribution or identity fields a different one.
 */
export function postbackFingerprint(fields: PostbackFields): string {
  const canonical = {
    event_name: fields.event_name,
    amount: fields.amount === undefined ? null : (canonicalDecimal(fields.amount) ?? fields.amount),
    currency: fields.currency ?? null,
    svc_click_id: fields.svc_click_id ?? null,
    svc_tracking_id: fields.svc_tracking_id ?? null,
    offer_instance_id: fields.offer_instance_id ?? null,
    event_id: fields.event_id ?? null,
    order_id: fields.order_id ?? null,
    partner_txn_id: fields.partner_txn_id ?? null,
  };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}
